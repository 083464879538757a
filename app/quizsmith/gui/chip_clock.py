"""The time a chip's metric has been running, on the chip: "NACo … 12 s" rather than "…"
for the 37 s a NACo run took (issue 47), so a slow score reads as at work, not stuck.

It only adds to the chip row's texts: every second, each chip whose metric the editor still
waits for gets the seconds since it began waiting.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QTimer

if TYPE_CHECKING:
    from quizsmith.gui.live_scores import LiveScores

TICK_MS = 1000


def elapsed_text(seconds: float) -> str:
    whole = int(seconds)
    minutes, rest = divmod(whole, 60)
    return f"{minutes} min {rest:02d} s" if minutes else f"{whole} s"


class ChipClock(QObject):
    def __init__(self, editor: LiveScores) -> None:
        super().__init__(editor)
        self.editor = editor
        #: metric -> when the editor began waiting for it.
        self.since: dict[str, float] = {}
        #: metric -> the time text the last tick added to its chip.
        self.added: dict[str, str] = {}
        self.timer = QTimer(self)
        self.timer.setInterval(TICK_MS)
        self.timer.timeout.connect(self.tick)
        self.timer.start()

    def waiting(self) -> list[str]:
        editor = self.editor
        if editor.item is None:
            return []
        return [*editor._pending, *editor._full_pending]

    def tick(self) -> None:
        now = time.monotonic()
        waiting = set(self.waiting())
        # A metric waited for again (a new edit) starts from 0.
        self.since = {m: t for m, t in self.since.items() if m in waiting}
        running = self._running()
        for metric in waiting:
            label = self.editor.chips.labels.get(metric)
            if label is None:
                continue
            if not running:
                self.since.pop(metric, None)  # only waiting for the debounce: no clock yet
                continue
            start = self.since.setdefault(metric, now)
            text = label.text()
            added = self.added.get(metric, "")
            if added and text.endswith(added):
                text = text[: -len(added)]  # the last tick's, unless the row was redrawn
            self.added[metric] = f" · {elapsed_text(now - start)}"
            label.setText(text + self.added[metric])

    def _running(self) -> bool:
        """Whether a score the chips wait for is running (not just the typing pause)."""
        editor = self.editor
        return editor.live_worker is not None or editor.full_worker is not None
