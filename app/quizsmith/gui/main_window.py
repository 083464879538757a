"""The main window: passages and quizzes on the left, work in the middle, the item editor on
the right, the running job (with Cancel) in the status bar.

Why this module is long: MainWindow is where the panels, the menus and the jobs meet: each
action (open, generate, score, refit, the dialogs) starts a job and routes its result to the
panels that show it, and the session is saved and restored here; the panels, the editor and the
dialogs are modules of their own.

What the teacher had on screen survives a restart: the layout, the passage and the item that
were open (gui.ini, see prefs), and the text being edited. Passage edits are stored a short
while after typing stops (as switching passages already does); the item editor keeps its
unsaved edits as a draft beside the item."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

from PySide6.QtCore import QItemSelectionModel, QModelIndex, QSignalBlocker, Qt, QTimer
from PySide6.QtGui import QAction, QCloseEvent, QKeySequence, QShortcut, QShowEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QListView,
    QListWidget,
    QListWidgetItem,
    QMainWindow,
    QMessageBox,
    QPushButton,
    QSplitter,
    QTableView,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from quizsmith.bank.store import ItemBank
from quizsmith.domain import Item, Passage
from quizsmith.errors import QuizsmithError
from quizsmith.gui import deletion, jobs, prefs, screen_fit
from quizsmith.gui.browser import BankBrowser
from quizsmith.gui.item_editor import AUTOSAVE_MS, ItemEditor
from quizsmith.gui.messages import show_error, show_exception, show_info
from quizsmith.gui.models import (
    ItemRole,
    ItemTableModel,
    PassageListModel,
    SortableItems,
    setup_item_view,
)
from quizsmith.gui.passage_panel import PASSAGE_SUFFIXES, PassagePanel
from quizsmith.gui.review_queue import ReviewQueue
from quizsmith.gui.worker import JobRunner, JobWorker, ProgressPanel
from quizsmith.jobs import Progress
from quizsmith.metrics import registry as metric_registry
from quizsmith.operations.passages import items_of_passage
from quizsmith.settings import Settings

GENERATE_TIP = (
    "Write questions about this passage (Ctrl+G): the number and types chosen beside it. "
    "Each finished item is saved at once; Cancel keeps the finished ones."
)


def cancelled_note(kept: int) -> str:
    if kept == 0:
        return "Cancelled; no item was finished."
    return f"Cancelled, {kept} item{'s' if kept != 1 else ''} kept."


def select_item_row(view: QTableView, item_id: int | None, clear: bool) -> None:
    """Make the row of `item_id` the view's current row (a selection for a bulk action that
    holds it is left alone). Without such a row: with `clear`, no row is highlighted,
    silently, since "no current item" would empty the editor."""
    model = view.model()
    row = next(
        (
            r
            for r in range(model.rowCount())
            if item_id is not None
            and getattr(model.index(r, 0).data(ItemRole), "id", None) == item_id
        ),
        -1,
    )
    current = view.currentIndex()
    selection = view.selectionModel()
    if row >= 0:
        if current.isValid() and current.row() == row:
            return
        index = model.index(row, 0)
        if selection.isRowSelected(row):
            # Among the rows selected for a bulk action: those stay selected.
            selection.setCurrentIndex(index, QItemSelectionModel.SelectionFlag.NoUpdate)
        else:
            view.setCurrentIndex(index)  # opens the editor's item: no change
        return
    if clear and (current.isValid() or selection.hasSelection()):
        blocker = QSignalBlocker(selection)
        selection.clear()
        blocker.unblock()
        view.viewport().update()


class MainWindow(QMainWindow):
    def __init__(self, bank: ItemBank, settings: Settings, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.bank = bank
        self.settings = settings
        self.runner = JobRunner(parent=self)
        self.generation_worker: JobWorker | None = None
        self.generation_passage_id: int | None = None
        self.help_dialog: Any = None
        self.generated_kept = 0
        self.setObjectName("MainWindow")  # saveState() names what it saves by objectName
        self.setWindowTitle(f"Quizsmith — {bank.path.name}")
        # Within the screen's free area, not a fixed 1400x860 (issue 47: larger than a
        # 1366x768 laptop's screen, the status bar with Cancel was off-screen).
        screen = self.screen()
        if screen is not None:
            self.setGeometry(screen_fit.fitted_geometry(screen.availableGeometry()))
        else:
            self.resize(screen_fit.DEFAULT_SIZE)
        self._fitted_once = False

        self.progress = ProgressPanel()
        self.statusBar().addPermanentWidget(self.progress, 1)

        # Left: passages and quizzes.
        self.passages = PassageListModel(self)
        self.passage_list = QListView()
        self.passage_list.setModel(self.passages)
        self.passage_list.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.new_passage_button = QPushButton("New")
        self.open_passage_button = QPushButton("Open file…")
        self.delete_passage_button = QPushButton("Delete…")
        self.delete_passage_button.setToolTip(
            "Delete the selected passage and the items written about it (asks first)"
        )
        self.quiz_list = QListWidget()
        side = QWidget()
        side_layout = QVBoxLayout(side)
        side_layout.addWidget(QLabel("<b>Passages</b>"))
        side_layout.addWidget(self.passage_list, 2)
        row = QHBoxLayout()
        row.addWidget(self.new_passage_button)
        row.addWidget(self.open_passage_button)
        side_layout.addLayout(row)
        side_layout.addWidget(self.delete_passage_button)
        quizzes = QLabel("<b>Quizzes</b>")
        quizzes.setToolTip("Click a quiz to see its items; add items to quizzes in the Bank tab")
        side_layout.addWidget(quizzes)
        side_layout.addWidget(self.quiz_list, 1)
        side.setMinimumWidth(180)

        # Middle: the passage with its items, the review queue, the bank.
        self.passage_panel = PassagePanel()
        self.passage_panel.generate_button.setToolTip(GENERATE_TIP)
        self.passage_items = ItemTableModel(settings, self)
        self.passage_proxy = SortableItems(self.passage_items, self)
        self.items_view = QTableView()
        self.items_view.setModel(self.passage_proxy)
        setup_item_view(self.items_view)
        self.items_view.setSortingEnabled(True)
        self.items_view.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.score_items_button = QPushButton("Score items")
        self.score_items_button.setToolTip("NACo, KDA and EXAM on the selected (or all) items")
        self.delete_items_button = QPushButton("Delete…")
        self.delete_items_button.setToolTip("Delete the selected items (asks first; Del)")
        passage_tab = QSplitter(Qt.Orientation.Vertical)
        self.passage_splitter = passage_tab
        passage_tab.addWidget(self.passage_panel)
        lower = QWidget()
        lower_layout = QVBoxLayout(lower)
        lower_layout.setContentsMargins(0, 0, 0, 0)
        head = QHBoxLayout()
        head.addWidget(QLabel("<b>Items from this passage</b>"))
        head.addStretch(1)
        head.addWidget(self.score_items_button)
        head.addWidget(self.delete_items_button)
        lower_layout.addLayout(head)
        lower_layout.addWidget(self.items_view)
        passage_tab.addWidget(lower)
        passage_tab.setSizes([380, 420])
        self.review = ReviewQueue(bank, settings, self.runner)
        self.browser = BankBrowser(bank, settings, self.runner)
        self.tabs = QTabWidget()
        self.tabs.addTab(passage_tab, "Passage")
        self.tabs.addTab(self.review, "Review queue")
        self.tabs.addTab(self.browser, "Bank")

        # Right: the item editor.
        self.editor = ItemEditor(bank, settings, self.runner, self.progress)
        self.editor.setMinimumWidth(380)
        self.editor.live_metrics = prefs.live_metrics()

        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.addWidget(side)
        splitter.addWidget(self.tabs)
        splitter.addWidget(self.editor)
        splitter.setSizes([190, 800, 430])
        splitter.setStretchFactor(1, 1)
        self.splitter = splitter
        self.setCentralWidget(splitter)
        self._build_menus()

        self.passage_autosave = QTimer(self)
        self.passage_autosave.setSingleShot(True)
        self.passage_autosave.setInterval(AUTOSAVE_MS)
        self.passage_autosave.timeout.connect(self.autosave_passage)

        self.passage_list.selectionModel().currentRowChanged.connect(self._passage_chosen)
        self.new_passage_button.clicked.connect(self.new_passage)
        self.open_passage_button.clicked.connect(self.open_passage_dialog)
        self.delete_passage_button.clicked.connect(self.delete_passage)
        self.delete_items_button.clicked.connect(
            lambda: self.delete_items(self.selected_passage_item_ids())
        )
        self.review.delete_requested.connect(self.delete_items)
        self.browser.delete_requested.connect(self.delete_items)
        self.review.rescore_requested.connect(self.rescore_after_swap)
        for view, ids in (
            (self.items_view, self.selected_passage_item_ids),
            (self.review.view, self.review.current_ids),
            (self.browser.view, self.browser.selected_ids),
        ):
            # On the list only: Delete in a text field deletes text.
            shortcut = QShortcut(QKeySequence(QKeySequence.StandardKey.Delete), view)
            shortcut.setContext(Qt.ShortcutContext.WidgetShortcut)
            shortcut.activated.connect(lambda ids=ids: self.delete_items(ids()))
        self.passage_panel.open_requested.connect(self.open_passage_dialog)
        self.passage_panel.text_edit.file_dropped.connect(self.open_passage_file)
        self.passage_panel.generate_requested.connect(self.generate)
        self.items_view.selectionModel().currentRowChanged.connect(self._passage_item_chosen)
        self.score_items_button.clicked.connect(self.score_passage_items)
        self.review.current_item_changed.connect(self.show_item)
        self.browser.current_item_changed.connect(self.show_item)
        self.editor.item_changed.connect(self.show_in_lists)
        # The highlighted row is the editor's item, whatever opened it (issue 47: once it
        # was another item's row).
        self.editor.item_shown.connect(self.select_editor_item)
        for model in (self.passage_proxy, self.review.model, self.browser.proxy):
            model.modelReset.connect(self.select_editor_item)
        self.review.item_changed.connect(self.item_changed)
        self.browser.items_changed.connect(self._items_changed_ids)
        self.browser.quizzes_changed.connect(self.reload_quizzes)
        self.browser.score_requested.connect(self.score_ids)
        self.quiz_list.itemActivated.connect(self._quiz_chosen)
        self.quiz_list.itemClicked.connect(self._quiz_chosen)
        self.tabs.currentChanged.connect(self._tab_changed)
        panel = self.passage_panel
        panel.text_edit.textChanged.connect(self.passage_autosave.start)
        panel.title_edit.textEdited.connect(self.passage_autosave.start)
        panel.subject_edit.textEdited.connect(self.passage_autosave.start)
        self._restore_session()

    # --- the session (layout, what was open) ------------------------------------------------
    def _restore_session(self) -> None:
        layout = prefs.layout()
        if "geometry" in layout:
            self.restoreGeometry(layout["geometry"])
            # Saved on a larger screen (or with another panel layout): fitted on showing.
        if "state" in layout:
            self.restoreState(layout["state"])
        if "splitter" in layout:
            self.splitter.restoreState(layout["splitter"])
        if "passage_splitter" in layout:
            self.passage_splitter.restoreState(layout["passage_splitter"])
        passage_id, item_id = prefs.last_open(self.bank.path)
        try:
            known = {p.id for p in self.bank.passages()}
        except QuizsmithError:
            known = set()
        self.reload_all(passage_id if passage_id in known else None)
        if item_id is not None:
            self.open_item_id(item_id)

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802
        super().showEvent(event)
        if not self._fitted_once:
            self._fitted_once = True
            # After the window system has framed the window: only then is its title bar
            # part of frameGeometry.
            QTimer.singleShot(0, self, lambda: screen_fit.fit_to_screen(self))

    def save_session(self) -> None:
        prefs.set_layout(
            {
                "geometry": self.saveGeometry(),
                "state": self.saveState(),
                "splitter": self.splitter.saveState(),
                "passage_splitter": self.passage_splitter.saveState(),
            }
        )
        self._remember_open()

    def _remember_open(self) -> None:
        item = self.editor.item
        prefs.set_last_open(
            self.bank.path, self.passage_panel_id(), item.id if item is not None else None
        )

    def open_item_id(self, item_id: int) -> None:
        """Show an item in the editor, selected in the passage's table when it is there."""
        row = self.passage_items.row_of(item_id)
        if row >= 0:
            index = self.passage_proxy.mapFromSource(self.passage_items.index(row, 0))
            self.items_view.setCurrentIndex(index)
            return
        try:
            item = self.bank.get_item(item_id)
        except QuizsmithError:
            return  # deleted since: nothing to reopen
        self.show_item(item)

    # --- menus ------------------------------------------------------------------------------
    def _build_menus(self) -> None:
        file_menu = self.menuBar().addMenu("&File")
        self._action(file_menu, "New passage", self.new_passage, QKeySequence.StandardKey.New)
        self._action(
            file_menu, "Open passage file…", self.open_passage_dialog, QKeySequence.StandardKey.Open
        )
        self._action(file_menu, "Export…", self.open_export_dialog, "Ctrl+E")
        file_menu.addSeparator()
        self._action(file_menu, "Quit", self.close, "Ctrl+Q")
        edit = self.menuBar().addMenu("&Edit")
        # They act on the text field with the focus (which also handles the keys itself).
        for text, method, key in (
            ("Undo", "undo", QKeySequence.StandardKey.Undo),
            ("Redo", "redo", QKeySequence.StandardKey.Redo),
            ("Cut", "cut", QKeySequence.StandardKey.Cut),
            ("Copy", "copy", QKeySequence.StandardKey.Copy),
            ("Paste", "paste", QKeySequence.StandardKey.Paste),
            ("Select all", "selectAll", QKeySequence.StandardKey.SelectAll),
        ):
            self._action(edit, text, lambda _=False, m=method: self._edit_focused(m), key)
        edit.addSeparator()
        self._action(edit, "Save item", self.editor.save).setToolTip("Ctrl+S in the editor")
        self._action(edit, "Discard item changes", self.editor.discard)
        edit.addSeparator()
        self._action(edit, "Delete selected items…", self.delete_selected).setToolTip(
            "The items selected in the list shown (or the item in the editor); Del in a list"
        )
        self._action(edit, "Delete passage…", self.delete_passage)
        tools = self.menuBar().addMenu("&Tools")
        generate = self._action(tools, "Generate items", self.generate, "Ctrl+G")
        generate.setToolTip(GENERATE_TIP)
        tools.addSeparator()
        self._action(tools, "Check a handout (EXAM)…", self.open_exam_dialog)
        self._action(tools, "Score distribution…", self.open_chart)
        self._action(tools, "Learn my standard (refit the overall score)", self.refit_overall)
        tools.addSeparator()
        self._action(tools, "Settings…", self.open_settings_dialog, "Ctrl+,")
        help_menu = self.menuBar().addMenu("&Help")
        self._action(
            help_menu, "Scores and flags explained", lambda: self.open_help("scores"), "F1"
        )
        self._action(help_menu, "Getting started", lambda: self.open_help("start"))
        self._action(help_menu, "The review queue", lambda: self.open_help("queue"))
        self._action(help_menu, "Keyboard shortcuts", lambda: self.open_help("shortcuts"))

    def _edit_focused(self, method: str) -> None:
        from PySide6.QtWidgets import QApplication

        widget = QApplication.focusWidget()
        slot = getattr(widget, method, None)
        if callable(slot):
            slot()

    def announce_after_guide(self, note: str, msecs: int = 60_000) -> None:
        """Show `note` in the status bar, after the guide is closed when it is open (the
        first start's note on the models, issue 47)."""
        guide = self.help_dialog
        if guide is not None and guide.isVisible():
            guide.finished.connect(
                lambda _result: self.statusBar().showMessage(note, msecs),
                Qt.ConnectionType.SingleShotConnection,
            )
            return
        self.statusBar().showMessage(note, msecs)

    def open_help(self, section: str = "start") -> Any:
        """Show the guide at a section (one guide window, raised if already open)."""
        from quizsmith.gui.help import HelpDialog

        if self.help_dialog is None:
            self.help_dialog = HelpDialog(section, self)
        else:
            self.help_dialog.show_section(section)
        self.help_dialog.show()
        self.help_dialog.raise_()
        return self.help_dialog

    def _action(self, menu: Any, text: str, slot: Any, shortcut: Any = None) -> QAction:
        action = QAction(text, self)
        if shortcut is not None:
            action.setShortcut(QKeySequence(shortcut))
        action.triggered.connect(slot)
        menu.addAction(action)
        return action

    # --- loading ----------------------------------------------------------------------------
    def reload_all(self, select_passage: int | None = None) -> None:
        self.reload_passages(select_passage)
        self.reload_quizzes()
        self.browser.reload_choices()

    def reload_passages(self, select_id: int | None = None) -> None:
        try:
            passages = self.bank.passages()
        except QuizsmithError as exc:
            show_exception(self, exc)
            return
        self.passages.set_passages(passages)
        row = self.passages.row_of(select_id) if select_id is not None else -1
        if row < 0 and passages and self.passage_panel.passage is None and select_id is None:
            row = 0
        if row >= 0:
            self.passage_list.setCurrentIndex(self.passages.index(row, 0))

    def reload_quizzes(self) -> None:
        self.quiz_list.clear()
        try:
            quizzes = self.bank.quizzes()
        except QuizsmithError as exc:
            show_exception(self, exc)
            return
        for quiz in quizzes:
            entry = QListWidgetItem(f"{quiz.name} ({len(quiz.item_ids)})")
            entry.setData(ItemRole, quiz.id)
            self.quiz_list.addItem(entry)

    def _tab_changed(self, index: int) -> None:
        self.select_editor_item()
        widget = self.tabs.widget(index)
        if widget is self.review:
            self.review.refresh()
        elif widget is self.browser:
            self.browser.reload_choices()
            self.browser.refresh()

    def _quiz_chosen(self, entry: QListWidgetItem) -> None:
        quiz_id = entry.data(ItemRole)
        self.tabs.setCurrentWidget(self.browser)
        self.browser.show_quiz(int(quiz_id))

    # --- passages ---------------------------------------------------------------------------
    def _passage_chosen(self, *_args: object) -> None:
        index = self.passage_list.currentIndex()
        if not index.isValid():
            return
        passage = self.passages.passage_at(index.row())
        if passage.id == self.passage_panel_id():
            return
        self.keep_passage_edits()
        self.passage_panel.set_passage(passage)
        self._leave_passage(passage.id)
        self.tabs.setCurrentIndex(0)
        self.passage_items.set_items(self.items_of_passage(passage.id))
        self._remember_open()

    def _leave_passage(self, passage_id: int | None) -> None:
        """Another passage is shown: what described the last one goes (issue 27: "Generated
        5 item(s)." stayed, and the editor kept an item of the other passage)."""
        running = self.generation_worker is not None and self.generation_worker.outcome == (
            "pending"
        )
        if not running or self.generation_passage_id != passage_id:
            self.passage_panel.note.setText("")
        item = self.editor.item
        if item is not None and item.passage_id != passage_id:
            self.keep_item_edits()
            self.editor.set_item(None)

    def items_of_passage(self, passage_id: int | None) -> list[Item]:
        return items_of_passage(self.bank, passage_id)

    def autosave_passage(self) -> None:
        """Store the passage as typed so far (after a pause in typing), keeping it selected."""
        self.passage_autosave.stop()
        if not self.passage_panel.is_dirty():
            return
        self.keep_passage_edits(quiet=True)
        passage_id = self.passage_panel_id()
        row = self.passages.row_of(passage_id) if passage_id is not None else -1
        if row >= 0:
            # The same passage as the panel's: selecting it does not reload the panel.
            self.passage_list.setCurrentIndex(self.passages.index(row, 0))
        self._remember_open()

    def keep_passage_edits(self, quiet: bool = False) -> None:
        """Store edits of the shown passage before another one replaces it in the editor."""
        self.passage_autosave.stop()
        if not self.passage_panel.is_dirty():
            return
        edited = self.passage_panel.current()
        if not edited.text.strip():
            return
        try:
            if edited.id is None:
                edited.id = self.bank.add_passage(edited)
            else:
                self.bank.update_passage(edited)
        except QuizsmithError as exc:
            show_exception(self, exc)
            return
        self.passage_panel.passage = edited
        self.passages.set_passages(self.bank.passages())
        if not quiet:
            self.statusBar().showMessage(f"Saved passage “{edited.title or 'untitled'}”.", 5000)

    def new_passage(self) -> None:
        self.keep_passage_edits()
        self.passage_list.setCurrentIndex(QModelIndex())  # so choosing it again is a change
        self.passage_panel.set_passage(None)
        self._leave_passage(None)
        self.passage_items.set_items([])
        self.tabs.setCurrentIndex(0)
        self.passage_panel.text_edit.setFocus()

    def open_passage_dialog(self) -> None:
        patterns = " ".join(f"*{s}" for s in PASSAGE_SUFFIXES)
        name, _ = QFileDialog.getOpenFileName(
            self, "Open a passage", "", f"Passages ({patterns});;All files (*)"
        )
        if name:
            self.open_passage_file(Path(name))

    def open_passage_file(self, path: Path) -> JobWorker:
        worker = self.runner.start(jobs.load_passage_job(Path(path)))
        self.progress.attach(worker, f"Reading {Path(path).name}")
        worker.signals.finished.connect(self._passage_loaded)
        worker.signals.failed.connect(self._job_failed)
        return worker

    def _passage_loaded(self, passage: Passage) -> None:
        try:
            passage.id = self.bank.add_passage(passage)
        except QuizsmithError as exc:
            show_exception(self, exc)
            return
        self.reload_passages(select_id=passage.id)
        self.passage_panel.set_passage(passage)
        self.statusBar().showMessage(f"Added passage “{passage.title}”.", 5000)

    def save_passage(self) -> Passage | None:
        """Store the passage as edited (new, or changed) and return it with its id."""
        passage = self.passage_panel.current()
        old = self.passage_panel.passage
        try:
            if passage.id is None:
                passage.id = self.bank.add_passage(passage)
            elif old is None or (old.text, old.title, old.subject) != (
                passage.text,
                passage.title,
                passage.subject,
            ):
                self.bank.update_passage(passage)
        except QuizsmithError as exc:
            show_exception(self, exc)
            return None
        self.passage_panel.passage = passage
        self.reload_passages(select_id=passage.id)
        return passage

    # --- generation -------------------------------------------------------------------------
    def generate(self) -> JobWorker | None:
        from quizsmith.generation.api import GenerationRequest

        panel = self.passage_panel
        if not panel.text_edit.toPlainText().strip():
            show_error(self, "There is no passage to ask about.", "Paste or open a passage first.")
            return None
        try:
            request = GenerationRequest(
                n=panel.count_box.value(),
                types=panel.types(),
                difficulty=panel.difficulty(),
                candidates_per_target=panel.candidates_box.value(),
                rank=panel.rank_check.isChecked(),
            )
        except ValueError as exc:
            show_error(self, f"Cannot generate: {exc}", "Choose at least one item type.")
            return None
        passage = self.save_passage()
        if passage is None:
            return None
        worker = self.runner.start(jobs.generate_job(self.bank, passage, request, self.settings))
        self.progress.attach(worker, f"Generating {request.n} item(s)")
        panel.generate_button.setEnabled(False)
        self.generation_worker = worker
        self.generation_passage_id = passage.id
        self.generated_kept = 0
        worker.signals.progress.connect(self._generated_progress)
        worker.signals.finished.connect(self._generated)
        worker.signals.cancelled.connect(self._generation_cancelled)
        worker.signals.failed.connect(self._job_failed)
        worker.signals.done.connect(lambda: panel.generate_button.setEnabled(bool(panel.types())))
        return worker

    def _generated_progress(self, event: Progress) -> None:
        item = event.payload
        if isinstance(item, Item):
            self.generated_kept += 1
            if item.passage_id == self.passage_panel_id():
                self.passage_items.add_items([item])

    def passage_panel_id(self) -> int | None:
        passage = self.passage_panel.passage
        return passage.id if passage else None

    def _generated(self, batch: jobs.GeneratedBatch) -> None:
        if batch.cancelled:
            self._show_generation_note(cancelled_note(len(batch.items)))
            return
        note = f"Generated {len(batch.items)} item(s)."
        if batch.shortfall:
            note += f" {batch.shortfall}"
        self._show_generation_note(note)

    def _generation_cancelled(self) -> None:
        """Cancel stopped the job between two steps: the items finished before it are in
        the bank (and in the table) already."""
        self._show_generation_note(cancelled_note(self.generated_kept))

    def _show_generation_note(self, note: str) -> None:
        # Under the passage it is about only (the teacher may have moved to another).
        if self.generation_passage_id in (None, self.passage_panel_id()):
            self.passage_panel.note.setText(note)
        self.statusBar().showMessage(note, 8000)

    # --- items ------------------------------------------------------------------------------
    def _passage_item_chosen(self, *_args: object) -> None:
        index = self.items_view.currentIndex()
        if index.isValid():
            self.show_item(self.passage_proxy.item_at(index.row()))

    def show_item(self, item: Item | None) -> None:
        """Open an item in the editor (fresh from the bank, with its passage). Unsaved edits
        of the previous item are saved first when they form a valid item."""
        if self.editor.item is not None and item is not None and self.editor.item.id == item.id:
            return
        self.keep_item_edits()
        if item is None or item.id is None:
            self.editor.set_item(item)
            return
        try:
            self.editor.set_item(self.bank.get_item(item.id))
        except QuizsmithError as exc:
            show_exception(self, exc)
            return
        self._remember_open()

    def select_editor_item(self) -> None:
        """Highlight the editor's item in each list that holds it. The passage's table and
        the bank list highlight nothing when it is not there; the review queue keeps its
        row (a refresh of the queue opens its current item anyway)."""
        item = self.editor.item
        item_id = item.id if item is not None else None
        select_item_row(self.items_view, item_id, clear=True)
        select_item_row(self.browser.view, item_id, clear=True)
        select_item_row(self.review.view, item_id, clear=False)

    def keep_item_edits(self) -> None:
        """Unsaved edits of the editor's item are kept as its draft, valid or not: the item
        itself (and an accepted item's place in exports) changes only on Save, so looking
        at another item or closing the window never stores text its scores do not describe."""
        if self.editor.dirty:
            self.editor.keep_draft()

    def show_in_lists(self, item: Item) -> None:
        for model in (self.passage_items, self.browser.model):
            model.replace_item(item)
        if self.sender() is not self.review:
            self.review.item_updated(item)

    def item_changed(self, item: Item) -> None:
        """An item's stored state changed outside the editor: show it everywhere, and in the
        editor too unless the teacher is editing it."""
        self.show_in_lists(item)
        current = self.editor.item
        if current is not None and current.id == item.id and not self.editor.dirty:
            self.editor.set_item(self.bank.get_item(int(current.id or 0)))

    def _items_changed_ids(self, ids: list[int]) -> None:
        for item in self.bank.get_items(ids, with_passages=False):
            self.item_changed(item)

    def score_passage_items(self) -> None:
        rows = sorted({i.row() for i in self.items_view.selectionModel().selectedRows()})
        items = [self.passage_proxy.item_at(r) for r in rows] or self.passage_items.items()
        self.score_ids([int(i.id) for i in items if i.id is not None])

    def score_ids(self, ids: list[int]) -> JobWorker | None:
        if not ids:
            show_error(self, "No items to score.", "Select items or generate some first.")
            return None
        worker = self.runner.start(
            # The metrics that declare themselves part of batch scoring (`batch_by_default`;
            # MIRROR and MRE are slower: per item, on request).
            jobs.score_and_store_job(
                self.bank, ids, metric_registry.default_batch_metrics(), self.settings
            )
        )
        self.progress.attach(worker, f"Scoring {len(ids)} item(s)")
        worker.signals.progress.connect(self._scored_progress)
        worker.signals.failed.connect(self._job_failed)
        return worker

    def rescore_after_swap(self, ids: list[int]) -> JobWorker | None:
        """Score items whose wording was replaced by an alternative with the live metrics
        whose stored scores no longer describe it."""
        from quizsmith.operations.alternatives import rescore_metrics

        metrics = sorted(
            {m for i in ids for m in rescore_metrics(self.bank, i, self.editor.live_metrics)},
            key=self.editor.live_metrics.index,
        )
        if not ids or not metrics:
            return None
        worker = self.runner.start(
            jobs.score_and_store_job(self.bank, ids, jobs.live_order(metrics), self.settings)
        )
        self.progress.attach(worker, "Scoring the new wording")
        worker.signals.progress.connect(self._scored_progress)
        worker.signals.failed.connect(self._job_failed)
        return worker

    def _scored_progress(self, event: Progress) -> None:
        step = event.payload
        item = getattr(step, "item", None)
        if isinstance(item, Item) and item.id is not None:
            with contextlib.suppress(QuizsmithError):
                self.item_changed(self.bank.get_item(item.id))

    def refit_overall(self) -> JobWorker:
        """Refit the overall estimate on this bank's accept/reject decisions (in a worker)."""
        worker = self.runner.start(jobs.refit_overall_job(self.bank))
        self.progress.attach(worker, "Learning your standard")
        worker.signals.finished.connect(self._refitted)
        worker.signals.failed.connect(self._job_failed)
        return worker

    def _refitted(self, model: Any) -> None:
        cv = model.info["cv"]
        show_info(
            self,
            f"The overall score now follows your decisions on "
            f"{model.info['training']['items']} items (cross-validated Pearson r with your "
            f"accept/reject {cv['pearson_vs_accept']['pearson']['value']:.2f}, AUC "
            f"{cv['auc']:.2f}). The review queue ranks by it from its next refresh.",
            "Overall score refitted",
        )
        self.review.refresh()

    def _job_failed(self, message: str, fix: str) -> None:
        show_error(self, message, fix)

    # --- deleting ---------------------------------------------------------------------------
    def selected_passage_item_ids(self) -> list[int]:
        rows = sorted({i.row() for i in self.items_view.selectionModel().selectedRows()})
        if not rows and self.items_view.currentIndex().isValid():
            rows = [self.items_view.currentIndex().row()]
        return [int(self.passage_proxy.item_at(r).id or 0) for r in rows]

    def delete_selected(self) -> QMessageBox | None:
        """Edit → Delete: the items selected in the list on screen, else the editor's item."""
        tab = self.tabs.currentWidget()
        if tab is self.review:
            ids = self.review.current_ids()
        elif tab is self.browser:
            ids = self.browser.selected_ids()
        else:
            ids = self.selected_passage_item_ids()
        if not ids and self.editor.item is not None and self.editor.item.id is not None:
            ids = [self.editor.item.id]
        return self.delete_items(ids)

    def delete_items(self, ids: list[int]) -> QMessageBox | None:
        """Ask, naming what goes, then delete the items (gui/deletion.py)."""
        return deletion.ask_delete_items(self, ids)

    def delete_passage(self) -> QMessageBox | None:
        """Ask, naming the passage and its items, then delete them (gui/deletion.py)."""
        return deletion.ask_delete_passage(self)

    def forget_items(self, ids: set[int]) -> None:
        """Deleted items leave every list, and the editor if it shows one of them."""
        item = self.editor.item
        if item is not None and item.id in ids:
            self.editor.set_item(None)  # its draft went with it: nothing to keep
        for model in (self.passage_items, self.browser.model):
            model.remove_ids(ids)
        self.review.items_removed(ids)

    # --- dialogs ----------------------------------------------------------------------------
    def open_exam_dialog(self) -> None:
        from quizsmith.gui.dialogs import ExamDialog

        ExamDialog(self.bank, self.settings, self.runner, self).open()

    def open_export_dialog(self) -> None:
        from quizsmith.gui.dialogs import ExportDialog

        ExportDialog(self.bank, self.runner, self).open()

    def open_settings_dialog(self) -> None:
        from quizsmith.gui.dialogs import SettingsDialog

        dialog = SettingsDialog(self.settings, self.runner, self)
        dialog.saved.connect(self._settings_saved)
        dialog.open()

    def _settings_saved(self, settings: Settings, live: list[str]) -> None:
        self.settings = settings
        for widget in (self.editor,):
            widget.settings = settings
        self.editor.live_metrics = live
        for model in (self.passage_items, self.browser.model, self.review.model):
            model.settings = settings
            model.refresh_all()

    def open_chart(self) -> None:
        from quizsmith.gui.chart import ChartDialog

        ChartDialog(self.bank, self).open()

    # --- closing ----------------------------------------------------------------------------
    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802
        """Keep what was typed, cancel the running jobs and close at once.

        Closing does not wait for the jobs: a model call stops only at its next step, which
        took 10-14 s with the window frozen ("Not Responding", issue 19). The jobs end in
        the background; `app.run` waits for them after the event loop, before it closes the
        bank, so whatever they finished is stored and nothing writes to a closed bank."""
        self.keep_passage_edits()
        self.keep_item_edits()
        self.editor.timer.stop()
        self.editor.draft_timer.stop()
        self.save_session()
        self.runner.cancel_all()
        event.accept()
