"""Long work as cancellable generators.

A job is a plain generator that takes a `CancelToken` and yields `Progress` events. The CLI
loops over it with a progress bar; the GUI runs it in a worker thread and sets the token when
the teacher presses Cancel. Jobs check the token between steps, so cancelling is prompt but
never leaves half-written state.
"""

from __future__ import annotations

import contextlib
import contextvars
import threading
from collections.abc import Generator, Iterator
from dataclasses import dataclass
from typing import Any, TypeVar

from quizsmith.errors import CancelledError

T = TypeVar("T")


class CancelToken:
    """Thread-safe flag shared between the job and whoever may cancel it. One per job run:
    the model host knows a job by its token (providers/host_client.py)."""

    def __init__(self) -> None:
        self._event = threading.Event()

    def cancel(self) -> None:
        self._event.set()

    @property
    def cancelled(self) -> bool:
        return self._event.is_set()

    def raise_if_cancelled(self) -> None:
        if self._event.is_set():
            raise CancelledError("Cancelled.", "")


#: The token of the job running in this context: a model call waiting on the model host
#: (providers/host_client.py) returns as soon as it is set, rather than at the call's end. A
#: context variable, so a helper thread started with the job's context sees it too.
_current_token: contextvars.ContextVar[CancelToken | None] = contextvars.ContextVar(
    "quizsmith_cancel_token", default=None
)


@contextlib.contextmanager
def cancel_scope(token: CancelToken) -> Iterator[None]:
    """Model calls made inside are cut short when `token` is set."""
    reset = _current_token.set(token)
    try:
        yield
    finally:
        _current_token.reset(reset)


def current_token() -> CancelToken | None:
    return _current_token.get()


@dataclass(frozen=True)
class Progress:
    """One step of a job. `done`/`total` drive progress bars; `payload` carries a result."""

    message: str
    done: int = 0
    total: int | None = None
    payload: Any = None
    #: How far the unit after `done` has got (0-1): a generation's item takes minutes, and
    #: its steps (questions written, candidates scored) move the bar within it.
    within: float = 0.0

    @property
    def fraction(self) -> float | None:
        if not self.total:
            return None
        return min(1.0, (self.done + min(max(self.within, 0.0), 1.0)) / self.total)


Job = Generator[Progress, None, T]


def run_to_end(job: Generator[Progress, None, T]) -> tuple[list[Progress], T]:
    """Drain a job, returning every event and the generator's return value."""
    events: list[Progress] = []
    while True:
        try:
            events.append(next(job))
        except StopIteration as stop:
            return events, stop.value
