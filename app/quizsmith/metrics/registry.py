"""The metric registry (entry-point group `quizsmith.metrics`)."""

from __future__ import annotations

from quizsmith.metrics.base import Metric
from quizsmith.plugins import PluginRegistry

GROUP = "quizsmith.metrics"
metrics: PluginRegistry[Metric] = PluginRegistry(GROUP, Metric, "metric")

register = metrics.register
names = metrics.names
get = metrics.get
