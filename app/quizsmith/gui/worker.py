"""Run a core generator job in the thread pool and turn its yields into Qt signals.

A job is any callable returning a generator of `Progress` (see quizsmith.jobs). The worker
runs it on a QThreadPool thread; each yield becomes `progress(Progress)`, the generator's
return value `finished(value)`, a QuizsmithError `failed(message, fix)`, a cancel (the token
set, or CancelledError) `cancelled()`. Signals are queued to the receiver's thread, so slots
run on the GUI thread and never touch widgets from the worker.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Generator
from typing import Any

from PySide6.QtCore import QObject, QRunnable, QThreadPool, QTimer, Signal
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from quizsmith.errors import CancelledError, QuizsmithError
from quizsmith.jobs import CancelToken, Progress, cancel_scope

log = logging.getLogger(__name__)

#: The progress bar's range: fractions of a job in thousandths.
BAR_STEPS = 1000

JobFactory = Callable[[CancelToken], Generator[Progress, None, Any]]


class WorkerSignals(QObject):
    progress = Signal(object)  # Progress
    finished = Signal(object)  # the job's return value
    failed = Signal(str, str)  # message, fix
    cancelled = Signal()
    #: Emitted last, whatever the outcome: lets owners forget the worker.
    done = Signal()


class JobWorker(QRunnable):
    """One run of one job. `cancel()` sets the token; the job stops at its next check."""

    def __init__(self, job: JobFactory, token: CancelToken | None = None) -> None:
        super().__init__()
        self.job = job
        self.token = token or CancelToken()
        self.signals = WorkerSignals()
        # Python owns the runnable (we keep a reference while it runs); Qt must not delete it.
        self.setAutoDelete(False)
        self.outcome: str = "pending"
        #: Whether a pool thread has begun running it (a cancelled worker whose start was
        #: still queued when its window closed never runs).
        self.started = False

    def cancel(self) -> None:
        self.token.cancel()

    def run(self) -> None:
        self.started = True
        # A model call this job waits on returns as soon as Cancel sets the token.
        with cancel_scope(self.token):
            self._run()

    def _run(self) -> None:
        signals = self.signals
        try:
            gen = self.job(self.token)
            while True:
                if self.token.cancelled:
                    gen.close()
                    raise CancelledError("Cancelled.", "")
                try:
                    event = next(gen)
                except StopIteration as stop:
                    value = stop.value
                    break
                signals.progress.emit(event)
        except CancelledError:
            self.outcome = "cancelled"
            signals.cancelled.emit()
        except QuizsmithError as exc:
            self.outcome = "failed"
            signals.failed.emit(exc.message, exc.fix)
        except Exception as exc:  # an unexpected error: crash log, message with its path
            from quizsmith.crash import write_crash_log

            self.outcome = "failed"
            try:
                path = write_crash_log(exc)
                where = f"Details were saved to {path}."
            except Exception:  # the log folder itself may be the problem
                log.exception("could not write a crash log")
                where = "No crash log could be written."
            signals.failed.emit(
                f"Unexpected error ({type(exc).__name__}).",
                f"{where} Please report it; your bank is unchanged by the failed step.",
            )
        else:
            self.outcome = "finished"
            signals.finished.emit(value)
        finally:
            signals.done.emit()


class JobRunner(QObject):
    """Starts workers on a pool and keeps them alive until they end (PySide would otherwise
    garbage-collect a running runnable's signals)."""

    def __init__(self, pool: QThreadPool | None = None, parent: QObject | None = None) -> None:
        super().__init__(parent)
        if pool is None:
            # Our own pool, wider than the core count: model jobs mostly wait in native code,
            # and a quick job (reading a file) must not queue behind two long scoring runs.
            pool = QThreadPool(self)
            pool.setMaxThreadCount(max(4, QThreadPool.globalInstance().maxThreadCount()))
            # Threads never expire: the bank opens one reader connection per thread, so
            # long-lived threads keep that count bounded.
            pool.setExpiryTimeout(-1)
        self.pool = pool
        self.running: dict[WorkerSignals, JobWorker] = {}

    def start(self, job: JobFactory, token: CancelToken | None = None) -> JobWorker:
        """Create the worker and start it on the next turn of the event loop.

        Connect to `worker.signals` right after this call returns. Starting later is what
        makes that safe: a signal reaches only the slots connected when it is emitted, and
        a quick job (a search) could otherwise finish before its caller had connected."""
        worker = JobWorker(job, token)
        self.running[worker.signals] = worker
        # Bound methods of QObjects (not lambdas): Qt then queues the call to our thread.
        worker.signals.done.connect(self._forget)
        QTimer.singleShot(0, self, lambda: self.pool.start(worker))
        return worker

    def _forget(self) -> None:
        self.running.pop(self.sender(), None)  # type: ignore[call-overload]

    def running_for(self, worker: JobWorker | None) -> bool:
        """Whether `worker` was started here and has not ended."""
        return worker is not None and worker.outcome == "pending" and not worker.token.cancelled

    def cancel_all(self) -> None:
        for worker in list(self.running.values()):
            worker.cancel()

    def settled(self) -> bool:
        """Every worker has ended, or was cancelled before it started (and so never will
        do anything). Unlike `running`, this holds also once the runner's Qt object is gone
        (a deleted window), whose queued bookkeeping then never arrives."""
        return all(
            w.outcome != "pending" or (w.token.cancelled and not w.started)
            for w in list(self.running.values())
        )

    def wait(self, msecs: int = 30000) -> bool:
        """Wait for the started workers (a worker whose start is still queued never runs
        if the event loop does not turn again, e.g. after the app has quit)."""
        return self.pool.waitForDone(msecs)


class JobRow(QWidget):
    """One running job: its message, the time taken so far, a bar and its own Cancel.

    The bar moves (busy) until the job has finished a first step: a generation's first
    item can take minutes on a slow machine, and a bar standing at 0% looked frozen
    (issue 19). The elapsed time beside the message ticks every second for the same reason.
    """

    finished = Signal(object)  # the row, once its job has ended

    def __init__(self, worker: JobWorker, title: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.worker = worker
        self.label = QLabel(title)
        # A long step ("Item 2/5: writing question 3 of 3 about …") must not widen the
        # window: the label takes the room left and is cut; the tooltip has it all.
        self.label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.label.setMinimumWidth(120)
        self.label.setToolTip(title)
        self.bar = QProgressBar()
        self.bar.setMaximumWidth(220)
        self.bar.setRange(0, 0)  # busy until the first event says how far along it is
        self.elapsed = QLabel("")
        self.elapsed.setObjectName("progress-elapsed")
        self._started = time.monotonic()
        self._ticker = QTimer(self)
        self._ticker.setInterval(1000)
        self._ticker.timeout.connect(self._tick)
        self._ticker.start()
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setToolTip(f"Stop “{title}”; finished steps are kept.")
        self.cancel_button.clicked.connect(self.cancel)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.label, 1)
        layout.addWidget(self.elapsed)
        layout.addWidget(self.bar)
        layout.addWidget(self.cancel_button)
        worker.signals.progress.connect(self._on_progress)
        worker.signals.done.connect(self._on_done)

    def cancel(self) -> None:
        self.worker.cancel()
        self.label.setText("Cancelling…")
        self.cancel_button.setEnabled(False)

    def _on_progress(self, event: Progress) -> None:
        if self.cancel_button.isEnabled():  # "Cancelling…" stays until the job ends
            self.label.setText(event.message)
            self.label.setToolTip(event.message)
        fraction = event.fraction
        if fraction is not None and fraction > 0:
            # In thousandths: a step within an item moves the bar too (issue 27: the first
            # item of a generation took minutes with the bar standing still).
            self.bar.setRange(0, BAR_STEPS)
            self.bar.setValue(round(fraction * BAR_STEPS))
        elif event.total:
            self.bar.setRange(0, 0)  # nothing finished yet: busy, not a bar stuck at 0%

    def _tick(self) -> None:
        seconds = int(time.monotonic() - self._started)
        minutes, seconds = divmod(seconds, 60)
        self.elapsed.setText(f"{minutes} min {seconds:02d} s" if minutes else f"{seconds} s")

    def _on_done(self) -> None:
        self._ticker.stop()
        self.finished.emit(self)


class ProgressPanel(QWidget):
    """Every running job, one row each with its own Cancel (issue 17: with two jobs the
    panel used to follow only the last, and its Cancel stopped that one while the first ran
    on unseen). Hidden while nothing runs. `worker`, `label`, `bar` and `cancel_button`
    are the newest job's, for the dialogs that run one job at a time."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.rows: list[JobRow] = []
        self._last_ended: JobRow | None = None
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(0, 0, 0, 0)
        self._layout.setSpacing(2)
        self.setVisible(False)

    def attach(self, worker: JobWorker, title: str) -> JobRow:
        row = JobRow(worker, title, self)
        row.finished.connect(self._remove)
        self.rows.append(row)
        self._layout.addWidget(row)
        self.setVisible(True)
        return row

    @property
    def newest(self) -> JobRow | None:
        return self.rows[-1] if self.rows else None

    @property
    def worker(self) -> JobWorker | None:
        return self.newest.worker if self.newest else None

    @property
    def label(self) -> QLabel:
        return self._newest_or_error().label

    @property
    def bar(self) -> QProgressBar:
        return self._newest_or_error().bar

    @property
    def cancel_button(self) -> QPushButton:
        return self._newest_or_error().cancel_button

    @property
    def elapsed(self) -> QLabel:
        return self._newest_or_error().elapsed

    def _newest_or_error(self) -> JobRow:
        # After the last job ended, its row (hidden) still says how it ended.
        row = self.newest or self._last_ended
        if row is None:
            raise LookupError("no job has run in this panel")
        return row

    def cancel(self) -> None:
        """Cancel every running job (closing a dialog that ran them)."""
        for row in list(self.rows):
            row.cancel()

    def _remove(self, row: JobRow) -> None:
        if row in self.rows:
            self.rows.remove(row)
            self._layout.removeWidget(row)
            row.hide()
            if self._last_ended is not None:
                self._last_ended.deleteLater()
            self._last_ended = row
        self.setVisible(bool(self.rows))
