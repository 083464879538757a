"""The provider registry (entry-point group `quizsmith.providers`)."""

from __future__ import annotations

from quizsmith.plugins import PluginRegistry
from quizsmith.providers.base import Provider

GROUP = "quizsmith.providers"
providers: PluginRegistry[Provider] = PluginRegistry(GROUP, Provider, "provider")

register = providers.register
names = providers.names
unregister = providers.unregister


def endpoint_kinds() -> list[str]:
    """The kinds an [endpoints.<n>] table can name, in their declared order (the settings
    dialog's list)."""
    found = [n for n in names() if get(n).serves_endpoints]
    return sorted(found, key=lambda n: (get(n).order, n))


get = providers.get
