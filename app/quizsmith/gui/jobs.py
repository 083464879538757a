"""The core jobs the GUI runs in workers, as factories `token -> generator`.

Plain Python over the core API (no Qt), so each job runs unchanged in a worker thread. Jobs
that write do so through the one ItemBank, which serialises writers and gives each thread
its own reader (see bank/store.py), so they are safe off the GUI thread. Jobs that use
models first call `prepare_models`, which loads the local model libraries without stalling
the GUI thread (see model_loading.py).
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from quizsmith.bank.store import ItemBank
from quizsmith.domain import Item, Passage
from quizsmith.gui.model_loading import prepare_models
from quizsmith.jobs import CancelToken, Progress
from quizsmith.settings import Settings

JobFactory = Callable[[CancelToken], Generator[Progress, None, Any]]
#: Metrics run after every edit (fast enough with the bundled models); the rest on request.
#: The order they run in is `live_order`'s.
DEFAULT_LIVE_METRICS: tuple[str, ...] = ("overall", "naco", "kda")


def live_order(metrics: Sequence[str]) -> list[str]:
    """The order the live metrics run in, so that chips fill in cheapest-informative first
    (issue 16). "overall" goes first when the active model reads none of the other live
    metrics (the shipped one reads only its own signals: about 0.5-1.7 s, against NACo's
    4-5 s); otherwise last, since it reads their results (quality/metric.py)."""
    from quizsmith.evaluation.overall import metrics_read_by_active_model

    unique = list(dict.fromkeys(metrics))
    if "overall" not in unique:
        return unique
    others = [m for m in unique if m != "overall"]
    reads = metrics_read_by_active_model()
    if reads is not None and not reads & set(others):
        return ["overall", *others]
    return [*others, "overall"]


ALL_METRICS: tuple[str, ...] = ("naco", "kda", "exam", "mirror", "mre", "overall")


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
    object). Nothing is stored; saving the item stores the scores."""
    draft = copy.deepcopy(item)

    def job(token: CancelToken) -> Generator[Progress, None, Item]:
        from quizsmith.metrics.runner import score_items

        prepare_models(settings)
        ctx = metric_context(settings, token, bank)
        yield from score_items([draft], list(metrics), ctx)
        return draft

    return job


def content_signature(item: Item) -> tuple[object, ...]:
    """What a score describes: the item's type, wording, options and target fact. A score
    is stored only against an item whose stored content has this same signature."""
    options = tuple(sorted((o.text.strip(), bool(o.is_key)) for o in item.options))
    return (
        item.type,
        item.stem.strip(),
        item.key.strip(),
        options,
        (item.target_fact or "").strip(),
    )


def store_if_current(bank: ItemBank, scored: Item, result: Any, flags: Sequence[Any]) -> bool:
    """Store a metric's result for `scored` unless the bank's item has been edited since it
    was scored (a result must never be saved against newer text). One transaction, so a
    save cannot slip in between the check and the write."""
    if scored.id is None:
        return False
    with bank.transaction():
        stored = bank.get_items([scored.id], with_passages=False)
        if not stored or content_signature(stored[0]) != content_signature(scored):
            return False
        bank.add_score(scored.id, result)
        bank.set_flags(scored.id, list(flags), metric=result.metric)
    return True


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


@dataclass
class GeneratedBatch:
    items: list[Item]
    shortfall: str | None = None
    #: Stopped by Cancel; `items` are the ones finished (and stored) before it.
    cancelled: bool = False


def generate_job(bank: ItemBank, passage: Passage, request: Any, settings: Settings) -> JobFactory:
    """Generate items for a stored passage; each finished item is added to the bank at once
    (progress payload: the stored Item), so a cancel keeps the finished ones."""

    def job(token: CancelToken) -> Generator[Progress, None, GeneratedBatch]:
        # Imported here: generation is heavy to import and must not slow the start-up.
        try:
            from quizsmith.generation import generate_items
        except ImportError as exc:
            from quizsmith.errors import QuizsmithError

            raise QuizsmithError(
                f"Question generation is not available in this installation ({exc}).",
                "Reinstall Quizsmith with `make install`.",
            ) from exc

        kept: list[Item] = []
        yield Progress("Loading the models", 0, request.n)
        prepare_models(settings)
        gen = generate_items(passage, request, settings=settings, cancel=token)
        while True:
            try:
                event = next(gen)
            except StopIteration as stop:
                result = stop.value
                cancelled = bool(getattr(result, "cancelled", False)) or token.cancelled
                return GeneratedBatch(kept, getattr(result, "shortfall", None), cancelled)
            item = getattr(event.payload, "item", None)
            if isinstance(item, Item):
                item.passage_id = passage.id
                item.passage = passage
                if item.subject is None:
                    item.subject = passage.subject
                item.id = bank.add_item(item)
                kept.append(item)
                event = Progress(event.message, event.done, event.total, item)
            yield event

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

    def job(token: CancelToken) -> Generator[Progress, None, Any]:
        from quizsmith.metrics.exam import ExamMetric, check_text

        yield Progress("Loading the Q/A models", 0, 1)
        prepare_models(settings)
        metric = ExamMetric()
        ctx = metric_context(settings, token, None)
        options = ctx.options(metric)
        solver_set = metric.required_qa_solvers(ctx, options)
        yield Progress(f"Answering {len(chosen)} questions from the text", 0, 1)
        report = check_text(
            text,
            chosen,
            solver_set.solvers,
            min_margin=float(options["min_margin"]),
            min_confidence=float(options["min_confidence"]),
            check_cancel=token.raise_if_cancelled,
        )
        yield Progress("Done", 1, 1)
        return report

    return job


def refit_overall_job(bank: ItemBank) -> JobFactory:
    """Refit the overall estimate on the teacher's accept/reject decisions in the bank; the
    result (an OverallModel saved in the user's config folder) is the job's return value."""

    def job(token: CancelToken) -> Generator[Progress, None, Any]:
        from quizsmith.evaluation.overall import refit_from_bank

        yield Progress("Fitting the overall score on your decisions")
        token.raise_if_cancelled()
        return refit_from_bank(bank)

    return job
