"""The main window: passages and quizzes on the left, work in the middle, the item editor on
the right, the running job (with Cancel) in the status bar.

The window is built from parts, each a module of its own (see window_parts.py): the menus and
dialogs (`window_menus`), the passages (`window_passages`), the jobs that generate and score
(`window_jobs`), the item lists and the editor's item (`item_lists`) and deleting
(`deletion`). This module makes the widgets, wires them to the parts, reloads the lists and
saves and restores the session.

What the teacher had on screen survives a restart: the layout, the passage and the item that
were open (gui.ini, see prefs), and the text being edited. Passage edits are stored a short
while after typing stops (as switching passages already does); the item editor keeps its
unsaved edits as a draft beside the item."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QCloseEvent, QKeySequence, QShortcut, QShowEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QLabel,
    QListView,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QSplitter,
    QTableView,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from quizsmith.bank.store import ItemBank
from quizsmith.errors import QuizsmithError
from quizsmith.gui import prefs, screen_fit
from quizsmith.gui.browser import BankBrowser
from quizsmith.gui.deletion import Deleting
from quizsmith.gui.item_editor import AUTOSAVE_MS, ItemEditor
from quizsmith.gui.item_lists import ItemLists
from quizsmith.gui.messages import show_exception
from quizsmith.gui.models import (
    ItemRole,
    ItemTableModel,
    PassageListModel,
    SortableItems,
    setup_item_view,
)
from quizsmith.gui.passage_panel import PassagePanel
from quizsmith.gui.review_queue import ReviewQueue
from quizsmith.gui.window_jobs import WindowJobs
from quizsmith.gui.window_menus import GENERATE_TIP, WindowMenus
from quizsmith.gui.window_passages import WindowPassages
from quizsmith.gui.worker import JobRunner, JobWorker, ProgressPanel
from quizsmith.settings import Settings


class MainWindow(WindowMenus, WindowPassages, WindowJobs, ItemLists, Deleting):
    """The main window (its parts: the module's docstring)."""

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
