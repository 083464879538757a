"""The EXAM-style "answerable from its passage" chip, from the answer the overall estimate's
reader already gave (issue 45, point 3): no model call of its own.

EXAM (metrics/exam.py) asks whether a Q/A system picks the key using only the item's
passage; its Q/A system is the solvers' ensemble over the options, which costs seconds an
item, so it runs on request. On the standard profile the overall estimate has already asked
a model the same thing: the 1.5B reader reads the passage and answers the question in its
own words (quality/reader.py), and the SQuAD token F1 of that answer with the key is the
`reader_f1` signal. This metric reads that answer out of the overall (or signals) result
computed for exactly this text (`signals.item_fingerprint`) and says whether it is the key:

- yes: F1 1, the reader's answer is the key (as SQuAD normalises answers);
- partly: it shares some words with the key (0 < F1 < 1);
- no: it shares none (F1 0).

The value is `reader_f1`. So the chip comes with the estimate, in the same live job, and
costs nothing a re-score would wait for. It is not EXAM's number (a free answer rather than a
choice among the options), so it is no feature of the overall model and no stand-in for EXAM
in `quizsmith eval` or the handout check. It raises no flag: the estimate already raises the
reader's (`reader-differs`, `reader-rejects-key`), and a second copy would count twice in the
review order.

The light profile has no reader (its 135M/270M models cannot answer from a passage; the
signals only ask how likely texts are), and nothing on it is cheap and means "answerable":
the chip "does not apply" there and says why, and it is not live there (`live_profiles`);
EXAM runs on request ("Explain"). The same holds on the standard profile while no overall
model fitted on reader signals serves it (`quality.metric._reads_answers`).
"""

from __future__ import annotations

from typing import Any, ClassVar

from quizsmith.domain import Item, ScoreResult
from quizsmith.errors import QuizsmithError
from quizsmith.metrics.base import Metric, MetricContext
from quizsmith.metrics.display import esc, number
from quizsmith.quality.metric import _reads_answers
from quizsmith.quality.reader import READER_VERSION
from quizsmith.quality.signals import item_fingerprint

#: Where the reader's answer is read from, first found first: the estimate (what the live
#: job has just computed), then a signals result (`quizsmith score --metrics signals,...`).
SOURCES = ("overall", "signals")
NO_READER = (
    "On this model profile no model reads the passage and answers the question (the light "
    "profile's models cannot), so there is no reader's answer to show; EXAM, from Explain, "
    "answers with the solvers."
)


class AnswerableMetric(Metric):
    name: ClassVar[str] = "answerable"
    title: ClassVar[str] = "Answerable"
    description: ClassVar[str] = (
        "Answerable from its passage, EXAM-style: whether the model that reads the passage for "
        "the overall estimate answers with the key (yes), with some of its words (partly) or "
        "with something else (no); the F1 of its answer with the key (0-1)."
    )
    needs_passage: ClassVar[bool] = True
    # The reader answers questions; a true/false statement or a cloze sentence is estimated
    # without it (quality/type_estimate.py).
    item_types: ClassVar[tuple[str, ...]] = ("mcq", "short")
    # Right after the estimate it comes with: in the editor's chips and the evidence.
    order: ClassVar[int] = 1
    evidence_title: ClassVar[str] = "Answerable from its passage (the reader's answer)"
    # No item-table column: the EXAM column is the measured one; this chip is the editor's.
    live_profiles: ClassVar[tuple[str, ...]] = ("standard",)
    reads_scores: ClassVar[bool] = True
    # It only reads the estimate's result, which "Score all" stores anyway; left out there
    # (and so from "Explain"), where on the light profile it could only say "does not apply".
    in_score_all: ClassVar[bool] = False

    @classmethod
    def chip_text(cls, result: ScoreResult) -> str:
        value = float(result.value or 0.0)
        if value >= 1.0:
            return "yes"
        return "partly" if value > 0.0 else "no"

    @classmethod
    def chip_level(cls, result: ScoreResult, options: dict[str, Any], severities: set[str]) -> str:
        return {"yes": "good", "partly": "ok"}.get(cls.chip_text(result), "bad")

    @classmethod
    def chip_reason(cls, result: ScoreResult) -> str | None:
        answer = result.evidence.get("reader_answer")
        return f"the reader answered \u201c{answer}\u201d" if isinstance(answer, str) else None

    @classmethod
    def evidence_html(cls, result: ScoreResult) -> str:
        e = result.evidence
        answer, key = e.get("reader_answer", ""), e.get("key", "")
        f1 = number(result.value)
        overlap = f" (word overlap F1 {f1:.2f})" if f1 is not None else ""
        return (
            f"<p>The model that reads the passage for the overall estimate answers "
            f"<b>{esc(answer)}</b>; the key is {esc(key)}{esc(overlap)}.</p>"
            "<p><i>Its own words, not a choice among the options: EXAM (Explain) picks among "
            "the options with the solvers.</i></p>"
        )

    def cache_identity(self, ctx: MetricContext) -> Any:
        from quizsmith.quality.signals import SIGNALS_VERSION

        return {"signals_version": SIGNALS_VERSION, "reader_version": READER_VERSION}

    def compute(self, item: Item, ctx: MetricContext) -> ScoreResult:
        if not _reads_answers(ctx):
            return ScoreResult.not_scored(self.name, NO_READER, evidence={"not_applicable": True})
        fingerprint = item_fingerprint(item)
        for source in SOURCES:
            found = _reader_answer(item.scores.get(source), fingerprint)
            if found is not None:
                answer, f1, config = found
                return ScoreResult(
                    metric=self.name,
                    value=f1,
                    values={"reader_f1": f1},
                    evidence={"reader_answer": answer, "key": item.key, "from": source},
                    model_config=config,
                )
        raise QuizsmithError(
            "The reader's answer to this text is not known yet: it comes with the overall "
            "estimate.",
            "Score the item with Overall first (it is re-scored as you type).",
        )


def _reader_answer(
    result: ScoreResult | None, fingerprint: str
) -> tuple[str, float, dict[str, Any]] | None:
    """(answer, F1 with the key, the reader's model configuration) from an overall or
    signals result computed for the text with this fingerprint, else None."""
    if result is None or not result.scored:
        return None
    if result.metric == "overall":
        values = result.evidence.get("signals")
        evidence = result.evidence.get("signals_evidence")
    else:
        values, evidence = result.values, result.evidence
    if not isinstance(values, dict) or not isinstance(evidence, dict):
        return None
    if evidence.get("item") != fingerprint:
        return None  # computed for older text
    answer, f1 = evidence.get("reader_answer"), number(values.get("reader_f1"))
    if not isinstance(answer, str) or f1 is None:
        return None
    config = {k: v for k, v in result.model_config.items() if k in ("answer_reader", "profile")}
    config["reader_version"] = READER_VERSION
    return answer, f1, config
