"""The item editor's "Replace…" menu beside the wrong answers: per wrong answer, the other
wrong answers of the key's kind to put in its place, each with the Overall estimate the item
would get with it (issue 47: only a whole other question could be swapped in, and the teacher
could not see what a replacement would do).

The candidates are those the generation kept (they passed every check) and, on request,
more found with the models in a worker. Opening the submenu of one wrong answer scores the
first `SCORED_CANDIDATES` of them in its place, in one worker (each shows "…" until its
estimate arrives, with its warnings in a few words); the rest are listed unscored, and the
menu says so. An estimate is shown only while the editor holds exactly the text it was
computed from: an edit cancels the scoring, and a result for older text that still arrives
is dropped. Choosing one replaces that line of the editor's wrong answers; the edit is
re-scored live like any other, and stored on Save.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMainWindow, QMenu, QToolButton, QWidget

from quizsmith.errors import QuizsmithError
from quizsmith.gui.messages import show_error
from quizsmith.gui.worker import JobWorker
from quizsmith.operations.scores import content_signature
from quizsmith.operations.wrong_answers import (
    ESTIMATE,
    SCORED_CANDIDATES,
    CandidateScore,
    WrongAnswer,
    kept_wrong_answers,
    more_wrong_answers_job,
    replace_wrong_answer,
    score_wrong_answers_job,
)

if TYPE_CHECKING:
    from quizsmith.domain import Flag, Item
    from quizsmith.gui.live_scores import LiveScores

FIND_MORE = "Find other wrong answers (uses the models)…"
#: Shown where a candidate's estimate is still to come.
WAITING = "…"
#: The flags a swapped wrong answer most often raises, in the few words a menu line has
#: room for (the guide's longer words, gui/help.py, and the whole message are in the tip).
SHORT_WORDS = {
    "option-other-kind": "not the key's kind",
    "option-may-be-correct": "may also be correct",
    "option-duplicate": "says the same as another",
    "low-overall": "likely rejected",
    "one-distractor": "only one wrong answer",
}

#: (item id, content signature, wrong answer replaced, candidate): what an estimate is for.
ScoreKey = tuple[int, tuple[object, ...], str, str]


def flag_words(flag: Flag) -> str:
    from quizsmith.gui.help import FLAG_WORDS

    return SHORT_WORDS.get(flag.code) or FLAG_WORDS.get(flag.code) or flag.message


def score_text(score: CandidateScore) -> str:
    """The estimate as the chip would show it, and its warnings (hints only in the tip)."""
    from quizsmith.metrics import registry

    result = score.result
    if not result.scored:
        return "not scored"
    try:
        text = registry.get(ESTIMATE).chip_text(result)
    except QuizsmithError:
        text = f"{float(result.value or 0.0):.0%}"
    warnings = [flag_words(f) for f in score.flags if f.severity in ("warning", "error")]
    return f"{text} \u26a0 {'; '.join(warnings)}" if warnings else text


def score_tip(score: CandidateScore) -> str:
    result = score.result
    if not result.scored:
        return f"Overall: not scored ({result.not_scored_reason or 'no reason given'})."
    lines = [f"Overall with this one in place of \u201c{score.old}\u201d: {score_text(score)}."]
    lines += [f"{'Hint' if f.severity == 'info' else 'Warning'}: {f.message}" for f in score.flags]
    return "\n".join(lines)


def _menu_text(text: str) -> str:
    # "&" would be read as a keyboard accelerator (and vanish); a tab right-aligns what
    # follows it, as menus show shortcuts.
    return text.replace("&", "&&")


class WrongAnswerButton(QToolButton):
    """A menu button: one submenu per wrong answer now typed, each listing the candidates
    to put in its place with the estimate each would give, and an entry that finds more."""

    def __init__(self, editor: LiveScores, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.editor = editor
        self.setText("Replace…")
        self.setToolTip(
            "Replace one wrong answer by another of the same kind: those kept when the item "
            "was written, or more found with the models. Each shows the Overall estimate the "
            f"item would get with it (the first {SCORED_CANDIDATES} per wrong answer). The "
            "item is scored again as after any edit; Save keeps it."
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
        #: Estimates that arrived, by what they describe (ScoreKey); never shown for other text.
        self.scores: dict[ScoreKey, CandidateScore] = {}
        #: The running scoring, and the (item id, signature, wrong answer) it scores for.
        self.scorer: JobWorker | None = None
        self.scoring: tuple[int, tuple[object, ...], str] | None = None
        #: The item each scoring worker was started for (by its signals object).
        self._scoring_items: dict[object, int] = {}
        #: A wrong answer whose candidates wait for the live re-score to end (it goes first).
        self.waiting: str | None = None
        #: Results dropped because the item's text had changed since (counted for tests).
        self.discarded = 0
        #: The menu lines of the candidates now listed, by (wrong answer, candidate).
        self.lines: dict[tuple[str, str], QAction] = {}
        #: Where each listed candidate comes from (its tooltip).
        self.sources: dict[str, str] = {}
        self._submenus: list[QMenu] = []
        editor.live_scored.connect(self._live_settled)

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
        self.lines = {}
        for sub in self._submenus:
            sub.deleteLater()
        self._submenus = []
        menu.clear()
        lines = self.editor.distractor_lines()
        candidates = self.candidates()
        current = self._current()
        for line in lines:
            sub = menu.addMenu(_menu_text(f"Instead of \u201c{line}\u201d"))
            self._submenus.append(sub)
            if candidates:
                head = sub.addAction(self._heading(len(candidates)))
                head.setEnabled(False)
            for n, candidate in enumerate(candidates):
                action = sub.addAction(_menu_text(candidate.text))
                action.setData(candidate.text)
                action.setToolTip(candidate.source)
                self.sources[candidate.text] = candidate.source
                if n < SCORED_CANDIDATES:
                    self.lines[(line, candidate.text)] = action
                    self._show_line(line, candidate.text, current)
                action.triggered.connect(
                    lambda _=False, old=line, new=candidate.text: self.replace(old, new)
                )
            if not candidates:
                none = sub.addAction("No other wrong answer yet: find some below")
                none.setEnabled(False)
            else:
                # Scored when the teacher looks at this wrong answer's list, not for all.
                sub.aboutToShow.connect(lambda old=line: self.score_for(old))
            sub.setToolTipsVisible(True)
        if not lines:
            none = menu.addAction("No wrong answer to replace yet")
            none.setEnabled(False)
        menu.addSeparator()
        more = menu.addAction(FIND_MORE)
        more.setEnabled(self.worker is None and self.editor.item is not None)
        more.triggered.connect(self.find_more)

    def _heading(self, count: int) -> str:
        """What the numbers are, with the item's own estimate beside them when it describes
        the text on screen."""
        now = ""
        item = self.editor.item
        result = item.scores.get(ESTIMATE) if item is not None else None
        if result is not None and result.scored and ESTIMATE not in self.editor.stale_metrics():
            now = f" (now {result.value:.0%})" if result.value is not None else ""
        if count <= SCORED_CANDIDATES:
            return f"Overall with each in its place{now}:"
        return f"Overall with each in its place{now}; the first {SCORED_CANDIDATES} are scored:"

    # --- the estimates ----------------------------------------------------------------------
    def _current(self, draft: Item | None = None) -> tuple[int, tuple[object, ...]] | None:
        """(item id, content signature) of the text the editor holds, or of `draft` (the
        editor's, just read); None while it is no valid item."""
        item = self.editor.item
        draft = draft or self.editor.draft()
        if item is None or draft is None:
            return None
        return item.id or 0, content_signature(draft)

    def _show_line(
        self,
        old: str,
        new: str,
        current: tuple[int, tuple[object, ...]] | None,
        failed: str = "",
    ) -> None:
        """The line of `new` in `old`'s list: its estimate for the text `current`, "…" until
        that has come (`failed`: what to say instead, the scoring having failed)."""
        action = self.lines.get((old, new))
        if action is None:
            return
        score = self.scores.get((*current, old, new)) if current is not None else None
        shown = score_text(score) if score is not None else (failed or WAITING)
        tip = self.sources.get(new, "")
        if score is not None:
            tip = f"{score_tip(score)}\n(This wrong answer was {tip}.)" if tip else score_tip(score)
        try:
            action.setText(_menu_text(f"{new}\t{shown}"))
            action.setToolTip(tip)
        except RuntimeError:  # the menu was refilled; its old lines are gone
            self.lines.pop((old, new), None)

    def score_for(self, old: str) -> JobWorker | None:
        """Estimate the item with each of the first candidates in place of the wrong answer
        `old`, in a worker (those already estimated for this text are not done again)."""
        draft = self.editor.draft()
        current = self._current(draft)
        if current is None or draft is None or draft.type != "mcq":
            return None
        todo = [
            c.text
            for c in self.candidates()[:SCORED_CANDIDATES]
            if (*current, old, c.text) not in self.scores
        ]
        if not todo:
            return None
        if self.scorer is not None:
            if self.scoring == (*current, old):
                return self.scorer
            # Another wrong answer's list: what it finished stays; the teacher looks here now.
            self.scorer.cancel()
            self.scorer = None
        if self.editor.live_worker is not None or self.editor.timer.isActive():
            # The chips of the text on screen come first; the estimates carry its live
            # results (scores_that_hold), so they start once it ends (_live_settled).
            self.waiting = old
            return None
        self.waiting = None
        fresh = {m for m in draft.scores if m not in self.editor.stale_metrics()}
        worker = self.editor.runner.start(
            score_wrong_answers_job(
                draft, old, todo, self.editor.settings, self.editor.bank, current=fresh
            )
        )
        self.scorer = worker
        self.scoring = (*current, old)
        self._scoring_items[worker.signals] = current[0]
        if self.editor.progress is not None:
            self.editor.progress.attach(worker, "Scoring other wrong answers")
        # Bound methods (not lambdas): Qt queues the calls to this thread.
        worker.signals.progress.connect(self._scored)
        worker.signals.failed.connect(self._scoring_failed)
        worker.signals.done.connect(self._scoring_done)
        return worker

    def _scored(self, event: object) -> None:
        score = getattr(event, "payload", None)
        if not isinstance(score, CandidateScore):
            return
        item_id = self._scoring_items.get(self.sender())
        current = self._current()
        if current is None or (item_id, score.basis) != current:
            # Computed for text the editor no longer holds (the model call was in flight when
            # the edit cancelled the run): never shown, never kept.
            self.discarded += 1
            return
        self.scores[(*current, score.old, score.text)] = score
        self._show_line(score.old, score.text, current)

    def _scoring_failed(self, message: str, fix: str) -> None:
        if self.scorer is None or self.sender() is not self.scorer.signals:
            return
        # The candidates stay listed, marked unscored (reopening the list tries again); the
        # reason goes to the status bar rather than a box: the teacher asked for the menu.
        old = self.scoring[2] if self.scoring is not None else ""
        current = self._current()
        for line_old, new in list(self.lines):
            if line_old == old:
                self._show_line(old, new, current, failed="not scored")
        self._status(f"The other wrong answers could not be scored: {message} {fix}")

    def _scoring_done(self) -> None:
        self._scoring_items.pop(self.sender(), None)
        if self.scorer is not None and self.sender() is self.scorer.signals:
            self.scorer = None
            self.scoring = None

    def _live_settled(self, _item: object) -> None:
        if self.waiting is not None:
            old, self.waiting = self.waiting, None
            self.score_for(old)

    def cancel_scoring(self) -> None:
        """The item's text changed (or another item is shown): stop estimating for it."""
        self.waiting = None
        if self.scorer is not None:
            self.scorer.cancel()
            self.scorer = None
            self.scoring = None

    def item_shown(self) -> None:
        """Another item (or none): its estimates start afresh."""
        self.cancel_scoring()
        self.scores = {}

    # --- replacing and finding more ---------------------------------------------------------
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
        self._status(self.note)

    def _status(self, text: str) -> None:
        window = self.window()
        if isinstance(window, QMainWindow):
            window.statusBar().showMessage(text, 10_000)

    def _done(self) -> None:
        self.worker = None
