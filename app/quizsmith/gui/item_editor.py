"""The item editor: edit an item, watch its live scores, read the evidence, decide.

The editor is built in layers, each a module of its own: the form (`item_form`), reading the
opened item's passage ahead (`read_ahead`), the live scores and their chips (`live_scores`,
`chip_row`, with the running chips' clock in `chip_clock`), the evidence tabs with Explain
and Score all (`evidence_panel`), and the Replace… menu of other wrong answers
(`wrong_answers`). This module ties them together: loading an item, drafts, saving and
deciding, which must agree on which text the scores shown describe. Saving writes the content
and the scores computed for exactly that content in one operation
(`operations.scores.save_edited_item`).

Unsaved edits are kept as a draft beside the item (`ItemBank.save_draft`) a short while
after typing stops, so that closing the app or a crash loses nothing; opening the item again
brings the draft back. The item itself changes only on Save, so its stored scores and its
exports always describe the text the teacher saved.
"""

from __future__ import annotations

import copy
import logging

from PySide6.QtCore import QTimer, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from quizsmith.bank.store import ItemBank
from quizsmith.domain import Item
from quizsmith.errors import QuizsmithError
from quizsmith.gui import jobs
from quizsmith.gui.chip_clock import ChipClock
from quizsmith.gui.chip_row import ChipRow
from quizsmith.gui.evidence import evidence_html
from quizsmith.gui.evidence_panel import EvidencePanel
from quizsmith.gui.messages import show_error, show_exception
from quizsmith.gui.worker import JobRunner, ProgressPanel
from quizsmith.gui.wrong_answers import WrongAnswerButton
from quizsmith.operations.reviews import record_review
from quizsmith.operations.scores import save_edited_item
from quizsmith.settings import Settings

log = logging.getLogger(__name__)

#: Quiet time after the last keystroke before unsaved edits are written to the bank.
AUTOSAVE_MS = 1500
REJECT_REASONS = (
    "",
    "Wrong answer key",
    "Not answerable from the passage",
    "Two options are correct",
    "Distractors too weak",
    "Ambiguous or unclear wording",
    "Too easy",
    "Off topic",
    "Duplicate",
)


