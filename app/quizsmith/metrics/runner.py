"""Score many items with several metrics as a cancellable job (CLI, GUI worker, batch)."""

from __future__ import annotations

from collections.abc import Generator, Sequence
from dataclasses import dataclass

from quizsmith.domain import Flag, Item, ScoreResult
from quizsmith.jobs import Progress
from quizsmith.metrics import registry
from quizsmith.metrics.base import MetricContext


@dataclass(frozen=True)
class ScoredStep:
    """The payload of each progress event: one metric's verdict on one item."""

    item: Item
    result: ScoreResult
    flags: list[Flag]


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
) -> Generator[Progress, None, list[Item]]:
    """Yields a Progress (payload: ScoredStep) after every (item, metric). Items are updated
    in place as they go, so whatever finished before a cancel is kept. With `skip_scored`,
    an (item, metric) that already has a result is left as it is (a stopped batch resumes)."""
    metrics = [registry.get(name)() for name in metric_names]
    total = len(items) * len(metrics)
    done = 0
    for n, item in enumerate(items, 1):
        for metric in metrics:
            ctx.cancel.raise_if_cancelled()
            if skip_scored and metric.name in item.scores:
                done += 1
                continue
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
