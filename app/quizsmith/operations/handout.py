"""Checking a handout (or summary) with EXAM: which bank questions does it let a Q/A
system answer, and how does that compare with a gold text (n-EXAM)?"""

from __future__ import annotations

from collections.abc import Generator, Sequence
from typing import Any, NamedTuple

from quizsmith.domain import Item
from quizsmith.jobs import CancelToken, Progress
from quizsmith.settings import Settings


class HandoutCheck(NamedTuple):
    #: The handout's EXAM report (`metrics.exam.ExamReport`).
    report: Any
    #: n-EXAM against the gold side; None when the gold side answers no question.
    n_exam: float | None
    #: EXAM of the gold side: the gold text, else each item's own passage.
    gold_exam: float


def check_handout(
    text: str,
    items: Sequence[Item],
    settings: Settings,
    token: CancelToken,
    *,
    gold_text: str | None = None,
    source: str = "the text",
) -> Generator[Progress, None, HandoutCheck]:
    """Job: grade `text` by the items it lets the configured Q/A system answer. Without
    `gold_text` the gold side answers each item from its own passage, so items of several
    passages can be checked against one handout. The one event with `done == 0` says what
    is being answered (`source` names the text in it); the CLI prints only that one."""
    from quizsmith.metrics.base import MetricContext
    from quizsmith.metrics.exam import ExamMetric, check_text, exam_score, n_exam_from_scores

    metric = ExamMetric()
    ctx = MetricContext(settings=settings, cancel=token)
    options = ctx.options(metric)
    solvers = metric.required_qa_solvers(ctx, options).solvers
    kwargs: dict[str, Any] = {
        "min_margin": float(options["min_margin"]),
        "min_confidence": float(options["min_confidence"]),
        "check_cancel": token.raise_if_cancelled,
    }
    yield Progress(f"Answering {len(items)} questions from {source}", 0, 1)
    if gold_text is None:
        report, n_exam, gold_exam = check_text(text, items, solvers, **kwargs)
    else:
        report = exam_score(text, items, solvers, **kwargs)
        gold_exam = exam_score(gold_text, items, solvers, **kwargs).exam
        n_exam = n_exam_from_scores({"text": report.exam}, {"text": gold_exam})
    yield Progress("Done", 1, 1)
    return HandoutCheck(report, n_exam, gold_exam)
