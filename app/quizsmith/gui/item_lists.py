"""The main window's item lists (the passage's items, the review queue, the bank) and the
editor's item: opening an item, highlighting the editor's item in each list that holds it,
and showing an item's new stored state everywhere."""

from __future__ import annotations

from PySide6.QtCore import QItemSelectionModel, QSignalBlocker
from PySide6.QtWidgets import QTableView

from quizsmith.domain import Item
from quizsmith.errors import QuizsmithError
from quizsmith.gui.messages import show_exception
from quizsmith.gui.models import ItemRole
from quizsmith.gui.window_parts import WindowParts


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


class ItemLists(WindowParts):
    """The lists' items and the editor's."""

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
