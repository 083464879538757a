"""One registry pattern for every kind of plug-in (providers, metrics, formats).

Built-ins are declared as entry points in pyproject.toml, exactly as a third-party package
declares its own, so there is a single path by which anything becomes available. `register`
adds one at run time (tests, scripts).
"""

from __future__ import annotations

import functools
import logging
from importlib.metadata import entry_points
from typing import Any, Generic, TypeVar

from quizsmith.errors import ConfigError

T = TypeVar("T")
log = logging.getLogger(__name__)
#: Each registry by its entry-point group, so that code of a lower layer (the settings check
#: of an endpoint's provider) can ask which names a group offers (`plugin_names`) without
#: importing the layer that owns the registry.
_REGISTRIES: dict[str, PluginRegistry[Any]] = {}


def plugin_names(group: str) -> frozenset[str]:
    """The names `group` offers: its entry points, read from the installed packages'
    metadata without loading any, and those `register` added at run time."""
    registry = _REGISTRIES.get(group)
    return _declared(group) | frozenset(registry._registered if registry else ())


@functools.cache
def _declared(group: str) -> frozenset[str]:
    # Cached: reading every package's metadata takes 15-30 ms, and the settings are read
    # many times per command; what is installed does not change while the app runs.
    return frozenset(ep.name for ep in entry_points(group=group))


class PluginRegistry(Generic[T]):
    def __init__(self, group: str, base: type[T], kind: str) -> None:
        self.group = group
        self.base = base
        self.kind = kind  # "provider", "metric" ...: used in messages
        self._registered: dict[str, type[T]] = {}
        self._loaded = False
        _REGISTRIES[group] = self

    def register(self, name: str, cls: type[T]) -> None:
        if not (isinstance(cls, type) and issubclass(cls, self.base)):
            raise TypeError(f"{cls!r} is not a {self.base.__name__} subclass")
        self._registered[name] = cls

    def unregister(self, name: str) -> None:
        """Remove a plug-in added with `register` (a test cleaning up after itself); an entry
        point removed this way stays removed until the process ends."""
        self._load_entry_points()
        self._registered.pop(name, None)

    def classes(self) -> list[type[T]]:
        """Every loaded plug-in class, in name order."""
        return [self.get(name) for name in self.names()]

    def _load_entry_points(self) -> None:
        if self._loaded:
            return
        self._loaded = True
        for ep in entry_points(group=self.group):
            if ep.name in self._registered:
                continue
            try:
                self.register(ep.name, ep.load())
            except Exception as exc:  # a broken plug-in must not take the app down
                log.warning("%s plug-in %s could not be loaded: %s", self.kind, ep.name, exc)

    def names(self) -> list[str]:
        self._load_entry_points()
        return sorted(self._registered)

    def get(self, name: str) -> type[T]:
        self._load_entry_points()
        try:
            return self._registered[name]
        except KeyError:
            raise ConfigError(
                f"Unknown {self.kind} {name!r}.",
                f"Known: {', '.join(self.names()) or 'none'}. Reinstall with `make install` "
                f"if a built-in {self.kind} is missing.",
            ) from None
