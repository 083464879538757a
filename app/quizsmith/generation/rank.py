"""Overgenerate-and-rank: score the candidates for one target with the live metrics and keep
the best (the KDA paper, section 6, proposes its metric as exactly this kind of filter).

The candidates keep their scores and flags, so the kept item reaches the teacher already
scored and the alternatives can be compared in the editor.
"""

from __future__ import annotations

from collections.abc import Generator, Sequence
from statistics import mean

from quizsmith.domain import Item
from quizsmith.jobs import Progress
from quizsmith.metrics import registry
from quizsmith.metrics.base import MetricContext
from quizsmith.metrics.runner import apply_result

#: The live metrics that judge each item type. NACo asks whether the text is a natural,
#: answerable question, so it does not judge true/false statements or cloze sentences; KDA
#: needs options; a cloze item (the source sentence with a blank) has no candidates to rank.
#: "overall" comes last: it reads the others' results (quality/metric.py).
RANK_METRICS: dict[str, tuple[str, ...]] = {
    "mcq": ("naco", "kda", "overall"),
    "short": ("naco", "overall"),
    "tf": ("kda",),
    "cloze": (),
}


def rank_value(item: Item) -> float | None:
    """The overall estimate (P(a teacher accepts)) when the item has one; else the mean of
    the live scores it got (None when none could be computed)."""
    overall = item.scores.get("overall")
    if overall is not None and overall.scored and overall.value is not None:
        return float(overall.value)
    values = [
        s.value
        for name in RANK_METRICS.get(item.type, ())
        if (s := item.scores.get(name)) is not None and s.value is not None
    ]
    return mean(values) if values else None


def score_candidates(
    candidates: Sequence[Item], ctx: MetricContext, label: str
) -> Generator[Progress, None, None]:
    """Score every candidate with the metrics of its type (results stored on the items)."""
    for n, item in enumerate(candidates, 1):
        for name in RANK_METRICS.get(item.type, ()):
            ctx.cancel.raise_if_cancelled()
            metric = registry.get(name)()
            yield Progress(f"{label}: scoring candidate {n}/{len(candidates)} with {metric.title}")
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
