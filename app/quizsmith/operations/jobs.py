"""The jobs the desktop app runs in workers, as factories `token -> generator`.

Plain Python over the core API and the operations (no Qt), so each job runs unchanged in a
worker thread. Jobs that write do so through the one ItemBank, which serialises writers
and gives each thread its own reader (see bank/store.py), so they are safe off the GUI
thread. Jobs that use models first call `prepare_models`, which loads the local model
libraries without stalling the GUI thread (see model_loading.py). `quizsmith.gui.jobs`
re-exports this module for the GUI's modules.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Generator, Sequence
from pathlib import Path
from typing import Any

from quizsmith.bank.store import ItemBank
from quizsmith.domain import Item, Passage
from quizsmith.jobs import CancelToken, Progress
from quizsmith.operations.generate import (
    GeneratedBatch,
    generate_into_bank,
    new_questions_request,
)
from quizsmith.operations.handout import HandoutCheck, check_handout
from quizsmith.operations.model_loading import prepare_models
from quizsmith.operations.scores import content_signature, store_if_current
from quizsmith.settings import Settings

__all__ = [
    "GeneratedBatch",
    "JobFactory",
    "all_metrics",
    "content_signature",
    "default_live_metrics",
    "exam_check_job",
    "generate_job",
    "live_for_item_type",
    "live_order",
    "load_passage_job",
    "metric_context",
    "prepare_models",
    "read_ahead_job",
    "refit_overall_job",
    "score_and_store_job",
    "score_draft_job",
    "store_if_current",
]

JobFactory = Callable[[CancelToken], Generator[Progress, None, Any]]


def default_live_metrics(profile: str | None = None) -> list[str]:
    """Metrics run after every edit until the teacher chooses: what feeds the headline
    estimate and, on the standard profile, the progressive chips after it (the EXAM-style
    "answerable", KDA; quality/live_set.py); the rest on request. The order they run in is
    `live_order`'s."""
    from quizsmith.quality.live_set import default_live_metrics as live_set

    return live_set(profile)


def live_for_item_type(metrics: Sequence[str], item_type: str) -> list[str]:
    """The live metrics an edit of an item of this type re-scores (KDA: multiple choice
    only; quality/live_set.py)."""
    from quizsmith.quality.live_set import live_for_item_type as for_type

    return for_type(metrics, item_type)


def live_order(metrics: Sequence[str]) -> list[str]:
    """The order the live metrics run in, so that chips fill in cheapest-informative first
    (issue 16). "overall" goes first when the active model reads none of the other live
    metrics (the shipped one reads only its own signals: about 0.5-1.7 s, against NACo's
    4-5 s); otherwise last, since it reads their results (quality/metric.py). A metric that
    reads the others' results besides the estimate (the "answerable" chip reads the reader's
    answer from it) comes right after "overall", before the slower ones (issue 45)."""
    from quizsmith.metrics import registry
    from quizsmith.quality.overall_model import metrics_read_by_active_model

    unique = list(dict.fromkeys(metrics))
    if "overall" not in unique:
        return unique

    def reads_scores(name: str) -> bool:
        return name in registry.names() and registry.get(name).reads_scores

    after = [m for m in unique if m != "overall" and reads_scores(m)]
    others = [m for m in unique if m != "overall" and m not in after]
    reads = metrics_read_by_active_model()
    if reads is not None and not reads & set(others):
        return ["overall", *after, *others]
    return [*others, "overall", *after]


def all_metrics() -> list[str]:
    """What "Score all" runs: every registered metric that takes part, plug-ins included."""
    from quizsmith.metrics import registry

    return registry.all_metric_names()


def metric_context(settings: Settings, token: CancelToken, bank: ItemBank | None) -> Any:
    from quizsmith.metrics.base import MetricContext

    return MetricContext(
        settings=settings,
        cancel=token,
        expected_complexity=bank.expected_complexity if bank is not None else None,
    )


def score_draft_job(
    item: Item, metrics: Sequence[str], settings: Settings, bank: ItemBank | None
) -> JobFactory:
    """Score an edited, unsaved item (a private copy: the worker never shares the editor's
    object). Nothing is stored; saving the item stores the scores. Parts of a metric are
    reported as they finish (PartStep), so the chips never wait blank on NACo's three calls."""
    draft = copy.deepcopy(item)

    def job(token: CancelToken) -> Generator[Progress, None, Item]:
        from quizsmith.metrics.runner import score_items

        prepare_models(settings)
        ctx = metric_context(settings, token, bank)
        yield from score_items([draft], list(metrics), ctx, parts=True)
        return draft

    return job


