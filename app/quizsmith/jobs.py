"""Long work as cancellable generators.

A job is a plain generator that takes a `CancelToken` and yields `Progress` events. The CLI
loops over it with a progress bar; the GUI runs it in a worker thread and sets the token when
the teacher presses Cancel. Jobs check the token between steps, so cancelling is prompt but
never leaves half-written state.
"""

from __future__ import annotations

import threading
from collections.abc import Generator
from dataclasses import dataclass
from typing import Any, TypeVar

from quizsmith.errors import CancelledError

T = TypeVar("T")


class CancelToken:
    """Thread-safe flag shared between the job and whoever may cancel it."""

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