class ItemEditor(EvidencePanel):
    """The item editor widget (its layers: the module's docstring)."""

    #: The "Replace…" menu beside the wrong answers.
    wrong_answer_button: WrongAnswerButton
    #: Another item (or none) is shown: the lists highlight it (issue 47).
    item_shown = Signal()

    def __init__(
        self,
        bank: ItemBank,
        settings: Settings,
        runner: JobRunner,
        progress: ProgressPanel | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.bank = bank
        self.settings = settings
        self.runner = runner
        self.progress = progress
        self._start_live_scores()
        self.draft_timer = QTimer(self)
        self.draft_timer.setSingleShot(True)
        self.draft_timer.setInterval(AUTOSAVE_MS)
        self.draft_timer.timeout.connect(self.keep_draft)
        self._start_reading_ahead()
        #: When the shown unsaved edits were last written as a draft ("" if not yet).
        self.draft_saved = ""

        self.header = QLabel("No item selected.")
        self.header.setWordWrap(True)
        self.chips = ChipRow()
        self.wrong_answer_button = WrongAnswerButton(self)
        form = self._build_form(self.wrong_answer_button)

        self.save_button = QPushButton("Save")
        self.save_button.setShortcut("Ctrl+S")
        self.score_all_button = QPushButton("Score all")
        self.score_all_button.setToolTip("Run every metric (incl. MIRROR, EXAM, MRE) and store")
        self.accept_button = QPushButton("Accept")
        self.reject_button = QPushButton("Reject")
        self.review_button = QPushButton("Needs review")
        self.discard_button = QPushButton("Discard changes")
        self.discard_button.setToolTip("Go back to the item as last saved")
        self.reason_box = QComboBox()
        self.reason_box.setEditable(True)
        self.reason_box.addItems(list(REJECT_REASONS))
        self.reason_box.setToolTip("Reason recorded with the decision")
        # Sized by a short text, not the longest reason: the editor must fit beside the lists.
        self.reason_box.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
        )
        self.reason_box.setMinimumContentsLength(10)
        # The list opens as wide as its longest reason, so no reason is cut off there.
        view = self.reason_box.view()
        view.setMinimumWidth(view.sizeHintForColumn(0) + 24)
        if (line := self.reason_box.lineEdit()) is not None:
            line.setPlaceholderText("Reason")
        buttons = QHBoxLayout()
        for b in (self.save_button, self.discard_button, self.score_all_button):
            buttons.addWidget(b)
        buttons.addStretch(1)
        decisions = QHBoxLayout()
        for b in (self.accept_button, self.reject_button, self.review_button):
            decisions.addWidget(b)
        decisions.addStretch(1)
        # A row of its own: beside the buttons the reasons were cut off ("Not answe…").
        reason_row = QHBoxLayout()
        reason_row.addWidget(QLabel("Reason"))
        reason_row.addWidget(self.reason_box, 1)

        self._build_evidence_tabs()

        layout = QVBoxLayout(self)
        layout.addWidget(self.header)
        layout.addWidget(self.chips)
        layout.addLayout(form)
        layout.addWidget(self.problems)
        layout.addLayout(buttons)
        layout.addLayout(decisions)
        layout.addLayout(reason_row)
        layout.addWidget(self.tabs, 1)

        for edit in (self.stem_edit, self.distractor_edit, self.accepted_edit, self.fact_edit):
            edit.textChanged.connect(self._edited)
        self.key_edit.textChanged.connect(self._edited)
        self.type_box.currentIndexChanged.connect(self._edited)
        self.type_box.currentIndexChanged.connect(self._type_changed)
        self.difficulty_box.currentTextChanged.connect(self._edited)
        self.fact_edit.textChanged.connect(self._show_passage)
        self.save_button.clicked.connect(self.save)
        self.discard_button.clicked.connect(self.discard)
        self.score_all_button.clicked.connect(self.score_all)
        self.accept_button.clicked.connect(lambda: self.decide("accept"))
        self.reject_button.clicked.connect(lambda: self.decide("reject"))
        self.review_button.clicked.connect(lambda: self.decide("needs-review"))
        self.set_item(None)
        # Seconds on the chips of the metrics still running (issue 47).
        self.chip_clock = ChipClock(self)

    # --- loading ----------------------------------------------------------------------------
    def set_item(self, item: Item | None) -> None:
        """Show an item (None: nothing). A running live score for the old item is cancelled."""
        self.timer.stop()
        self.draft_timer.stop()
        self._cancel_live()
        self._cancel_read_ahead()
        self.wrong_answer_button.item_shown()
        self.item = copy.deepcopy(item)
        self.stored_signature = jobs.content_signature(item) if item is not None else None
        self._full_pending = []
        self.fresh_scores = set()
        self.dirty = False
        self.draft_saved = ""
        self._pending = []
        self._parts = {}
        fields = self._fields_of(item)
        kept = self._stored_draft(item)
        if kept is not None:
            fields.update({k: str(v) for k, v in kept[0].items() if k in fields})
        self._show_fields(fields)
        if kept is not None and item is not None:
            # Edits left unsaved last time: shown as unsaved again, and re-scored, since the
            # stored scores describe the saved text.
            self.dirty = True
            self.draft_saved = kept[1]
            self._pending = self._live_for_type()
            self._parts = {}
            self.timer.start()
        self.saved_fields = self.fields() if kept is None else self._fields_of(item)
        # A new document: undo must not step back into the previous item.
        for edit in (self.stem_edit, self.distractor_edit, self.accepted_edit, self.fact_edit):
            edit.document().clearUndoRedoStacks()
        enabled = item is not None
        for w in (
            self.stem_edit,
            self.key_edit,
            self.distractor_edit,
            self.accepted_edit,
            self.fact_edit,
            self.type_box,
            self.difficulty_box,
            self.save_button,
            self.score_all_button,
            self.explain_button,
            self.accept_button,
            self.reject_button,
            self.review_button,
            self.reason_box,
        ):
            w.setEnabled(enabled)
        self._sync_scoring_buttons()
        self.problems.setText("")
        self._type_changed()
        self._refresh()
        self._show_passage()
        self._schedule_read_ahead()
        self.item_shown.emit()

    def _stored_draft(self, item: Item | None) -> tuple[dict[str, object], str] | None:
        if item is None or item.id is None:
            return None
        try:
            return self.bank.get_draft(item.id)
        except QuizsmithError as exc:  # an older bank opened read-only has no draft table
            log.warning("could not read the draft of item %s: %s", item.id, exc.message)
            return None

    def _refresh(self) -> None:
        item = self.item
        if item is None:
            self.header.setText("No item selected. Pick one in a list, or generate some.")
        else:
            where = f"#{item.id}" if item.id is not None else "new item"
            note = ""
            if self.dirty:
                note = " — <i>unsaved changes</i>"
                if self.draft_saved:
                    note = " — <i>unsaved changes (kept as a draft)</i>"
            self.header.setText(f"<b>Item {where}</b> — {item.status}{note}")
        stale = self.stale_metrics()
        self.chips.show_item(
            item, self.settings, [*self._pending, *self._full_pending], self._parts, stale
        )
        # "Before your edit" only when there was one: Score all recomputes unedited text.
        why = "edited" if self.dirty else "recomputing"
        self.evidence.setHtml(evidence_html(item, stale, why) if item else "")
        self.save_button.setEnabled(item is not None and self.dirty)
        self.discard_button.setEnabled(item is not None and self.dirty)

    # --- editing ----------------------------------------------------------------------------
    def _edited(self) -> None:
        if self._loading or self.item is None:
            return
        # Estimates of other wrong answers in this text's place describe text that is gone.
        self.wrong_answer_button.cancel_scoring()
        if self.fields() == self.saved_fields:
            self._back_to_saved()
            return
        self.dirty = True
        # The chips still running describe text that is gone: stop them now, not when the
        # debounce fires, so the models are free for the new text (issue 45).
        self._cancel_live()
        # The old scores describe the old text: drop them until the re-score says otherwise.
        self.fresh_scores = set()
        self._pending = self._live_for_type()
        self._parts = {}
        self.draft_saved = ""
        self.timer.start()  # restarts the debounce on every keystroke
        self.draft_timer.start()
        self._refresh()

    def _back_to_saved(self) -> None:
        """The fields hold the saved item again (Ctrl+Z undid every edit): nothing is
        unsaved, the stored scores describe the text, nothing is re-scored (issue 27)."""
        self.timer.stop()
        self.draft_timer.stop()
        self._cancel_live()
        was_kept = bool(self.draft_saved)
        self.dirty = False
        self.draft_saved = ""
        self._pending = []
        self._parts = {}
        self.fresh_scores = set()
        if self.item is not None and self.item.id is not None:
            try:
                if was_kept:
                    self.bank.delete_draft(self.item.id)
                stored = self.bank.get_item(self.item.id)
            except QuizsmithError as exc:
                log.warning("could not reload item %s: %s", self.item.id, exc.message)
            else:
                # Live results for the edited text were applied to the copy: the stored
                # ones describe the saved text.
                self.item.scores, self.item.flags = stored.scores, stored.flags
        self.draft()  # its warnings (or none) for the saved text
        self._refresh()

    # --- drafts -----------------------------------------------------------------------------
    def keep_draft(self) -> bool:
        """Write the unsaved edits to the bank as the item's draft (valid item or not)."""
        self.draft_timer.stop()
        if self.item is None or self.item.id is None or not self.dirty:
            return False
        try:
            self.draft_saved = self.bank.save_draft(self.item.id, self.fields())
        except QuizsmithError as exc:
            # Not a message box: this runs on its own after every pause in typing; Save
            # still reports the problem when the teacher asks for it.
            log.warning("could not keep the draft of item %s: %s", self.item.id, exc.message)
            return False
        self._refresh()
        return True

    def discard(self) -> None:
        """Drop the unsaved edits (and their draft) and show the item as last saved."""
        if self.item is None or self.item.id is None:
            return
        try:
            self.bank.delete_draft(self.item.id)
            stored = self.bank.get_item(self.item.id)
        except QuizsmithError as exc:
            show_exception(self, exc)
            return
        self.set_item(stored)

    # --- saving and decisions ---------------------------------------------------------------
    def save(self) -> bool:
        draft = self.draft()
        if draft is None or self.item is None:
            if self.item is not None:
                show_error(self, "This item cannot be saved yet.", self.problems.text())
            return False
        new_signature = jobs.content_signature(draft)
        try:
            save_edited_item(
                self.bank, draft, self.fresh_scores, new_signature != self.stored_signature
            )
        except QuizsmithError as exc:
            show_exception(self, exc)
            return False
        self.stored_signature = new_signature
        self.saved_fields = self.fields()
        self.dirty = False
        self.draft_saved = ""
        self.draft_timer.stop()
        self._reload()
        return True

    def decide(self, decision: str) -> None:
        if self.item is None or self.item.id is None:
            return
        if self.dirty and not self.save():
            return
        reason = self.reason_box.currentText().strip() if decision != "accept" else ""
        try:
            record_review(self.bank, [self.item.id], decision, reason)
        except QuizsmithError as exc:
            show_exception(self, exc)
            return
        self.reason_box.setCurrentIndex(0)
        self._reload()

    def _reload(self) -> None:
        if self.item is None or self.item.id is None:
            return
        stored = self.bank.get_item(self.item.id)
        # Keep live scores not yet stored (none after a save) over the stored ones.
        pending_live = {m: self.item.scores[m] for m in self.fresh_scores if m in self.item.scores}
        stored.scores.update(pending_live)
        self.item.status = stored.status
        self.item.scores = stored.scores
        self.item.flags = stored.flags
        self.item.created = stored.created
        self.fresh_scores = set(pending_live) if self.dirty else set()
        self._refresh()
        self.item_changed.emit(stored)