def read_ahead_job(
    item: Item, metrics: Sequence[str], settings: Settings, bank: ItemBank | None
) -> JobFactory:
    """Score an opened item with the live metrics and throw the results away, so that the
    models keep its passage's state (llamacpp_state.py) before the teacher's first edit.

    Why: on the standard profile the first score of an item on a passage no model has read
    took 6.0 s on two cores, a re-score after a stem edit 1.5 s (docs/benchmarks.md); most
    of the difference is reading the passage, which can happen while the teacher reads the
    item. The item itself is the probe, so every prefix any live metric keys on the passage
    (or on the unchanged question) is read, without knowing each metric's prompts. Nothing
    is stored or shown: the bank's scores already describe the saved text."""
    probe = copy.deepcopy(item)

    def job(token: CancelToken) -> Generator[Progress, None, None]:
        from quizsmith.metrics.runner import score_items

        prepare_models(settings)
        ctx = metric_context(settings, token, bank)
        yield from score_items([probe], list(metrics), ctx)

    return job


def score_and_store_job(
    bank: ItemBank, item_ids: Sequence[int], metrics: Sequence[str], settings: Settings
) -> JobFactory:
    """Score bank items and store each result (and the metric's flags) as it arrives, so a
    cancel keeps what was finished. Before each metric starts, a progress event names it
    (a MIRROR run can take a minute; the teacher sees which step the time goes to). A
    result for an item edited and saved meanwhile is not stored."""

    def job(token: CancelToken) -> Generator[Progress, None, list[Item]]:
        from quizsmith.metrics import registry
        from quizsmith.metrics.runner import ScoredStep, score_items

        items = bank.get_items(list(item_ids))
        prepare_models(settings)
        ctx = metric_context(settings, token, bank)
        total = len(items) * len(metrics)
        done = 0
        for n, item in enumerate(items, 1):
            for metric in metrics:
                token.raise_if_cancelled()
                title = registry.get(metric).title or metric
                where = f" on item {n} of {len(items)}" if len(items) > 1 else ""
                yield Progress(f"Running {title}{where} (step {done + 1} of {total})…", done, total)
                for event in score_items([item], [metric], ctx):
                    done += 1
                    step = event.payload
                    if isinstance(step, ScoredStep):
                        store_if_current(bank, step.item, step.result, step.flags)
                    yield Progress(f"{title}{where} done", done, total, step)
        return list(items)

    return job


def generate_job(bank: ItemBank, passage: Passage, request: Any, settings: Settings) -> JobFactory:
    """Generate `request.n` new items for a stored passage: items it has already are not
    written again (`new_questions_request`). Each finished item is added to the bank at once
    (progress payload: the stored Item), so a cancel keeps the finished ones. A bank that
    refuses an item stops the run with its error (no rescue file, unlike the CLI)."""

    def job(token: CancelToken) -> Generator[Progress, None, GeneratedBatch]:
        from quizsmith.generation.keeper import ItemKeeper

        yield Progress("Loading the language models (the first run takes a minute)", 0, request.n)
        fresh = new_questions_request(bank, passage.id, request)
        prepare_models(settings)
        keeper = ItemKeeper(bank, None, rescue=False)
        return (
            yield from generate_into_bank(
                passage,
                fresh,
                settings,
                token,
                keeper,
                expected_complexity=bank.expected_complexity,  # as the CLI does
            )
        )

    return job


def load_passage_job(path: Path) -> JobFactory:
    def job(token: CancelToken) -> Generator[Progress, None, Passage]:
        try:
            from quizsmith.generation.passages import load_passage
        except ImportError as exc:
            from quizsmith.errors import QuizsmithError

            raise QuizsmithError(
                f"Opening passage files is not available in this installation ({exc}).",
                "Paste the text instead, or reinstall Quizsmith with `make install`.",
            ) from exc

        yield Progress(f"Reading {path.name}", 0, 1)
        token.raise_if_cancelled()
        passage: Passage = load_passage(path)
        return passage

    return job


def exam_check_job(text: str, items: Sequence[Item], settings: Settings) -> JobFactory:
    """Grade a handout by the bank questions it lets a Q/A system answer (EXAM, n-EXAM)."""
    chosen = copy.deepcopy(list(items))

    def job(token: CancelToken) -> Generator[Progress, None, HandoutCheck]:
        yield Progress("Loading the Q/A models", 0, 1)
        prepare_models(settings)
        return (yield from check_handout(text, chosen, settings, token))

    return job


def refit_overall_job(bank: ItemBank) -> JobFactory:
    """Refit the overall estimate on the teacher's accept/reject decisions in the bank; the
    result (an OverallModel saved in the user's config folder) is the job's return value."""

    def job(token: CancelToken) -> Generator[Progress, None, Any]:
        from quizsmith.evaluation.refit import refit_from_bank

        yield Progress("Fitting the overall score on your decisions")
        token.raise_if_cancelled()
        return refit_from_bank(bank)

    return job
