"""Quality scores (NACo, KDA, EXAM, MIRROR, MRE) behind one registry; see base.Metric."""

from __future__ import annotations

from quizsmith.metrics.base import Metric, MetricContext

__all__ = ["Metric", "MetricContext"]
