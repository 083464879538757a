"""The review queue: every item nobody has decided on yet (draft or needs review), those
with a warning or error flag first, each group by the overall estimate (lowest chance of
being accepted first), with the reasons; A accepts, R rejects. Hints (severity "info")
are shown grey and do not move an item up."""

from __future__ import annotations

import html
from collections.abc import Generator

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from quizsmith.bank.store import ItemBank
from quizsmith.domain import Item
from quizsmith.errors import QuizsmithError
from quizsmith.gui.evidence import HINT_COLOR, SEVERITY_LABELS
from quizsmith.gui.messages import show_error, show_exception
from quizsmith.gui.models import ItemTableModel, setup_item_view
from quizsmith.gui.scores import (
    SEVERITY_WEIGHT,
    chip_for,
    chip_metrics,
    chip_title,
    has_warning,
    overall_value,
    review_order,
    stale_metrics,
)
from quizsmith.gui.worker import JobFactory, JobRunner, JobWorker
from quizsmith.jobs import CancelToken, Progress
from quizsmith.operations.alternatives import swap_alternative
from quizsmith.operations.reviews import record_review
from quizsmith.settings import Settings

#: Items still waiting for a decision.
OPEN_STATUSES = ("draft", "needs-review")
QUEUE_LIMIT = 5000


#: How a chip's colour reads in words.
LEVEL_WORDS = {"ok": "amber", "bad": "red"}


def unflagged_summary(item: Item, settings: Settings | None) -> str:
    """What the scores say of an item without review reasons, as its chips show them: an
    amber or red chip is named (issue 47: KDA amber 0.61 while the queue said "no score
    found a problem")."""
    chips = [chip_for(item, metric, settings) for metric, _label in chip_metrics()]
    scored = [c for c in chips if c.level != "none"]
    if not scored:
        return "No review reasons yet: no score has been computed. Check it yourself."
    weak = [c for c in scored if c.level in LEVEL_WORDS]
    if weak:
        named = ", ".join(f"{chip_title(c.metric)} {c.text} ({LEVEL_WORDS[c.level]})" for c in weak)
        return (
            f"No review reasons, but not every score is good: {named}. Its evidence in the "
            "editor says why. Check it yourself."
        )
    return "No review reasons: every score is good (green). Check it yourself."


def alternative_html(alt: Item, settings: Settings | None) -> str:
    """An alternative as the queue shows it before a swap: its question, answer, wrong
    answers and scores (issue 47: only the question was shown)."""
    lines = [f"<b>Question:</b> {html.escape(alt.stem)}", f"<b>Answer:</b> {html.escape(alt.key)}"]
    if alt.distractors:
        wrong = "; ".join(html.escape(d) for d in alt.distractors)
        lines.append(f"<b>Wrong answers:</b> {wrong}")
    chips = [chip_for(alt, metric, settings) for metric, _label in chip_metrics()]
    scored = [f"{chip_title(c.metric)} {c.text}" for c in chips if c.level != "none"]
    lines.append(
        "<b>Scores:</b> " + (html.escape(", ".join(scored)) if scored else "not scored yet")
    )
    return "<br>".join(lines)


def queue_job(bank: ItemBank) -> JobFactory:
    def job(token: CancelToken) -> Generator[Progress, None, tuple[list[Item], dict[int, float]]]:
        yield Progress("Loading the review queue", 0, 1)
        items = bank.search(status=list(OPEN_STATUSES), limit=QUEUE_LIMIT)
        token.raise_if_cancelled()
        # The stored "overall" scores order it. Not the overall model run here: loading it
        # took 70 s on two busy cores, a queue stuck at "Loading…" for a minute.
        return review_order(items), {}

    return job


