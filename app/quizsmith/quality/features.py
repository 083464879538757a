"""The overall estimate's features: numbers read out of each metric's result.

Each metric declares its features (`Metric.feature_names`, `reference_feature_names`,
`features`), so this module names none of them. The shipped overall model and the app read
them here (quality/overall_model.py); `quizsmith eval` fits and checks models on the same
names (evaluation/).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from quizsmith.domain import ScoreResult
from quizsmith.metrics import registry
from quizsmith.metrics.display import number

#: `quizsmith eval`'s reference-overlap baselines: the MRE measure whose single-reference
#: feature ("ref.<measure>") each supplies.
BASELINE_FOR = {"bleu": "bleu4", "rouge": "rouge_l", "meteor": "meteor", "bertscore": "bertscore"}


def feature_names() -> tuple[str, ...]:
    """The overall model's default features, in column order: reference-free only, so that
    every item (a generated one has no reference question) can be estimated. Each metric's
    `feature_names`, in shown order (NACo's and KDA's parts, EXAM, then the cheap signals of
    quality/signals.py under "sig.")."""
    return tuple(f for cls in registry.shown_order() for f in cls.feature_names)


def reference_feature_names() -> tuple[str, ...]:
    """Features that need a reference question or a capable judge: a model may be fitted on
    them (`quizsmith eval --fit --features all`), but the shipped one is not."""
    return tuple(f for cls in registry.shown_order() for f in cls.reference_feature_names)


def all_feature_names() -> tuple[str, ...]:
    return feature_names() + reference_feature_names()


def feature_sources() -> dict[str, str]:
    """The metric whose result a feature is read from, by the feature's prefix ("ref." is
    MRE's single-reference part; "sig." the signals, which the overall metric also carries)."""
    found: dict[str, str] = {}
    for cls in registry.shown_order():
        for name in (*cls.feature_names, *cls.reference_feature_names):
            found.setdefault(name.split(".")[0], cls.name)
    return found


def __getattr__(name: str) -> Any:
    # The names these had as constants, for callers that read them once (the shipped model's
    # columns, tests); computed from the registry on access.
    computed = {
        "FEATURES": feature_names,
        "REFERENCE_FEATURES": reference_feature_names,
        "ALL_FEATURES": all_feature_names,
        "FEATURE_SOURCES": feature_sources,
    }
    if name in computed:
        return computed[name]()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def metrics_read(features: Iterable[str]) -> frozenset[str]:
    """The metrics whose results these features come from (an unknown prefix names itself,
    so a caller never takes an unknown feature for a free one)."""
    sources = feature_sources()
    return frozenset(sources.get(f.split(".")[0], f.split(".")[0]) for f in features)


def overall_features(scores: Mapping[str, ScoreResult]) -> dict[str, float | None]:
    """Feature values (None = missing) from an item's latest scores by metric name."""
    feats: dict[str, float | None] = dict.fromkeys(all_feature_names())
    # In run order: a metric that reads others' results (the overall estimate, which carries
    # the signals it computed) only fills in what their own results left missing.
    for name in registry.run_order(registry.names()):
        result = scores.get(name)
        metric = registry.get(name)
        if result is None or not result.scored or not _in_range(result, metric.value_range):
            continue
        for feature, value in metric.features(result).items():
            if feats.get(feature) is None:
                feats[feature] = _usable(value)
    for metric_name, measure in BASELINE_FOR.items():
        if (r := scores.get(metric_name)) is not None and r.scored:
            feats[f"ref.{measure}"] = _usable(number(r.values.get("single", r.value)))
    return feats


#: The largest number the fitted models take: they read features as float32, and a larger
#: one (an imported NACo score of 1e308) became infinity and ended `quizsmith refit`.
FLOAT32_MAX = 3.4028234663852886e38


def _in_range(result: ScoreResult, value_range: tuple[float, float]) -> bool:
    """A value outside its metric's range is not that metric's score (`Metric.score` refuses
    such a value when it computes one; an imported file may hold anything)."""
    low, high = value_range
    return result.value is None or low <= result.value <= high


def _usable(value: float | None) -> float | None:
    """`value`, or None (missing) when the models could not read it."""
    return value if value is None or abs(value) <= FLOAT32_MAX else None
