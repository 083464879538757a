"""Provider registry. Built-in backends are declared as entry points in pyproject.toml under
`quizsmith.providers`, exactly as a third-party plugin would declare its own, so there is a
single path by which any backend becomes available."""

from __future__ import annotations

import logging
from importlib.metadata import entry_points

from quizsmith.errors import ConfigError
from quizsmith.providers.base import Provider

GROUP = "quizsmith.providers"
log = logging.getLogger(__name__)

_registered: dict[str, type[Provider]] = {}
_entry_points_loaded = False


def register(name: str, cls: type[Provider]) -> None:
    """Add a backend at run time (the entry-point path calls this too)."""
    if not (isinstance(cls, type) and issubclass(cls, Provider)):
        raise TypeError(f"{cls!r} is not a Provider subclass")
    _registered[name] = cls


def _load_entry_points() -> None:
    global _entry_points_loaded
    if _entry_points_loaded:
        return
    _entry_points_loaded = True
    for ep in entry_points(group=GROUP):
        if ep.name in _registered:
            continue
        try:
            register(ep.name, ep.load())
        except Exception as exc:  # a broken plugin must not take the app down
            log.warning("provider plugin %s could not be loaded: %s", ep.name, exc)


def names() -> list[str]:
    _load_entry_points()
    return sorted(_registered)


def get(name: str) -> type[Provider]:
    _load_entry_points()
    try:
        return _registered[name]
    except KeyError:
        raise ConfigError(
            f"Unknown provider {name!r}.",
            f"Known providers: {', '.join(names()) or 'none'}. Reinstall with `make run` "
            "if a built-in one is missing.",
        ) from None
