"""The item editor's live scores: every edit cancels the live run still going (its chips
describe text that is gone) and restarts an ~800 ms debounce timer; when it fires, the live
metrics re-score a copy of the draft in one worker, the estimate first, and each chip is shown
as its metric finishes (issue 45: Overall, then the "answerable" chip from the same reader's
answer, then KDA on the standard profile). Until then a chip is greyed, never a number for
older text: a result whose text differs from the fields' is dropped (`stale_metrics`).

`LiveScores` is the editor's layer above its form (`item_editor.ItemEditor` builds on it); the
chips' clock (`chip_clock`) and the Replace… menu (`wrong_answers`) read the editor through it.
"""

from __future__ import annotations

import copy
import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING

from PySide6.QtCore import QTimer, Signal

from quizsmith.bank.store import ItemBank
from quizsmith.domain import Item
from quizsmith.errors import QuizsmithError
from quizsmith.gui import jobs
from quizsmith.gui.chip_row import ChipRow, metric_title
from quizsmith.gui.messages import show_error
from quizsmith.gui.read_ahead import ReadingAhead
from quizsmith.gui.scores import chip_metrics
from quizsmith.gui.worker import JobRunner, JobWorker, ProgressPanel
from quizsmith.metrics import registry as metric_registry
from quizsmith.metrics.runner import PartStep, ScoredStep, apply_result
from quizsmith.settings import Settings

log = logging.getLogger(__name__)

DEBOUNCE_MS = 800


class LiveScores(ReadingAhead):
    """The live re-scoring of the draft and what the chips show of it."""

    #: The item as now stored (after save, review or a full re-score).
    item_changed = Signal(object)
    #: A live re-score finished for the draft (the draft Item with its new scores).
    live_scored = Signal(object)

    bank: ItemBank
    settings: Settings
    runner: JobRunner
    progress: ProgressPanel | None
    chips: ChipRow

    if TYPE_CHECKING:

        def _refresh(self) -> None:
            """Show the item, its chips and its evidence again (item_editor.ItemEditor)."""

    def _start_live_scores(self) -> None:
        """The scoring state of an editor with no item yet, and the debounce timer."""
        self._live_metrics: list[str] = jobs.default_live_metrics()
        self.item: Item | None = None
        #: Scores computed for the current text (stored on save).
        self.fresh_scores: set[str] = set()
        self.dirty = False
        self.live_worker: JobWorker | None = None
        self.full_worker: JobWorker | None = None
        self.live_runs = 0
        self.stale_cancelled = 0
        self._pending: list[str] = []
        #: metric -> what its finished parts found, while the live run of this text goes on.
        self._parts: dict[str, str] = {}
        #: Metrics a running "Score all" has not reached yet (their evidence is old).
        self._full_pending: list[str] = []
        #: The content the bank holds for the item (see jobs.content_signature).
        self.stored_signature: tuple[object, ...] | None = None
        #: The content the running live re-score is scoring.
        self.live_signature: tuple[object, ...] | None = None

        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.setInterval(DEBOUNCE_MS)
        self.timer.timeout.connect(self.rescore_now)

    @property
    def live_metrics(self) -> list[str]:
        return list(self._live_metrics)

    @live_metrics.setter
    def live_metrics(self, metrics: Sequence[str]) -> None:
        """Which metrics re-score after each edit; each gets a chip."""
        self._live_metrics = jobs.live_order(metrics)
        chips = chip_metrics()
        shown = dict(chips)
        extra = [(m, metric_title(m)) for m in self._live_metrics if m not in shown]
        # In the metrics' own order: the "answerable" chip (no table column) beside Overall,
        # whose reader's answer it shows.
        place = {cls.name: n for n, cls in enumerate(metric_registry.shown_order())}
        row = sorted([*chips, *extra], key=lambda chip: place.get(chip[0], len(place)))
        self.chips.set_metrics(row)
        self._refresh()

    def stale_metrics(self) -> set[str]:
        """Metrics whose shown result does not describe the text on screen (edited since),
        or is about to be replaced by a running re-score."""
        if self.item is None:
            return set()
        stale = set(self._pending) | set(self._full_pending)
        if self.dirty:
            stale |= set(self.item.scores) - self.fresh_scores
        return stale

    def rescore_now(self) -> None:
        """Start a live re-score of the draft (cancelling any run still going)."""
        self.timer.stop()
        draft = self.draft()
        self._cancel_live()
        # Its model call in flight finishes first; the passage state it kept serves this run.
        self._cancel_read_ahead()
        metrics = jobs.live_for_item_type(self._live_metrics, draft.type) if draft else []
        if draft is None or not metrics:
            self._pending = []
            self._parts = {}
            self._refresh()
            return
        self.live_runs += 1
        self.live_signature = jobs.content_signature(draft)
        # One job, the estimate first: each chip is shown as its metric finishes (Overall,
        # then the answerable chip from the same reader's answer, then KDA), issue 45.
        worker = self.runner.start(jobs.score_draft_job(draft, metrics, self.settings, self.bank))
        self.live_worker = worker
        worker.signals.progress.connect(self._live_progress)
        worker.signals.failed.connect(self._live_failed)
        worker.signals.done.connect(self._live_done)

    def _live_for_type(self) -> list[str]:
        """The live metrics an edit re-scores for the type now chosen (KDA: multiple choice
        only); the others' chips go out of date until Explain or Score all."""
        return jobs.live_for_item_type(self._live_metrics, self.item_type())

    def _cancel_live(self) -> None:
        if self.live_worker is not None:
            self.live_worker.cancel()
            self.stale_cancelled += 1
            self.live_worker = None

    def _is_current(self) -> bool:
        return self.live_worker is not None and self.sender() is self.live_worker.signals

    def _live_progress(self, event: object) -> None:
        if not self._is_current() or self.item is None:
            return
        step = getattr(event, "payload", None)
        if isinstance(step, PartStep):
            current = self.draft()
            if current is not None and jobs.content_signature(current) == (
                jobs.content_signature(step.item)
            ):
                self._parts[step.metric] = step.text
                self._refresh()
            return
        if not isinstance(step, ScoredStep):
            return

        scored = jobs.content_signature(step.item)
        if scored == self.stored_signature and self.item.id is not None:
            # The text that was scored is the text saved (Save was pressed while this run
            # went on): the bank gets the result, which replaces the stale marker.
            try:
                jobs.store_if_current(self.bank, step.item, step.result, step.flags)
            except QuizsmithError as exc:
                log.warning("could not store a live score of item %s: %s", self.item.id, exc)
            else:
                self.item_changed.emit(self.bank.get_item(self.item.id))
        current = self.draft()
        if current is None or jobs.content_signature(current) != scored:
            return  # typed on since: this result describes older text
        apply_result(self.item, step.result, step.flags)
        self.fresh_scores.add(step.result.metric)
        if step.result.metric in self._pending:
            self._pending.remove(step.result.metric)
        self._parts.pop(step.result.metric, None)
        self._refresh()

    def _live_failed(self, message: str, fix: str) -> None:
        if self._is_current():
            self._pending = []
            self._parts = {}
            self._refresh()
            show_error(self, message, fix, "Scoring failed")

    def _live_done(self) -> None:
        if not self._is_current():
            return
        self.live_worker = None
        current = self.draft()
        if current is None or jobs.content_signature(current) == self.live_signature:
            self._pending = []
            self._parts = {}
        # else: the run scored older text; the re-score of the new text is still to come.
        self._refresh()
        if self.item is not None:
            self.live_scored.emit(copy.deepcopy(self.item))
