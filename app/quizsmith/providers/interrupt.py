"""A stop request for the model call running on this thread.

The model host (host_server.py) runs each call on a thread of its own and sets that call's
event when the app cancels it. llama.cpp's generation loop asks `stop_requested()` after every
token (a stopping criterion), so a cancelled chain of thought ends at its next token instead
of running to its 256-token limit. Outside the host no event is set and nothing changes.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from typing import Any

from quizsmith.errors import CancelledError

_local = threading.local()


@contextlib.contextmanager
def stop_signal(event: threading.Event) -> Iterator[None]:
    """Calls made inside stop when `event` is set."""
    previous = getattr(_local, "event", None)
    _local.event = event
    try:
        yield
    finally:
        _local.event = previous


def stop_requested() -> bool:
    event: threading.Event | None = getattr(_local, "event", None)
    return event is not None and event.is_set()


def raise_if_stopped() -> None:
    """After a call that a stop may have cut short: its partial answer must never be used
    (nor remembered as the answer to its prompt)."""
    if stop_requested():
        raise CancelledError("Cancelled.", "")


def with_stop_check(criteria: Any) -> Any:
    """A llama-cpp-python stopping criterion: `criteria`'s verdict, or a stop request."""

    def stop(input_ids: Any, logits: Any) -> bool:
        if stop_requested():
            return True
        return bool(criteria(input_ids, logits)) if criteria is not None else False

    return stop
