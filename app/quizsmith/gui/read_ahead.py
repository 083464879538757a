"""Reading ahead: an item opened in the editor is read ahead (`jobs.read_ahead_job`) once it
has been on screen a moment, so that the models keep its passage before the teacher's first
edit. `ReadingAhead` is the editor's layer above its form (`item_editor.ItemEditor` builds
on it)."""

from __future__ import annotations

import logging

from PySide6.QtCore import QTimer

from quizsmith.bank.store import ItemBank
from quizsmith.gui import jobs
from quizsmith.gui.item_form import ItemForm
from quizsmith.gui.worker import JobRunner, JobWorker
from quizsmith.settings import Settings

log = logging.getLogger(__name__)

#: How long an opened item stays on screen before its passage is read ahead (jobs.read_ahead_job):
#: long enough that paging through the review queue does not start a read per item.
READ_AHEAD_MS = 1500


class ReadingAhead(ItemForm):
    """Reads the shown item's passage with the live metrics while the teacher reads it."""

    bank: ItemBank
    settings: Settings
    runner: JobRunner
    dirty: bool
    live_worker: JobWorker | None
    _live_metrics: list[str]

    def _start_reading_ahead(self) -> None:
        #: None: opened items are not read ahead (the GUI tests' stand-in metrics need no
        #: warm-up, and a background model job would make their timing depend on load).
        self.read_ahead_ms: int | None = READ_AHEAD_MS
        self.read_ahead_timer = QTimer(self)
        self.read_ahead_timer.setSingleShot(True)
        self.read_ahead_timer.timeout.connect(self._read_ahead)
        self.read_ahead_worker: JobWorker | None = None
        #: (passage hash, metrics, profile) read ahead in this session.
        self._read_ahead_done: set[tuple[object, ...] | None] = set()
        self._read_ahead_running: tuple[object, ...] | None = None

    def _schedule_read_ahead(self) -> None:
        """Read the shown item's passage ahead in a moment, unless done in this session."""
        key = self._read_ahead_key()
        if key is not None and key not in self._read_ahead_done and self.read_ahead_ms is not None:
            self.read_ahead_timer.start(self.read_ahead_ms)

    def _read_ahead_key(self) -> tuple[object, ...] | None:
        item = self.item
        if item is None or item.passage is None or not item.passage.text.strip():
            return None
        return (item.passage.hash, tuple(self._live_metrics), self.settings.profile)

    def _read_ahead(self) -> None:
        """Read the opened item's passage with the live metrics before the first edit (see
        jobs.read_ahead_job), unless the teacher has started editing or a score runs."""
        key = self._read_ahead_key()
        if (
            key is None
            or key in self._read_ahead_done
            or not self._live_metrics
            or self.dirty
            or self.live_worker is not None
            or self.item is None
        ):
            return
        worker = self.runner.start(
            jobs.read_ahead_job(self.item, self._live_metrics, self.settings, self.bank)
        )
        self.read_ahead_worker = worker
        self._read_ahead_running = key
        # Bound methods (not lambdas), so that Qt queues the calls to this thread.
        worker.signals.finished.connect(self._read_ahead_finished)
        worker.signals.failed.connect(self._read_ahead_failed)

    def _read_ahead_finished(self, _value: object) -> None:
        if self.read_ahead_worker is not None and self.sender() is self.read_ahead_worker.signals:
            self._read_ahead_done.add(self._read_ahead_running)
            self.read_ahead_worker = None

    def _read_ahead_failed(self, message: str, _fix: str) -> None:
        # A warm-up that fails (no model installed, say) is not the teacher's business: the
        # score they ask for next reports the problem with its fix.
        log.info("reading ahead failed: %s", message)
        if self.read_ahead_worker is not None and self.sender() is self.read_ahead_worker.signals:
            self.read_ahead_worker = None

    def _cancel_read_ahead(self) -> None:
        self.read_ahead_timer.stop()
        if self.read_ahead_worker is not None:
            self.read_ahead_worker.cancel()
            self.read_ahead_worker = None
