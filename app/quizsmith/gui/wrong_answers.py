"""The item editor's "Replace…" menu beside the wrong answers: per wrong answer, the other
wrong answers of the key's kind to put in its place (issue 47: only a whole other question
could be swapped in).

The candidates are those the generation kept (they passed every check) and, on request,
more found with the models in a worker. Choosing one replaces that line of the editor's
wrong answers; the edit is re-scored live like any other, and stored on Save.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtWidgets import QMainWindow, QMenu, QToolButton, QWidget

from quizsmith.gui.messages import show_error
from quizsmith.gui.worker import JobWorker
from quizsmith.operations.wrong_answers import (
    WrongAnswer,
    kept_wrong_answers,
    more_wrong_answers_job,
    replace_wrong_answer,
)

if TYPE_CHECKING:
    from quizsmith.gui.item_editor import ItemEditor

FIND_MORE = "Find other wrong answers (uses the models)…"


class WrongAnswerButton(QToolButton):
    """A menu button: one submenu per wrong answer now typed, each listing the candidates
    to put in its place, and an entry that finds more."""

    def __init__(self, editor: ItemEditor, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.editor = editor
        self.setText("Replace…")
        self.setToolTip(
            "Replace one wrong answer by another of the same kind: those kept when the item "
            "was written, or more found with the models. The item is scored again as after "
            "any edit; Save keeps it."
        )
        self.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.menu_ = QMenu(self)
        self.menu_.aboutToShow.connect(self.fill)
        self.setMenu(self.menu_)
        #: Candidates found with the models, by item id (kept while the editor runs).
        self.found: dict[int, list[WrongAnswer]] = {}
        self.worker: JobWorker | None = None
        #: The item the running search is for.
        self.worker_item = 0
        self.requests = 0
        #: What the last search found, in words (also shown in the status bar).
        self.note = ""

    def candidates(self) -> list[WrongAnswer]:
        """Kept and found candidates for the editor's item, none of its options now typed."""
        item = self.editor.item
        if item is None:
            return []
        typed = {d.casefold() for d in self.editor.distractor_lines()}
        typed.add(self.editor.key_edit.text().strip().casefold())
        found = self.found.get(item.id or 0, [])
        seen: set[str] = set()
        out = []
        for candidate in [*kept_wrong_answers(item), *found]:
            key = candidate.text.casefold()
            if key not in typed and key not in seen:
                seen.add(key)
                out.append(candidate)
        return out

    def fill(self) -> None:
        menu = self.menu_
        menu.clear()
        lines = self.editor.distractor_lines()
        candidates = self.candidates()
        for line in lines:
            sub = menu.addMenu(f"Instead of \u201c{line}\u201d")
            for candidate in candidates:
                action = sub.addAction(candidate.text)
                action.setToolTip(candidate.source)
                action.triggered.connect(
                    lambda _=False, old=line, new=candidate.text: self.replace(old, new)
                )
            if not candidates:
                none = sub.addAction("No other wrong answer yet: find some below")
                none.setEnabled(False)
            sub.setToolTipsVisible(True)
        if not lines:
            none = menu.addAction("No wrong answer to replace yet")
            none.setEnabled(False)
        menu.addSeparator()
        more = menu.addAction(FIND_MORE)
        more.setEnabled(self.worker is None and self.editor.item is not None)
        more.triggered.connect(self.find_more)

    def replace(self, old: str, new: str) -> None:
        """Put `new` where the wrong answer `old` is (the editor re-scores the edit)."""
        lines = replace_wrong_answer(self.editor.distractor_lines(), old, new)
        self.editor.distractor_edit.setPlainText("\n".join(lines))

    def find_more(self) -> JobWorker | None:
        draft = self.editor.draft()
        item = self.editor.item
        if draft is None or item is None:
            show_error(self, "The item cannot be read yet.", self.editor.problems.text())
            return None
        self.requests += 1
        worker = self.editor.runner.start(
            more_wrong_answers_job(draft, self.editor.settings, seed=self.requests)
        )
        self.worker = worker
        if self.editor.progress is not None:
            self.editor.progress.attach(worker, "Finding other wrong answers")
        self.worker_item = item.id or 0
        # Bound methods (not lambdas): Qt queues the calls to this thread.
        worker.signals.finished.connect(self._found)
        worker.signals.failed.connect(self._failed)
        worker.signals.done.connect(self._done)
        return worker

    def _failed(self, message: str, fix: str) -> None:
        show_error(self, message, fix, "No other wrong answers")

    def _found(self, found: list[WrongAnswer]) -> None:
        item_id = self.worker_item
        known = {c.text.casefold() for c in self.found.get(item_id, [])}
        fresh = [c for c in found if c.text.casefold() not in known]
        self.found.setdefault(item_id, []).extend(fresh)
        if found:
            words = f"{len(found)} other wrong answer{'s' if len(found) != 1 else ''} found"
            self.note = f"{words}: choose one under “Replace…” beside the wrong answers."
        else:
            self.note = "No other wrong answer passed the checks."
        window = self.window()
        if isinstance(window, QMainWindow):
            window.statusBar().showMessage(self.note, 10_000)

    def _done(self) -> None:
        self.worker = None
