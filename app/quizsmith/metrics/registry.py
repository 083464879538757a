"""The metric registry (entry-point group `quizsmith.metrics`) and the lists every front end
reads from it, so a metric that declares itself (metrics/base.py) appears everywhere without
edits outside its module. The registry object itself is defined in metrics/base.py (the
settings check of MetricContext reads it there); this module is where callers use it."""

from __future__ import annotations

from quizsmith.metrics.base import Metric, metrics
from quizsmith.metrics.display import Threshold

register = metrics.register
unregister = metrics.unregister
names = metrics.names
get = metrics.get


def shown_order() -> list[type[Metric]]:
    """Every metric in the order a teacher sees them (chips, evidence, thresholds)."""
    return sorted(metrics.classes(), key=lambda cls: (cls.order, cls.name))


def run_order(names: list[str] | tuple[str, ...]) -> list[str]:
    """`names` (duplicates dropped) in shown order, except that a metric that reads the
    others' results goes after them; unknown names keep their place at the end."""
    known = {cls.name: cls for cls in shown_order()}
    unique = list(dict.fromkeys(names))
    rank = {name: i for i, name in enumerate(known)}

    def key(name: str) -> tuple[int, int]:
        cls = known.get(name)
        if cls is None:
            return (2, unique.index(name))
        return (1 if cls.reads_scores else 0, rank[name])

    return sorted(unique, key=key)


def all_metric_names() -> list[str]:
    """What the item editor's "Score all" runs: every metric that takes part, in run order."""
    return run_order([cls.name for cls in shown_order() if cls.in_score_all])


def default_live_metrics() -> list[str]:
    """The metrics re-scored after every edit until the teacher chooses others, in shown
    order (the editor's `live_order` decides the order they run in)."""
    return [cls.name for cls in shown_order() if cls.live_by_default]


def default_batch_metrics() -> list[str]:
    """The default set of batch scoring, in run order."""
    return run_order([cls.name for cls in shown_order() if cls.batch_by_default])


def chip_metrics() -> tuple[tuple[str, str], ...]:
    """(metric, column heading) of the item tables' chip columns, in order."""
    return tuple((cls.name, cls.chip_label) for cls in shown_order() if cls.chip_label)


def chart_metrics() -> list[tuple[str, str]]:
    """(metric, menu name) of the score-distribution chart."""
    return [(cls.name, cls.chart_label) for cls in shown_order() if cls.chart_label]


def evidence_title(name: str) -> str:
    """The evidence heading of a metric (its name when it declares none or is not
    installed)."""
    if name not in metrics.names():
        return name
    return get(name).evidence_title or name


def threshold_fields() -> list[tuple[str, Threshold]]:
    """(metric, threshold) of every threshold the settings dialog shows, in order."""
    return [(cls.name, t) for cls in shown_order() for t in cls.thresholds]
