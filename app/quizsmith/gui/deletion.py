"""Deleting items and passages from the desktop app: a question naming what goes, then the
one operation the command line uses too (`operations.deletion`), and every view told.

Why a question and not an undo: a deleted item takes its scores, reviews and quiz places with
it, and the bank keeps no copy (no migration adds one); a confirmation that names the count,
the accepted items among them and the quizzes they leave is what the teacher can check.
"""

from __future__ import annotations

from PySide6.QtWidgets import QMessageBox

from quizsmith.errors import QuizsmithError
from quizsmith.gui.messages import ask_to_confirm, show_error, show_exception
from quizsmith.gui.window_parts import WindowParts


class Deleting(WindowParts):
    """The main window's part that deletes: the Delete… buttons, Del in a list, Edit's
    entries, and every view told what went."""

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
        """Ask, naming what goes, then delete the items (ask_delete_items below)."""
        return ask_delete_items(self, ids)

    def delete_passage(self) -> QMessageBox | None:
        """Ask, naming the passage and its items, then delete them (ask_delete_passage below)."""
        return ask_delete_passage(self)

    def forget_items(self, ids: set[int]) -> None:
        """Deleted items leave every list, and the editor if it shows one of them."""
        item = self.editor.item
        if item is not None and item.id in ids:
            self.editor.set_item(None)  # its draft went with it: nothing to keep
        for model in (self.passage_items, self.browser.model):
            model.remove_ids(ids)
        self.review.items_removed(ids)


def ask_delete_items(window: Deleting, ids: list[int]) -> QMessageBox | None:
    """Ask, naming what goes; the items are deleted when the teacher picks Delete."""
    from quizsmith.operations.deletion import describe_deletion

    ids = [i for i in ids if i]
    if not ids:
        show_error(window, "No item is selected.", "Select the items to delete in a list.")
        return None
    try:
        plan = describe_deletion(window.bank, ids)
    except QuizsmithError as exc:
        show_exception(window, exc)
        return None
    return ask_to_confirm(
        window, plan.sentence(), "Delete", lambda: delete_now(window, ids, []), "Delete items"
    )


def ask_delete_passage(window: Deleting) -> QMessageBox | None:
    """Ask, naming the shown passage and how many items go with it, then delete them."""
    from quizsmith.operations.deletion import describe_deletion

    passage_id = window.passage_panel_id()
    if passage_id is None:
        show_error(
            window, "No stored passage is selected.", "Pick the passage to delete in the list."
        )
        return None
    if window.generation_passage_id == passage_id and window.runner.running_for(
        window.generation_worker
    ):
        show_error(
            window,
            "Items are being written about this passage.",
            "Cancel the generation first (Cancel in the status bar), then delete it.",
        )
        return None
    try:
        plan = describe_deletion(window.bank, [], [passage_id])
    except QuizsmithError as exc:
        show_exception(window, exc)
        return None
    return ask_to_confirm(
        window,
        plan.sentence(),
        "Delete",
        lambda: delete_now(window, [], [passage_id]),
        "Delete passage",
    )


def delete_now(window: Deleting, item_ids: list[int], passage_ids: list[int]) -> None:
    from quizsmith.operations.deletion import delete

    if window.passage_panel_id() in passage_ids:
        # Cleared first: the autosave must not store the text of a passage about to go.
        window.passage_autosave.stop()
        window.passage_panel.set_passage(None)
        window.passage_items.set_items([])
    try:
        changes = delete(window.bank, item_ids, passage_ids)
    except QuizsmithError as exc:
        show_exception(window, exc)
        return
    window.forget_items(set(changes.deleted))
    if changes.passages:
        window.reload_passages()
    window.reload_quizzes()
    what = f"{len(changes.deleted)} item(s)"
    if changes.passages:
        what = f"the passage and {what}"
    window.statusBar().showMessage(f"Deleted {what}.", 8000)
