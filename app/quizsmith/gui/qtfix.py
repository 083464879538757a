"""Work around reference-count bugs of the PySide6 build in use (6.12.0 on Python 3.11).

Measured here: every Python call of a Qt method that returns nothing (`setText`,
`setEnabled`, ...) or returns None (`currentData()` of an item without data, `sender()`
outside a slot) gives back `None` without taking a reference to it, and `Signal.emit()`
does the same with `True`. Each such call steals one reference. On Python 3.11, where
`None` and `True` are not immortal, a session making a few tens of thousands of calls
brings a count to zero and the interpreter aborts ("none_dealloc: deallocating None" or
"bool_dealloc: deallocating True or False").

The fix is applied only when the leak is measured at start-up: the affected singletons
(`None`, `True`, `False`) get a reference count so large that no session can exhaust it,
which is what Python 3.12 does anyway by making them immortal. They are static objects
that are never freed, so nothing else changes. Remove this module once the pinned PySide6
no longer leaks (the probe then finds nothing and applies nothing).
"""

from __future__ import annotations

import ctypes
import sys
from collections.abc import Callable

from PySide6.QtCore import QObject, Signal

_PROBE_CALLS = 64
#: Enough for 2**40 stolen references (centuries at a million Qt calls a second).
_EXTRA_REFS = 1 << 40
applied: list[str] = []


class _Probe(QObject):
    ping = Signal()


def _leaks(obj: object, call: Callable[[], object]) -> bool:
    before = sys.getrefcount(obj)
    for _ in range(_PROBE_CALLS):
        call()
    return before - sys.getrefcount(obj) >= _PROBE_CALLS


def leaking_singletons() -> list[str]:
    """Which of None and True the Qt bindings leak references to."""
    probe = _Probe()
    found = []
    if _leaks(None, lambda: probe.setObjectName("probe")):
        found.append("None")
    if _leaks(True, probe.ping.emit):
        found.append("True")
    probe.deleteLater()
    return found


def apply() -> list[str]:
    """Measure the leaks and, if there are any, make None, True and False unexhaustible.
    Returns what was found leaking; idempotent."""
    if applied:
        return list(applied)
    found = leaking_singletons()
    if not found or sys.implementation.name != "cpython":  # the layout below is CPython's
        return found
    for singleton in (None, True, False):
        # ob_refcnt is the first field of every CPython object (non-debug builds).
        ctypes.c_ssize_t.from_address(id(singleton)).value += _EXTRA_REFS
    applied.extend(found)
    return found
