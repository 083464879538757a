"""Numbers read out of a metric's result: the sub-scores the report correlates with human
labels, and the features of the overall quality model.

Sub-score names are "<metric>" for the headline value and "<metric>.<part>" for the parts:
naco.n/.a/.c; kda (= KDA_cont) and kda.disc; exam; mirror (= (mean-1)/4) and the five
criteria mirror.grammaticality ... (1-5); mre (= MRE BERTScore) and mre.sre_bleu4 ...
mre.mre_bertscore; bleu/rouge/meteor/bertscore and their .single/.multi.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from quizsmith.domain import ScoreResult
from quizsmith.quality.signals import SIGNALS

MIRROR_CRITERIA = ("grammaticality", "appropriateness", "relevance", "novelty", "complexity")
MRE_MEASURES = ("bleu4", "rouge_l", "meteor", "bertscore")

SUBSCORES: dict[str, tuple[str, ...]] = {
    "naco": ("n", "a", "c"),
    "kda": ("kda_disc",),
    "signals": SIGNALS,
    "exam": (),
    "mirror": MIRROR_CRITERIA,
    "mre": tuple(f"{v}_{m}" for v in ("sre", "mre") for m in MRE_MEASURES),
    "bleu": ("single", "multi"),
    "rouge": ("single", "multi"),
    "meteor": ("single", "multi"),
    "bertscore": ("single", "multi"),
}
_SHORT = {"kda_disc": "disc"}


def _number(value: Any) -> float | None:
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, int | float) and math.isfinite(value):
        return float(value)
    return None


def subscores(result: ScoreResult) -> dict[str, float]:
    """The headline value and its parts, for a scored result ({} when not scored)."""
    if not result.scored or result.value is None:
        return {}
    out = {result.metric: float(result.value)}
    parts = SUBSCORES.get(result.metric, ())
    if parts == ("single", "multi") and "multi" not in result.values:
        parts = ()  # one reference: "single" is the headline value itself
    for part in parts:
        value = _number(result.values.get(part))
        if value is not None:
            out[f"{result.metric}.{_SHORT.get(part, part)}"] = value
    return out


#: The overall model's features, in column order: reference-free only, so that every item
#: (a generated one has no reference question) can be estimated. The live metrics' parts,
#: then the cheap signals (quality/signals.py) under "sig.".
FEATURES: tuple[str, ...] = (
    "naco",
    "naco.n",
    "naco.a",
    "naco.c",
    "kda.cont",
    "kda.disc",
    "exam",
    *(f"sig.{name}" for name in SIGNALS),
)
#: Features that need a reference question or a capable judge: a model may be fitted on them
#: (`quizsmith eval --fit --features all`), but the shipped one is not.
REFERENCE_FEATURES: tuple[str, ...] = (
    *(f"mirror.{c}" for c in MIRROR_CRITERIA),
    *(f"ref.{m}" for m in MRE_MEASURES),
    *(f"mre.{m}" for m in MRE_MEASURES),
)
ALL_FEATURES: tuple[str, ...] = FEATURES + REFERENCE_FEATURES
#: The metric whose result a feature is read from, by the feature's prefix ("ref." is MRE's
#: single-reference part in the app; "sig." the signals the overall metric computes itself).
FEATURE_SOURCES: dict[str, str] = {
    "naco": "naco",
    "kda": "kda",
    "exam": "exam",
    "mirror": "mirror",
    "ref": "mre",
    "mre": "mre",
    "sig": "signals",
}


def metrics_read(features: Sequence[str]) -> frozenset[str]:
    """The metrics whose results these features come from (an unknown prefix names itself,
    so a caller never takes an unknown feature for a free one)."""
    return frozenset(FEATURE_SOURCES.get(f.split(".")[0], f.split(".")[0]) for f in features)


_BASELINE_FOR = {"bleu": "bleu4", "rouge": "rouge_l", "meteor": "meteor", "bertscore": "bertscore"}


def overall_features(scores: Mapping[str, ScoreResult]) -> dict[str, float | None]:
    """Feature values (None = missing) from an item's latest scores by metric name."""
    feats: dict[str, float | None] = dict.fromkeys(ALL_FEATURES)

    def scored(name: str) -> ScoreResult | None:
        result = scores.get(name)
        return result if result is not None and result.scored else None

    if (r := scored("naco")) is not None:
        feats["naco"] = _number(r.value)
        for part in ("n", "a", "c"):
            feats[f"naco.{part}"] = _number(r.values.get(part))
    if (r := scored("kda")) is not None:
        feats["kda.cont"] = _number(r.value)
        feats["kda.disc"] = _number(r.values.get("kda_disc"))
    if (r := scored("exam")) is not None:
        feats["exam"] = _number(r.value)
    # Signals: from their own result, or from the overall estimate that computed them.
    if (r := scored("signals")) is not None:
        for name in SIGNALS:
            feats[f"sig.{name}"] = _number(r.values.get(name))
    elif (r := scored("overall")) is not None and isinstance(r.evidence.get("signals"), dict):
        for name in SIGNALS:
            feats[f"sig.{name}"] = _number(r.evidence["signals"].get(name))
    if (r := scored("mirror")) is not None:
        for c in MIRROR_CRITERIA:
            feats[f"mirror.{c}"] = _number(r.values.get(c))
    if (r := scored("mre")) is not None:
        for m in MRE_MEASURES:
            feats[f"ref.{m}"] = _number(r.values.get(f"sre_{m}"))
            feats[f"mre.{m}"] = _number(r.values.get(f"mre_{m}"))
    for metric, measure in _BASELINE_FOR.items():
        if (r := scored(metric)) is not None:
            feats[f"ref.{measure}"] = _number(r.values.get("single", r.value))
    return feats
