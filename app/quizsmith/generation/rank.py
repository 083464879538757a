"""Overgenerate-and-rank: score the candidates for one target and keep the best (the KDA
paper, section 6, proposes its metric as exactly this kind of filter; here the overall
estimate, which combines the cheap signals with the live metrics, does the ranking).

The kept candidate is then scored with the rest of the live metrics, so it reaches the
teacher scored as the editor would score it; the alternatives keep their estimate and flags
to be compared in the editor.
"""

from __future__ import annotations

from collections.abc import Generator, Sequence
from statistics import mean

from quizsmith.domain import Item
from quizsmith.jobs import Progress
from quizsmith.metrics import registry
from quizsmith.metrics.base import MetricContext
from quizsmith.metrics.runner import apply_result
from quizsmith.quality.live_set import estimate_live_metrics


def rank_metrics(item_type: str) -> list[str]:
    """What each candidate of this type is scored with to rank it: the metrics that declare
    the type in `rank_item_types` (multiple-choice and short questions by the overall
    estimate, true/false statements by KDA: their own estimate, "is the key right?", would
    prefer the most blatantly false statement); a type none ranks (cloze) is not ranked."""
    return registry.run_order(
        [cls.name for cls in registry.shown_order() if item_type in cls.rank_item_types]
    )


def kept_metrics(item_type: str, profile: str | None = None) -> list[str]:
    """The live metrics the kept item gets as well, so that it reaches the teacher scored as
    the item editor would score it: those that apply to its type and did not rank it, and
    again those that read the others (the overall estimate, last: a teacher's refitted model
    may read NACo's and KDA's parts). An item type that is not ranked is not scored. Only
    the estimate's live set: the editor's progressive chips (KDA on the standard profile,
    quality/live_set.py) would cost every generated item their time."""
    ranked = set(rank_metrics(item_type))
    if not ranked:
        return []
    chosen = []
    for name in estimate_live_metrics(profile):
        cls = registry.get(name)
        types = cls.item_types if cls.generated_item_types is None else cls.generated_item_types
        if item_type in types and (name not in ranked or cls.reads_scores):
            chosen.append(name)
    if all(name in ranked for name in chosen):
        # Nothing new to read: a metric that reads the others would only repeat its ranking
        # score (a second overall estimate per item, 1-12 s on the standard profile).
        return []
    return registry.run_order(chosen)


def rank_value(item: Item) -> float | None:
    """The overall estimate (P(a teacher accepts)) when the item has one; else the mean of
    the live scores it got (None when none could be computed)."""
    names = rank_metrics(item.type)
    # The estimate of a metric that reads the others (the overall one) decides alone.
    for name in names:
        result = item.scores.get(name)
        if registry.get(name).reads_scores and result and result.value is not None:
            return float(result.value)
    values = [
        s.value
        for name in names
        if (s := item.scores.get(name)) is not None and s.value is not None
    ]
    return mean(values) if values else None


def score_candidates(
    candidates: Sequence[Item], ctx: MetricContext, label: str
) -> Generator[Progress, None, None]:
    """Score every candidate with the ranking metrics of its type (stored on the items)."""
    for n, item in enumerate(candidates, 1):
        where = f"{label}: checking candidate {n} of {len(candidates)}"
        yield from _score(item, rank_metrics(item.type), ctx, where)


def score_kept(item: Item, ctx: MetricContext, label: str) -> Generator[Progress, None, None]:
    """Score the kept candidate with the rest of the live metrics."""
    names = kept_metrics(item.type, ctx.settings.profile)
    yield from _score(item, names, ctx, f"{label}: scoring the best candidate")


def _score(
    item: Item, names: Sequence[str], ctx: MetricContext, label: str
) -> Generator[Progress, None, None]:
    for name in names:
        ctx.cancel.raise_if_cancelled()
        metric = registry.get(name)()
        yield Progress(f"{label} ({metric.title or name})")
        ctx.cancel.raise_if_cancelled()
        result = metric.score(item, ctx)
        flags = metric.flags(result, ctx.options(metric)) if result.scored else []
        apply_result(item, result, flags)


def best_first(candidates: Sequence[Item]) -> list[Item]:
    """Highest live score first; among equals, fewer flags, then generation order."""

    def key(pair: tuple[int, Item]) -> tuple[float, int, int]:
        index, item = pair
        value = rank_value(item)
        return (-(value if value is not None else -1.0), len(item.flags), index)

    return [item for _, item in sorted(enumerate(candidates), key=key)]
