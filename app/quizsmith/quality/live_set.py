"""The default live set: the metrics re-scored after every edit until the teacher chooses.

Issue 26 ("the live set, decided"): the live set is what feeds the headline estimate. The
overall metric is live (each metric declaring `live_by_default`; plug-ins may ask too), and
so is every metric whose results the profile's active overall model reads. The shipped
models of both profiles read only the signals, which the overall metric computes itself, so
by default nothing else is needed for the estimate: NACo and KDA (about 4-5 s and 1-2 s an
edit on the light profile, more on the standard one) run from "Score all", "Explain" and the
batch commands. A teacher's refitted model that reads NACo's or KDA's parts brings them back
into the live set, since the estimate would otherwise be computed from results that are
missing or out of date. That set is `estimate_live_metrics`; generation scores a kept item
with it (generation/rank.py).

Issue 45 (point 3, "live chips, progressive"): the item editor adds, after the estimate, the
metrics that declare the profile in `live_profiles`: on the standard profile the EXAM-style
"answerable from its passage" chip (quality/answerable.py: the reader's answer the estimate
already read, no model call of its own) and KDA on multiple-choice items (`live_item_types`).
They run in the same live job, after the estimate, so the Overall chip comes first and the
others follow without a click. NACo stays on request (r 0.14 with QGEval ratings, about 16 s
a question on one core). `default_live_metrics` is the editor's default: both together.
"""

from __future__ import annotations

from collections.abc import Sequence

from quizsmith.metrics import registry
from quizsmith.quality.overall_model import metrics_read_by_active_model

#: Computed by the overall metric itself (quality/metric.py), so never a live metric of its own.
COMPUTED_BY_OVERALL = frozenset({"signals"})


def estimate_live_metrics(profile: str | None = None) -> list[str]:
    """The metrics that declare themselves live plus those the active overall model of
    `profile` (None: the saved settings') reads, in shown order: what the estimate needs."""
    declared = set(registry.default_live_metrics())
    read = set(metrics_read_by_active_model(profile) or ()) if "overall" in declared else set()
    wanted = (declared | read) - COMPUTED_BY_OVERALL
    known = set(registry.names())
    return [cls.name for cls in registry.shown_order() if cls.name in wanted & known]


def progressive_metrics(profile: str | None = None) -> list[str]:
    """The metrics the item editor re-scores after the estimate on `profile` (None: the saved
    settings'), in shown order (metrics declaring it in `live_profiles`)."""
    name = _profile_name(profile)
    return [cls.name for cls in registry.shown_order() if name in cls.live_profiles]


def default_live_metrics(profile: str | None = None) -> list[str]:
    """The item editor's default live set: the estimate's metrics and the progressive chips
    of `profile`, in shown order (`operations.jobs.live_order` decides the run order)."""
    wanted = set(estimate_live_metrics(profile)) | set(progressive_metrics(profile))
    return [cls.name for cls in registry.shown_order() if cls.name in wanted]


def live_for_item_type(metrics: Sequence[str], item_type: str) -> list[str]:
    """The live metrics re-scored after an edit of an item of this type: those whose
    `live_item_types` leave it out (KDA on a true/false item) wait for a click."""
    chosen = []
    for name in metrics:
        types = registry.get(name).live_item_types if name in registry.names() else None
        if types is None or item_type in types:
            chosen.append(name)
    return chosen


def _profile_name(profile: str | None) -> str:
    if profile is not None:
        return profile
    from quizsmith import settings

    return settings.load().profile
