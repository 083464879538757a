"""Score many items with several metrics as a cancellable job (CLI, GUI worker, batch)."""

from __future__ import annotations

import contextvars
import queue
import threading
from collections.abc import Generator, Sequence
from dataclasses import dataclass

from quizsmith.domain import Flag, Item, ScoreResult
from quizsmith.jobs import Progress
from quizsmith.metrics import registry
from quizsmith.metrics.base import Metric, MetricContext


@dataclass(frozen=True)
class ScoredStep:
    """The payload of each progress event: one metric's verdict on one item."""

    item: Item
    result: ScoreResult
    flags: list[Flag]


@dataclass(frozen=True)
class PartStep:
    """The payload of a progress event while a metric runs: a part of it finished (`text`
    says what it found, e.g. NACo's verdict, or the overall estimate's quick estimate, marked
    as such). Never a ScoreResult, never stored; the ScoredStep follows."""

    item: Item
    metric: str
    text: str


def apply_result(item: Item, result: ScoreResult, flags: list[Flag]) -> None:
    """Latest score wins; the metric's previous flags are replaced by the new ones."""
    item.scores[result.metric] = result
    item.flags = [f for f in item.flags if f.metric != result.metric] + flags


def score_items(
    items: Sequence[Item],
    metric_names: Sequence[str],
    ctx: MetricContext,
    *,
    skip_scored: bool = False,
    parts: bool = False,
) -> Generator[Progress, None, list[Item]]:
    """Yields a Progress (payload: ScoredStep) after every (item, metric). Items are updated
    in place as they go, so whatever finished before a cancel is kept. With `skip_scored`,
    an (item, metric) that already has a result is left as it is (a stopped batch resumes).
    With `parts`, a Progress (payload: PartStep) also comes as each part of a metric that
    `reports_parts` finishes (the item editor's live chips)."""
    metrics = [registry.get(name)() for name in metric_names]
    total = len(items) * len(metrics)
    done = 0
    for n, item in enumerate(items, 1):
        for metric in metrics:
            ctx.cancel.raise_if_cancelled()
            if skip_scored and metric.name in item.scores:
                done += 1
                continue
            if parts and metric.reports_parts:
                result = yield from _score_with_parts(metric, item, ctx)
            else:
                result = metric.score(item, ctx)
            flags = metric.flags(result, ctx.options(metric)) if result.scored else []
            apply_result(item, result, flags)
            done += 1
            yield Progress(
                f"{metric.title or metric.name} on item {n}/{len(items)}",
                done,
                total,
                ScoredStep(item, result, flags),
            )
    return list(items)


def _score_with_parts(
    metric: Metric, item: Item, ctx: MetricContext
) -> Generator[Progress, None, ScoreResult]:
    """Run the metric on a helper thread and pass on each part it reports as it comes.

    Why a thread: a metric reports a part from inside its `score` call, and a generator can
    only yield from its own frame. The job's thread waits on the queue, so the two never run
    model code at the same time; an error in the metric is raised here, in the job."""
    parts: queue.Queue[tuple[str, str] | None] = queue.Queue()
    outcome: list[ScoreResult | BaseException] = []

    def run() -> None:
        try:
            outcome.append(metric.score(item, ctx))
        except BaseException as exc:  # handed to the job's thread below, raised there
            outcome.append(exc)
        finally:
            parts.put(None)

    listener, ctx.report_part = ctx.report_part, lambda name, text: parts.put((name, text))
    try:
        # In the job's context: its cancel token (jobs.cancel_scope) reaches the model calls.
        context = contextvars.copy_context()
        threading.Thread(
            target=context.run, args=(run,), name=f"score-{metric.name}", daemon=True
        ).start()
        while (part := parts.get()) is not None:
            title = metric.title or metric.name
            yield Progress(f"{title}: {part[1]}", payload=PartStep(item, *part))
    finally:
        ctx.report_part = listener
    if isinstance(outcome[0], BaseException):
        raise outcome[0]
    return outcome[0]
