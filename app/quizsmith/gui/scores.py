"""Score chips and review ranking: what each metric's number means at a glance.

Plain Python (no Qt), so the rules are easy to test. A chip's level comes from the metric's
own flag thresholds (its `defaults`, overridden by the teacher's settings), so the colours
agree with the review reasons the metric raises.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from quizsmith.domain import Item, ScoreResult
from quizsmith.settings import Settings

if TYPE_CHECKING:
    from quizsmith.metrics.base import Metric


def chip_metrics() -> tuple[tuple[str, str], ...]:
    """Chip columns of the item tables, in order: (metric, short label), as each metric
    declares them (`chip_label`; the overall estimate, the headline, first)."""
    from quizsmith.metrics import registry

    return registry.chip_metrics()


LEVELS = ("good", "ok", "bad", "none")
#: Chip colours (background) per level.
LEVEL_COLORS = {"good": "#cdeccf", "ok": "#fbe7b5", "bad": "#f6c4c0", "none": "#e4e4e4"}
SEVERITY_WEIGHT = {"error": 3.0, "warning": 2.0, "info": 0.5}


@dataclass(frozen=True)
class Chip:
    metric: str
    text: str
    level: str
    tooltip: str


def metric_options(metric: str, settings: Settings | None) -> dict[str, Any]:
    """A metric's defaults with the teacher's [metrics.<name>] settings on top."""
    from quizsmith.errors import ConfigError
    from quizsmith.metrics import registry

    try:
        merged = dict(registry.get(metric).defaults)
    except ConfigError:
        merged = {}
    user = (settings.metrics if settings else {}).get(metric, {})
    if isinstance(user, dict):
        merged.update(user)
    return merged


def chip_for(item: Item, metric: str, settings: Settings | None = None) -> Chip:
    result = item.scores.get(metric)
    if result is None:
        return Chip(metric, "–", "none", "Not scored yet.")
    if not result.scored:
        return Chip(metric, "n/s", "none", f"Not scored: {result.not_scored_reason}")
    return Chip(
        metric,
        chip_text(metric, result),
        _level(item, metric, result, settings),
        _tooltip(item, metric, result),
    )


def _metric_class(metric: str) -> type[Metric]:
    from quizsmith.errors import ConfigError
    from quizsmith.metrics import registry
    from quizsmith.metrics.base import Metric

    try:
        return registry.get(metric)
    except ConfigError:
        return Metric  # not installed (any more): plain numbers, coloured by its flags


def chip_text(metric: str, result: ScoreResult) -> str:
    return _metric_class(metric).chip_text(result)


def _level(item: Item, metric: str, result: ScoreResult, settings: Settings | None) -> str:
    severities = {f.severity for f in item.flags if f.metric == metric}
    return _metric_class(metric).chip_level(result, metric_options(metric, settings), severities)


def _tooltip(item: Item, metric: str, result: ScoreResult) -> str:
    lines = [f"{metric.upper()} {result.value:.3f}" if result.value is not None else metric]
    lines += [f"• {f.message}" for f in item.flags if f.metric == metric]
    return "\n".join(lines)


def badness(item: Item, p_accept: float | None = None) -> float:
    """How urgently an item needs a look: flag severities, then how unlikely a teacher is to
    accept it (the overall estimate when there is one, else its low scores). Higher first."""
    flags = sum(SEVERITY_WEIGHT.get(f.severity, 1.0) for f in item.flags)
    if p_accept is not None:
        return flags + (1.0 - p_accept)
    scored = [
        float(s.value)
        for name, s in item.scores.items()
        if s.scored and s.value is not None and name in dict(chip_metrics())
    ]
    # Low scores add up to one severity step; an unscored item sorts after scored equals.
    weak = (1.0 - sum(scored) / len(scored)) if scored else 0.0
    return flags + weak


def worst_first(items: list[Item], p_accept: dict[int, float] | None = None) -> list[Item]:
    estimates = p_accept or {}
    return sorted(items, key=lambda i: (-badness(i, estimates.get(i.id or 0)), i.id or 0))


#: Severities that put an item in the first group of the review queue ("info" is a hint).
WARNING_SEVERITIES = ("warning", "error")


def has_warning(item: Item) -> bool:
    return any(f.severity in WARNING_SEVERITIES for f in item.flags)


def overall_value(item: Item, estimates: dict[int, float] | None = None) -> float | None:
    """The item's latest stored "overall" (the probability that a teacher accepts it), else
    the overall model's estimate from its scores when one was computed, else None."""
    result = item.scores.get("overall")
    if result is not None and result.scored and result.value is not None:
        return float(result.value)
    if estimates and item.id is not None and item.id in estimates:
        return estimates[item.id]
    return None


def review_order(items: list[Item], estimates: dict[int, float] | None = None) -> list[Item]:
    """The review queue's order: items with a warning or error flag first, then the rest
    (hints alone do not count); within each group the lowest overall first, items without
    an overall after those with one; ties (items without an overall, say) by the worst
    flag (an error before a warning), then by id, oldest first."""

    def key(item: Item) -> tuple[int, int, float, float, int]:
        value = overall_value(item, estimates)
        worst = max((SEVERITY_WEIGHT.get(f.severity, 1.0) for f in item.flags), default=0.0)
        return (
            0 if has_warning(item) else 1,
            0 if value is not None else 1,
            value if value is not None else 0.0,
            -worst,
            item.id or 0,
        )

    return sorted(items, key=key)


def accept_estimates(items: list[Item]) -> dict[int, float]:
    """The overall model's probability that a teacher accepts each item (KDA paper 4.3),
    for the items with enough metric scores; {} when the model is unavailable."""
    try:
        from quizsmith.quality.overall_model import load_active_model

        model = load_active_model()
    except Exception:  # optional: no model, or its libraries missing, means no estimate
        return {}
    found = {}
    for item in items:
        if item.id is None:
            continue
        result = model.predict(item)
        if result.scored and result.value is not None:
            found[item.id] = float(result.value)
    return found
