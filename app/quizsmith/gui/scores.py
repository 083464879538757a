"""Score chips and review ranking: what each metric's number means at a glance.

Plain Python (no Qt), so the rules are easy to test. A chip's level comes from the metric's
own flag thresholds (its `defaults`, overridden by the teacher's settings), so the colours
agree with the review reasons the metric raises.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from quizsmith.domain import Item, ScoreResult
from quizsmith.operations.scores import STALE_REASON
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
#: Flag severities in the words the app shows ("info" flags are hints, grey).
SEVERITY_WORDS = {"info": "hint", "warning": "warning", "error": "error"}


@dataclass(frozen=True)
class Chip:
    metric: str
    #: As the editor's chip row shows it, in words ("does not apply", "out of date").
    text: str
    level: str
    tooltip: str
    #: As a narrow table column shows it ("n/a" for "does not apply"); "" = `text`.
    short: str = ""

    @property
    def cell(self) -> str:
        return self.short or self.text


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
    cls = _metric_class(metric)
    if item.type not in cls.item_types:
        # Also over a number stored before the metric stopped scoring this type (NACo gave
        # a correct true/false item 0.00 for answering "4 August 1914" to the key "True").
        reason = cls.type_not_applicable(item.type)
        return Chip(metric, "does not apply", "none", reason, "n/a")
    result = item.scores.get(metric)
    title = _title(cls, metric)
    if result is None:
        return Chip(metric, "–", "none", f"{title}: not scored yet.")
    if not result.scored:
        reason = result.not_scored_reason or ""
        if result.evidence.get("not_applicable"):
            return Chip(metric, "does not apply", "none", reason, "n/a")
        if reason == STALE_REASON:
            return Chip(
                metric,
                "out of date",
                "none",
                f"{title}: out of date. The item was edited after it was scored; it is "
                "scored again after an edit (live scores) or with Score all.",
                "old",
            )
        return Chip(metric, "not scored", "none", f"{title}: not scored. {reason}", "–")
    return Chip(
        metric,
        chip_text(metric, result),
        _level(item, metric, result, settings),
        _tooltip(item, cls, metric, result),
    )


def _title(cls: type[Metric], metric: str) -> str:
    return cls.chip_label or cls.title or metric


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


def _tooltip(item: Item, cls: type[Metric], metric: str, result: ScoreResult) -> str:
    """The chip's number with what it means and the metric's reasons on this item."""
    lines = [f"{_title(cls, metric)} {cls.chip_text(result)}"]
    if meaning := cls.chip_meaning(result):
        lines[0] += f": {meaning}"
    if result.scored and (reason := cls.chip_reason(result)):
        lines.append(f"Mostly because {reason}.")
    flags = [f for f in item.flags if f.metric == metric]
    for flag in sorted(flags, key=lambda f: -SEVERITY_WEIGHT.get(f.severity, 1.0)):
        lines.append(f"• {SEVERITY_WORDS.get(flag.severity, flag.severity)}: {flag.message}")
    if not flags:
        lines.append("No review reasons from this score.")
    return "\n".join(lines)


def chip_title(metric: str) -> str:
    """A metric's name as its chip shows it ("Overall", "NACo")."""
    return _title(_metric_class(metric), metric)


def stale_metrics(item: Item) -> list[str]:
    """The item's chip metrics whose stored score describes its text before an edit (or
    before an alternative was swapped in), in chip order."""
    return [
        name
        for name, _label in chip_metrics()
        if (result := item.scores.get(name)) is not None
        and not result.scored
        and result.not_scored_reason == STALE_REASON
    ]


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
    """The item's latest stored "overall" (the estimated chance raters accept it), else
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
    """The overall model's estimated chance raters accept each item (KDA paper 4.3),
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
