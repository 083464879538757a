"""Numbers read out of a metric's result: the sub-scores the report correlates with human
labels, and the features of the overall quality model.

Sub-score names are "<metric>" for the headline value and "<metric>.<part>" for the parts:
naco.n/.a/.c; kda (= KDA_cont) and kda.disc; exam; mirror (= (mean-1)/4) and the five
criteria mirror.grammaticality ... (1-5); mre (= MRE BERTScore) and mre.sre_bleu4 ...
mre.mre_bertscore; bleu/rouge/meteor/bertscore and their .single/.multi. Each metric
declares its parts and features (`Metric.subscores`, `feature_names`, `features`), so this
module names none of them.

The overall model's features live with the model (quality/features.py); they are re-exported
here for the evaluation code and its callers.
"""

from __future__ import annotations

from typing import Any

from quizsmith.domain import ScoreResult
from quizsmith.metrics import registry
from quizsmith.metrics.display import number
from quizsmith.quality import features as _features
from quizsmith.quality.features import (
    all_feature_names,
    feature_names,
    feature_sources,
    metrics_read,
    overall_features,
    reference_feature_names,
)

__all__ = [
    "BASELINES",
    "all_feature_names",
    "feature_names",
    "feature_sources",
    "metrics_read",
    "overall_features",
    "reference_feature_names",
    "subscore_parts",
    "subscores",
]

#: `quizsmith eval`'s own reference-overlap baselines (not metric plug-ins): their parts.
BASELINES: tuple[str, ...] = ("bleu", "rouge", "meteor", "bertscore")
_BASELINE_PARTS = ("single", "multi")
_SHORT = {"kda_disc": "disc"}


def subscore_parts() -> dict[str, tuple[str, ...]]:
    """The parts each metric (`Metric.subscores`) and baseline is correlated on."""
    parts = {cls.name: cls.subscores for cls in registry.shown_order()}
    parts.update(dict.fromkeys(BASELINES, _BASELINE_PARTS))
    return parts


def subscores(result: ScoreResult) -> dict[str, float]:
    """The headline value and its parts, for a scored result ({} when not scored)."""
    if not result.scored or result.value is None:
        return {}
    out = {result.metric: float(result.value)}
    parts = subscore_parts().get(result.metric, ())
    if parts == _BASELINE_PARTS and "multi" not in result.values:
        parts = ()  # one reference: "single" is the headline value itself
    for part in parts:
        value = number(result.values.get(part))
        if value is not None:
            out[f"{result.metric}.{_SHORT.get(part, part)}"] = value
    return out


def __getattr__(name: str) -> Any:
    # FEATURES, ALL_FEATURES ... (computed from the registry on access) and SUBSCORES.
    if name == "SUBSCORES":
        return subscore_parts()
    return getattr(_features, name)
