"""The default live set: the metrics re-scored after every edit until the teacher chooses.

Issue 26 ("the live set, decided"): the live set is what feeds the headline estimate. The
overall metric is live (each metric declaring `live_by_default`; plug-ins may ask too), and
so is every metric whose results the profile's active overall model reads. The shipped
models of both profiles read only the signals, which the overall metric computes itself, so
by default nothing else is re-scored live: NACo and KDA (about 4-5 s and 1-2 s an edit on the
light profile, more on the standard one) run from "Score all", "Explain" and the batch
commands. A teacher's refitted model that reads NACo's or KDA's parts brings them back into
the live set, since the estimate would otherwise be computed from results that are missing
or out of date.
"""

from __future__ import annotations

from quizsmith.metrics import registry
from quizsmith.quality.overall_model import metrics_read_by_active_model

#: Computed by the overall metric itself (quality/metric.py), so never a live metric of its own.
COMPUTED_BY_OVERALL = frozenset({"signals"})


def default_live_metrics(profile: str | None = None) -> list[str]:
    """The metrics that declare themselves live plus those the active overall model of
    `profile` (None: the saved settings') reads, in shown order."""
    declared = set(registry.default_live_metrics())
    read = set(metrics_read_by_active_model(profile) or ()) if "overall" in declared else set()
    wanted = (declared | read) - COMPUTED_BY_OVERALL
    known = set(registry.names())
    return [cls.name for cls in registry.shown_order() if cls.name in wanted & known]