class ReviewQueue(QWidget):
    current_item_changed = Signal(object)  # Item | None
    #: An item's stored state changed here (decided or replaced).
    item_changed = Signal(object)

    #: A refresh finished and the list shows its result.
    refreshed = Signal()
    #: The teacher asked to delete these items (the window asks to confirm).
    delete_requested = Signal(list)
    #: Items whose scores no longer describe their text (an alternative swapped in): the
    #: window re-scores them with the live metrics.
    rescore_requested = Signal(list)

    def __init__(
        self,
        bank: ItemBank,
        settings: Settings,
        runner: JobRunner | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.bank = bank
        self.runner = runner or JobRunner(parent=self)
        self.estimates: dict[int, float] = {}
        self._query: JobWorker | None = None
        self.model = ItemTableModel(settings, self)
        self.view = QTableView()
        self.view.setModel(self.model)
        setup_item_view(self.view)
        self.view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.reasons = QLabel("")
        self.reasons.setWordWrap(True)
        self.count_label = QLabel("")
        # On a line of its own and wrapped: beside the buttons, its one long line made the
        # window 1766 pixels wide at least, wider than a laptop screen (issue 27).
        self.count_label.setWordWrap(True)
        self.accept_button = QPushButton("Accept (A)")
        self.reject_button = QPushButton("Reject (R)")
        self.alt_box = QComboBox()
        # Alternatives are whole questions: sized by a short text (the tooltip shows it all).
        self.alt_box.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
        )
        self.alt_box.setMinimumContentsLength(18)
        self.alt_box.setPlaceholderText("no alternatives kept")
        self.replace_button = QPushButton("Replace with alternative")
        self.refresh_button = QPushButton("Refresh")
        self.delete_button = QPushButton("Delete…")
        self.delete_button.setToolTip("Delete the selected item (asks first; Del)")
        row = QHBoxLayout()
        for w in (self.accept_button, self.reject_button, self.delete_button):
            row.addWidget(w)
        row.addStretch(1)
        row.addWidget(self.refresh_button)
        alternatives = QHBoxLayout()
        alternatives.addWidget(self.alt_box, 1)
        alternatives.addWidget(self.replace_button)
        # The chosen alternative whole, before it replaces the item's wording.
        self.alt_preview = QLabel("")
        self.alt_preview.setWordWrap(True)
        self.alt_preview.setStyleSheet("color:#333; background:#f4f4f4; padding:3px")
        layout = QVBoxLayout(self)
        layout.addWidget(self.count_label)
        layout.addLayout(row)
        layout.addWidget(self.view, 1)
        layout.addLayout(alternatives)
        layout.addWidget(self.alt_preview)
        layout.addWidget(self.reasons)

        for key, decision in (("A", "accept"), ("R", "reject")):
            shortcut = QShortcut(QKeySequence(key), self.view)
            shortcut.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            shortcut.activated.connect(lambda d=decision: self.decide(d))
        self.accept_button.clicked.connect(lambda: self.decide("accept"))
        self.reject_button.clicked.connect(lambda: self.decide("reject"))
        self.replace_button.clicked.connect(self.replace_current)
        self.alt_box.currentIndexChanged.connect(self._show_alternative)
        self.delete_button.clicked.connect(lambda: self.delete_requested.emit(self.current_ids()))
        self.refresh_button.clicked.connect(self.refresh)
        self.view.selectionModel().currentRowChanged.connect(self._current_changed)

    def refresh(self) -> JobWorker:
        """Reload the queue in a worker (the bank query and the overall estimate)."""
        if self._query is not None:
            self._query.cancel()
        self.count_label.setText("Loading…")
        worker = self.runner.start(queue_job(self.bank))
        self._query = worker
        worker.signals.finished.connect(self._loaded)
        worker.signals.failed.connect(self._failed)
        return worker

    def _failed(self, message: str, fix: str) -> None:
        if self._query is not None and self.sender() is self._query.signals:
            self._query = None
            self.count_label.setText("")
            show_error(self, message, fix)

    def _loaded(self, outcome: tuple[list[Item], dict[int, float]]) -> None:
        if self._query is None or self.sender() is not self._query.signals:
            return  # a newer refresh is on its way
        self._query = None
        items, self.estimates = outcome
        current = self.current_item()
        self.model.set_items(items)
        self._show_count()
        row = self.model.row_of(current.id) if current else -1
        self.select_row(row if row >= 0 else 0)
        self.refreshed.emit()

    def _show_count(self) -> None:
        items = self.model.items()
        warned = sum(1 for i in items if has_warning(i))
        hinted = sum(1 for i in items if i.flags and not has_warning(i))
        words = f"{len(items)} item{'s' if len(items) != 1 else ''} to decide"
        if warned:
            words += f": {warned} with a warning first"
        if hinted:
            words += f"{',' if warned else ':'} {hinted} with hints only (grey)"
        self.count_label.setText(words + ". Least likely to be accepted first.")
        self.count_label.setToolTip(
            "Every draft and needs-review item. Items with a warning or error flag come "
            "first; within each group the item a teacher is least likely to accept comes "
            "first (the overall estimate); items without one come last. Hints (grey) do "
            "not move an item up."
        )

    def select_row(self, row: int) -> None:
        if self.model.rowCount() == 0:
            self._current_changed()
            return
        row = max(0, min(row, self.model.rowCount() - 1))
        self.view.selectRow(row)
        self.view.setCurrentIndex(self.model.index(row, 0))

    def current_item(self) -> Item | None:
        index = self.view.currentIndex()
        if not index.isValid() or index.row() >= self.model.rowCount():
            return None
        return self.model.item_at(index.row())

    def current_ids(self) -> list[int]:
        item = self.current_item()
        return [item.id] if item is not None and item.id is not None else []

    def items_removed(self, ids: set[int]) -> None:
        """Deleted items leave the queue; the next one is selected."""
        row = self.view.currentIndex().row()
        current = self.current_item()
        self.model.remove_ids(ids)
        self._show_count()
        if current is not None and current.id in ids:
            self.select_row(row)

    def _current_changed(self, *_args: object) -> None:
        item = self.current_item()
        self._show_reasons(item)
        self.alt_box.clear()
        for alt in item.alternatives if item else []:
            self.alt_box.addItem(alt.stem[:80])
            self.alt_box.setItemData(
                self.alt_box.count() - 1, alt.stem, Qt.ItemDataRole.ToolTipRole
            )
        has_alt = bool(item and item.alternatives)
        # With a placeholder, a filled box does not select its first entry on its own.
        self.alt_box.setCurrentIndex(0 if has_alt else -1)
        self.alt_box.setEnabled(has_alt)
        self.replace_button.setEnabled(has_alt)
        self._show_alternative()
        self.current_item_changed.emit(item)

    def _show_alternative(self, *_args: object) -> None:
        item = self.current_item()
        index = self.alt_box.currentIndex()
        if item is None or not 0 <= index < len(item.alternatives):
            self.alt_preview.setText("")
            self.alt_preview.setVisible(False)
            return
        self.alt_preview.setText(alternative_html(item.alternatives[index], self.model.settings))
        self.alt_preview.setVisible(True)

    def _show_reasons(self, item: Item | None) -> None:
        if item is None:
            self.reasons.setText("Nothing to review." if self.model.rowCount() == 0 else "")
            return
        # Escaped: messages quote the item and thresholds ("KDA_cont 0.30 < 0.30").
        lines = []
        for f in sorted(item.flags, key=lambda f: -SEVERITY_WEIGHT.get(f.severity, 1.0)):
            line = f"<b>{SEVERITY_LABELS.get(f.severity, f.severity)}</b>: "
            line += html.escape(f.message)
            if f.severity == "info":
                line = f"<span style='color:{HINT_COLOR}'>{line}</span>"
            lines.append(line)
        stale = stale_metrics(item)
        if stale:
            # Not "no problem found": the scores that would find one are being redone.
            lines.append(
                "Scores out of date (the wording changed): "
                + ", ".join(chip_title(m) for m in stale)
                + ". They are computed again; the reasons follow."
            )
        elif not item.flags:
            lines.append(html.escape(unflagged_summary(item, self.model.settings)))
        estimate = overall_value(item, self.estimates)
        if estimate is not None:
            lines.append(f"Estimated chance raters accept it: {estimate:.0%}")
        elif "overall" not in stale:
            lines.append("No overall estimate yet (score the item first).")
        self.reasons.setText("<br>".join(lines))

    def item_updated(self, item: Item) -> None:
        """An item changed elsewhere: decided items leave the queue, others are redrawn."""
        if item.status not in OPEN_STATUSES:
            current = self.current_item()
            was_current = current is not None and current.id == item.id
            row = self.view.currentIndex().row()
            self.model.remove_ids({int(item.id or 0)})
            self._show_count()
            if was_current:
                self.select_row(row)
        else:
            self.model.replace_item(item)
            current = self.current_item()
            if current is not None and current.id == item.id:
                self._show_reasons(item)  # the line under the list follows a save or score
                self._show_count()

    def decide(self, decision: str) -> None:
        item = self.current_item()
        if item is None or item.id is None:
            return
        row = self.view.currentIndex().row()
        # One key, no dialog: the worst flag is the recorded reason for a reject.
        worst = max(item.flags, key=lambda f: SEVERITY_WEIGHT.get(f.severity, 1.0), default=None)
        reason = worst.message if worst is not None else ""
        try:
            changes = record_review(
                self.bank, [item.id], decision, reason if decision == "reject" else ""
            )
        except QuizsmithError as exc:
            show_exception(self, exc)
            return
        # A decided item is no longer open: it leaves the queue.
        self.model.remove_ids(set(changes.items))
        self._show_count()
        for item_id in sorted(changes.items):
            self.item_changed.emit(self.bank.get_item(item_id))
        self.select_row(row)

    def replace_current(self) -> None:
        item = self.current_item()
        index = self.alt_box.currentIndex()
        if item is None or item.id is None or index < 0:
            return
        try:
            swap_alternative(self.bank, item.id, index)
            stored = self.bank.get_item(item.id)
        except QuizsmithError as exc:
            show_exception(self, exc)
            return
        self.model.replace_item(stored)
        self._current_changed()
        self.item_changed.emit(stored)
        # The scores the old wording had are marked out of date; compute them for the new.
        self.rescore_requested.emit([item.id])
