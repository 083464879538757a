"""The main window's passages: choosing one in the list, typing (stored a short while after
typing stops, as switching passages does), opening a passage file (read in a worker) and
saving the passage before a generation."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QModelIndex
from PySide6.QtWidgets import QFileDialog

from quizsmith.domain import Item, Passage
from quizsmith.errors import QuizsmithError
from quizsmith.gui import jobs
from quizsmith.gui.messages import show_exception
from quizsmith.gui.passage_panel import PASSAGE_SUFFIXES
from quizsmith.gui.window_parts import WindowParts
from quizsmith.gui.worker import JobWorker
from quizsmith.operations.passages import items_of_passage


class WindowPassages(WindowParts):
    """The shown passage and the list of passages."""

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

    def passage_panel_id(self) -> int | None:
        passage = self.passage_panel.passage
        return passage.id if passage else None
