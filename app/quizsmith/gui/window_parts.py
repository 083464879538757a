"""What the main window's parts share: the window's widgets and state, and the methods one
part calls on another, declared once for the type checker.

`MainWindow` (main_window.py) is one window built from parts, each a module of its own: the
menus and dialogs (`window_menus`), the passages (`window_passages`), the jobs that generate
and score (`window_jobs`), the item lists and the editor's item (`item_lists`) and deleting
(`deletion`). Each part is a class on `WindowParts`; `MainWindow` builds the widgets and
inherits every part."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QListView, QListWidget, QMainWindow, QTableView, QTabWidget

from quizsmith.bank.store import ItemBank
from quizsmith.gui.browser import BankBrowser
from quizsmith.gui.item_editor import ItemEditor
from quizsmith.gui.models import ItemTableModel, PassageListModel, SortableItems
from quizsmith.gui.passage_panel import PassagePanel
from quizsmith.gui.review_queue import ReviewQueue
from quizsmith.gui.worker import JobRunner, JobWorker, ProgressPanel
from quizsmith.settings import Settings

if TYPE_CHECKING:
    from PySide6.QtWidgets import QMessageBox

    from quizsmith.domain import Item, Passage


class WindowParts(QMainWindow):
    """The widgets and state of the main window (made in `MainWindow.__init__`)."""

    bank: ItemBank
    settings: Settings
    runner: JobRunner
    progress: ProgressPanel
    editor: ItemEditor
    passages: PassageListModel
    passage_list: QListView
    quiz_list: QListWidget
    passage_panel: PassagePanel
    passage_items: ItemTableModel
    passage_proxy: SortableItems
    items_view: QTableView
    review: ReviewQueue
    browser: BankBrowser
    tabs: QTabWidget
    passage_autosave: QTimer
    generation_worker: JobWorker | None
    generation_passage_id: int | None
    generated_kept: int
    help_dialog: Any

    if TYPE_CHECKING:
        # Defined by one part, called by another.

        def reload_passages(self, select_id: int | None = None) -> None:
            """main_window.MainWindow"""

        def reload_quizzes(self) -> None:
            """main_window.MainWindow"""

        def _remember_open(self) -> None:
            """main_window.MainWindow"""

        def passage_panel_id(self) -> int | None:
            """window_passages.WindowPassages"""

        def _leave_passage(self, passage_id: int | None) -> None:
            """window_passages.WindowPassages"""

        def save_passage(self) -> Passage | None:
            """window_passages.WindowPassages"""

        def show_item(self, item: Item | None) -> None:
            """item_lists.ItemLists"""

        def item_changed(self, item: Item) -> None:
            """item_lists.ItemLists"""

        def keep_item_edits(self) -> None:
            """item_lists.ItemLists"""

        def _job_failed(self, message: str, fix: str) -> None:
            """window_jobs.WindowJobs"""

        def new_passage(self) -> None:
            """window_passages.WindowPassages"""

        def open_passage_dialog(self) -> None:
            """window_passages.WindowPassages"""

        def generate(self) -> JobWorker | None:
            """window_jobs.WindowJobs"""

        def refit_overall(self) -> JobWorker:
            """window_jobs.WindowJobs"""

        def delete_selected(self) -> QMessageBox | None:
            """deletion.Deleting"""

        def delete_passage(self) -> QMessageBox | None:
            """deletion.Deleting"""
