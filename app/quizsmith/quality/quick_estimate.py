"""The overall chip's quick estimate on the standard profile, shown while the 1.5B reader reads.

Why: on the standard profile the first score of an item on a passage no model has read took a
median 3.6 s on two cores, 2.5 s of it the 1.5B model reading the passage
(docs/benchmarks.md); the light models' likelihood signals are read first, in about 0.7 s.
The light profile's overall model reads exactly those signals, so the item editor's chip can
show its estimate, marked as quick, until the standard estimate replaces it (issue 26's first
chip < 1 s). It is a real estimate with its own measured validity (3,000 QGEval questions,
both out of fold: r 0.409 with acceptance against the full estimate's 0.474; the
quick_estimate study in studies/README.md, docs/evaluation.md), never stored, never a
ScoreResult: only the text of a part (`MetricContext.part`) that the live chip shows
greyed, with the dots of a score still coming.
"""

from __future__ import annotations

from collections.abc import Mapping

from quizsmith.domain import ScoreResult
from quizsmith.errors import QuizsmithError
from quizsmith.quality.features import metrics_read
from quizsmith.quality.overall_model import FALLBACK_PROFILE, load_active_model


def quick_estimate(signals: Mapping[str, float | None]) -> float | None:
    """The light profile's overall model (a teacher's refit of it, where there is one) on the
    likelihood signals alone; None when it cannot estimate from them (a refit that reads
    other metrics' results, or a model file that is missing or unreadable)."""
    result = ScoreResult(metric="signals", value=signals.get("key_share"), values=dict(signals))
    try:
        model = load_active_model(FALLBACK_PROFILE)
    except QuizsmithError:
        return None
    if metrics_read(model.used) != {"signals"}:
        # A refit that reads NACo or KDA would see them missing here and estimate from
        # imputed values: no quick number rather than a worse one.
        return None
    estimate = model.predict({"signals": result})
    if not estimate.scored or estimate.value is None:
        return None
    return float(estimate.value)


def quick_estimate_text(value: float) -> str:
    """What the chip shows after "Overall …" until the full estimate comes."""
    return f"quick estimate ≈{value:.0%}"
