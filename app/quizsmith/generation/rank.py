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

#: What each candidate is scored with to rank it. Multiple-choice and short questions are
#: ranked by the overall estimate (the chance a teacher accepts the item; quality/metric.py),
#: which needs no reference and is cheap; a true/false statement by KDA (the estimate was
#: fitted on questions); a cloze item (the source sentence with a blank) is not ranked.
RANK_METRICS: dict[str, tuple[str, ...]] = {
    "mcq": ("overall",),
    "short": ("overall",),
    "tf": ("kda",),
    "cloze": (),
}
#: The live metrics the kept item gets as well, so that it reaches the teacher scored as the
#: item editor would score it; "overall" again last, since a teacher's refitted model may read
#: NACo's and KDA's parts. NACo asks whether the text is a natural, answerable question, so it
#: does not judge true/false statements; KDA needs options.
KEPT_METRICS: dict[str, tuple[str, ...]] = {
    "mcq": ("naco", "kda", "overall"),
    "short": ("naco", "overall"),
    "tf": (),
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
    """Score every candidate with the ranking metrics of its type (stored on the items)."""
    for n, item in enumerate(candidates, 1):
        yield from _score(item, RANK_METRICS.get(item.type, ()), ctx, f"{label}: candidate {n}")


def score_kept(item: Item, ctx: MetricContext, label: str) -> Generator[Progress, None, None]:
    """Score the kept candidate with the rest of the live metrics."""
    yield from _score(item, KEPT_METRICS.get(item.type, ()), ctx, label)


def _score(
    item: Item, names: Sequence[str], ctx: MetricContext, label: str
) -> Generator[Progress, None, None]:
    for name in names:
        ctx.cancel.raise_if_cancelled()
        metric = registry.get(name)()
        yield Progress(f"{label}: scoring with {metric.title}")
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
