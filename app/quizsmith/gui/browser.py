"""The bank browser: full-text search and filters, sortable columns, bulk actions."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Generator
from dataclasses import dataclass, field
from typing import Any

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from quizsmith.bank.store import ItemBank
from quizsmith.domain import STATUSES, Item
from quizsmith.errors import QuizsmithError
from quizsmith.gui.messages import show_error, show_exception
from quizsmith.gui.models import ItemTableModel, SortableItems, setup_item_view
from quizsmith.gui.worker import JobRunner, JobWorker
from quizsmith.jobs import CancelToken, Progress
from quizsmith.operations.reviews import record_review
from quizsmith.settings import Settings

#: Before the question of an item the search found through its passage alone (issue 47:
#: "sugar" listed every item of a passage without saying why).
PASSAGE_MARK = "[passage]"


@dataclass
class Found:
    """A search's result: the items, the reasons of their last decisions, and for the items
    found only through their passage, the mark and its tooltip (by item id)."""

    items: list[Item]
    reasons: dict[int, str] = field(default_factory=dict)
    matches: dict[int, tuple[str, str]] = field(default_factory=dict)


def _words(text: str) -> list[str]:
    """Words as the bank's full-text index reads them: letters and digits, case and accents
    aside (bank/schema.py: unicode61 remove_diacritics)."""
    plain = "".join(
        ch for ch in unicodedata.normalize("NFKD", text) if not unicodedata.combining(ch)
    )
    return [w.casefold() for w in re.findall(r"[^\W_]+", plain)]


def query_terms(query: str) -> list[tuple[list[str], bool]]:
    """What the bank's search looks for (bank/search.py, fts_query): each word or "quoted
    phrase" as its words, and whether it matches as a prefix (the last term, while typing)."""
    terms = []
    for phrase, word in re.findall(r'"([^"]*)"|([^\s"]+)', query or ""):
        words = _words(phrase or word)
        if words:
            terms.append((words, False))
    if terms and not query.rstrip().endswith('"'):
        terms[-1] = (terms[-1][0], True)
    return terms


def _has(words: list[str], term: list[str], prefix: bool) -> bool:
    n = len(term)
    for i in range(len(words) - n + 1):
        if words[i : i + n - 1] == term[:-1] and (
            words[i + n - 1].startswith(term[-1]) if prefix else words[i + n - 1] == term[-1]
        ):
            return True
    return False


def found_in_own_text(item: Item, query: str) -> bool:
    """Whether the item's question, answer or options hold every term of the query (the
    search then found it by its own text, not by its passage's)."""
    words = _words(" ".join([item.stem, item.key, *(o.text for o in item.options)]))
    return all(_has(words, term, prefix) for term, prefix in query_terms(query))


def passage_matches(items: list[Item], query: str) -> dict[int, tuple[str, str]]:
    """The items a search for `query` found only through their passage's title or text."""
    if not query_terms(query):
        return {}
    tip = (
        f"Found through its passage: the passage's title or text holds \u201c{query.strip()}"
        "\u201d; the question, its answer and options do not."
    )
    return {
        int(item.id): (PASSAGE_MARK, tip)
        for item in items
        if item.id is not None and not found_in_own_text(item, query)
    }


SEARCH_DEBOUNCE_MS = 300
LIMIT = 1000
STATUS_DECISIONS = {"accepted": "accept", "rejected": "reject", "needs-review": "needs-review"}


