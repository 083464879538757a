"""The provider registry (entry-point group `quizsmith.providers`)."""

from __future__ import annotations

from quizsmith.plugins import PluginRegistry
from quizsmith.providers.base import Provider

GROUP = "quizsmith.providers"
providers: PluginRegistry[Provider] = PluginRegistry(GROUP, Provider, "provider")

register = providers.register
names = providers.names
get = providers.get