class BankBrowser(QWidget):
    current_item_changed = Signal(object)  # Item | None
    quizzes_changed = Signal()
    score_requested = Signal(list)  # item ids
    items_changed = Signal(list)  # ids whose stored state changed here
    delete_requested = Signal(list)  # item ids the teacher asked to delete

    #: A refresh finished and the list shows its result.
    refreshed = Signal()

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
        self._query: JobWorker | None = None
        self._select_after: list[int] = []
        self.model = ItemTableModel(settings, self)
        self.proxy = SortableItems(self.model, self)
        self.search_edit = QLineEdit()
        self.search_edit.setPlaceholderText("Search questions, answers and passages…")
        self.search_edit.setClearButtonEnabled(True)
        self.status_box = self._combo("any status", [(s, s) for s in STATUSES])
        self.subject_box = self._combo("any subject", [])
        self.tag_box = self._combo("any tag", [])
        self.flag_box = self._combo("flagged or not", [("flagged", True), ("not flagged", False)])
        self.quiz_box = self._combo("whole bank", [])
        self.view = QTableView()
        self.view.setModel(self.proxy)
        setup_item_view(self.view)
        self.view.setColumnWidth(2, 96)  # the status with the reason (wrapped on two lines)
        self.view.setSortingEnabled(True)
        self.view.sortByColumn(0, Qt.SortOrder.DescendingOrder)
        self.view.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.count_label = QLabel("")
        self.quiz_target = QComboBox()
        self.quiz_target.setEditable(True)
        self.quiz_target.setMinimumWidth(160)
        if (line := self.quiz_target.lineEdit()) is not None:
            line.setPlaceholderText("quiz (type a new name)")
        self.add_quiz_button = QPushButton("Add to quiz")
        self.status_target = QComboBox()
        for status in STATUS_DECISIONS:
            self.status_target.addItem(status)
        self.status_button = QPushButton("Set status")
        self.score_button = QPushButton("Score selected")
        self.delete_button = QPushButton("Delete…")
        self.delete_button.setToolTip("Delete the selected items (asks first; Del)")

        # The search on a line of its own: beside five filters at 1280x720 it was cut to
        # "S..." (issue 47).
        filters = QHBoxLayout()
        for box in (self.status_box, self.subject_box, self.tag_box, self.flag_box, self.quiz_box):
            filters.addWidget(box)
        filters.addStretch(1)
        # Two rows: in one, the actions made the Bank tab (and so the window) too wide for
        # a 1366-pixel laptop screen beside the passage list and the editor (issue 27).
        actions = QHBoxLayout()
        actions.addWidget(self.count_label)
        actions.addStretch(1)
        actions.addWidget(self.score_button)
        actions.addWidget(self.delete_button)
        bulk = QHBoxLayout()
        for w in (self.quiz_target, self.add_quiz_button):
            bulk.addWidget(w)
        bulk.addStretch(1)
        for w in (self.status_target, self.status_button):
            bulk.addWidget(w)
        layout = QVBoxLayout(self)
        layout.addWidget(self.search_edit)
        layout.addLayout(filters)
        layout.addWidget(self.view, 1)
        layout.addLayout(actions)
        layout.addLayout(bulk)

        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.setInterval(SEARCH_DEBOUNCE_MS)
        self.timer.timeout.connect(self.refresh)
        self.search_edit.textChanged.connect(lambda _t: self.timer.start())
        for box in (self.status_box, self.subject_box, self.tag_box, self.flag_box, self.quiz_box):
            box.currentIndexChanged.connect(lambda _i: self.refresh())
        self.view.selectionModel().currentRowChanged.connect(self._current_changed)
        self.add_quiz_button.clicked.connect(self._add_to_quiz_clicked)
        self.status_button.clicked.connect(
            lambda: self.set_status(self.selected_ids(), self.status_target.currentText())
        )
        self.score_button.clicked.connect(lambda: self.score_requested.emit(self.selected_ids()))
        self.delete_button.clicked.connect(lambda: self.delete_requested.emit(self.selected_ids()))

    @staticmethod
    def _combo(any_label: str, entries: list[tuple[str, Any]]) -> QComboBox:
        box = QComboBox()
        box.addItem(any_label, None)
        for label, value in entries:
            box.addItem(label, value)
        return box

    def _fill(self, box: QComboBox, entries: list[tuple[str, Any]]) -> None:
        """Replace a filter's choices, keeping the current one when it still exists."""
        current = box.currentData()
        box.blockSignals(True)
        try:
            while box.count() > 1:
                box.removeItem(1)
            for label, value in entries:
                box.addItem(label, value)
            at = box.findData(current) if current is not None else 0
            box.setCurrentIndex(max(0, at))
        finally:
            box.blockSignals(False)

    def reload_choices(self) -> None:
        try:
            subjects = self.bank.subjects()
            tags = self.bank.tags()
            quizzes = self.bank.quizzes()
        except QuizsmithError as exc:
            show_exception(self, exc)
            return
        self._fill(self.subject_box, [(s, s) for s in subjects])
        self._fill(self.tag_box, [(t, t) for t in tags])
        self._fill(self.quiz_box, [(f"quiz: {q.name}", q.id) for q in quizzes])
        text = self.quiz_target.currentText()
        self.quiz_target.clear()
        for q in quizzes:
            self.quiz_target.addItem(q.name, q.id)
        self.quiz_target.setEditText(text)

    def show_quiz(self, quiz_id: int) -> None:
        self.reload_choices()
        self.quiz_box.setCurrentIndex(max(0, self.quiz_box.findData(quiz_id)))

    def refresh(self) -> JobWorker:
        """Run the search in a worker; the newest request wins."""
        self.timer.stop()
        if self._query is not None:
            self._query.cancel()
        bank = self.bank
        status = self.status_box.currentData()
        subject = self.subject_box.currentData()
        tag = self.tag_box.currentData()
        flagged = self.flag_box.currentData()
        quiz_id = self.quiz_box.currentData()
        text = self.search_edit.text().strip()

        def job(token: CancelToken) -> Generator[Progress, None, Found]:
            yield Progress("Searching the bank", 0, 1)
            items = bank.search(
                text, status=status, subject=subject, tag=tag, flagged=flagged, limit=LIMIT
            )
            if quiz_id is not None:
                order = bank.get_quiz(int(quiz_id)).item_ids
                by_id = {i.id: i for i in items}
                items = [by_id[i] for i in order if i in by_id]
            decided = [int(i.id) for i in items if i.id is not None and i.status != "draft"]
            reasons = {k: r.reason for k, r in bank.last_reviews(decided).items() if r.reason}
            return Found(items, reasons, passage_matches(items, text))

        worker = self.runner.start(job)
        self._query = worker
        worker.signals.finished.connect(self._loaded)
        worker.signals.failed.connect(self._failed)
        return worker

    def _failed(self, message: str, fix: str) -> None:
        if self._query is not None and self.sender() is self._query.signals:
            self._query = None
            show_error(self, message, fix)

    def _loaded(self, found: Found) -> None:
        if self._query is None or self.sender() is not self._query.signals:
            return  # a newer search is on its way
        self._query = None
        items = found.items
        self.model.set_items(items, found.reasons, found.matches)
        count = f"{len(items)} item(s)" + (f" (first {LIMIT})" if len(items) >= LIMIT else "")
        if found.matches:
            count += (
                f"; {len(found.matches)} found only in their passage's text, marked {PASSAGE_MARK}"
            )
        self.count_label.setText(count)
        if self._select_after:
            self.select_ids(self._select_after)
            self._select_after = []
        self.refreshed.emit()

    def selected_ids(self) -> list[int]:
        rows = sorted({i.row() for i in self.view.selectionModel().selectedRows()})
        return [int(self.proxy.item_at(r).id or 0) for r in rows]

    def select_ids(self, ids: list[int]) -> None:
        from PySide6.QtCore import QItemSelectionModel

        sel = self.view.selectionModel()
        sel.clearSelection()
        flags = QItemSelectionModel.SelectionFlag.Select | QItemSelectionModel.SelectionFlag.Rows
        for row in range(self.proxy.rowCount()):
            if self.proxy.item_at(row).id in ids:
                sel.select(self.proxy.index(row, 0), flags)

    def _current_changed(self, *_args: object) -> None:
        index = self.view.currentIndex()
        item = self.proxy.item_at(index.row()) if index.isValid() else None
        self.current_item_changed.emit(item)

    def _add_to_quiz_clicked(self) -> None:
        ids = self.selected_ids()
        name = self.quiz_target.currentText().strip()
        if not ids:
            show_error(self, "No items are selected.", "Select items in the list first.")
            return
        if not name:
            show_error(self, "No quiz is chosen.", "Pick a quiz or type a new quiz's name.")
            return
        # In the order the items were written (the list shows the newest first, and a quiz
        # built in that order came out reversed).
        self.add_to_quiz(name, sorted(ids))

    def add_to_quiz(self, name: str, ids: list[int]) -> int | None:
        """Add items to the quiz with this name, creating it if needed; returns its id."""
        try:
            existing = {q.name: q.id for q in self.bank.quizzes()}
            quiz_id = existing.get(name)
            if quiz_id is None:
                quiz_id = self.bank.create_quiz(name, ids)
            else:
                self.bank.add_to_quiz(quiz_id, ids)
        except QuizsmithError as exc:
            show_exception(self, exc)
            return None
        self.reload_choices()
        self.quizzes_changed.emit()
        return quiz_id

    def set_status(self, ids: list[int], status: str) -> None:
        decision = STATUS_DECISIONS[status]
        try:
            # A note, not a reason: the browser shows the reason beside the status.
            record_review(self.bank, ids, decision, note="set in the bank browser")
        except QuizsmithError as exc:
            show_exception(self, exc)
            return
        self._select_after = list(ids)
        self.refresh()
        self.items_changed.emit(ids)
