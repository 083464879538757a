"""The item editor: edit an item, watch its live scores, read the evidence, decide.

Why this module is long: ItemEditor is one widget whose state (the draft, the live-scoring timer
and its cancel token, the stored scores) every method reads: editing, live re-scoring, drafts,
saving and deciding must agree on which text the scores shown describe.

Every edit cancels the live run still going (its chips describe text that is gone) and
restarts an ~800 ms debounce timer; when it fires, the live metrics re-score a copy of the
draft in one worker, the estimate first, and each chip is shown as its metric finishes
(issue 45: Overall, then the "answerable" chip from the same reader's answer, then KDA on
the standard profile). Until then a chip is greyed, never a number for older text: a result
whose text differs from the fields' is dropped. Saving writes the content and the scores
computed for exactly that content in one operation (`operations.scores.save_edited_item`).

Unsaved edits are kept as a draft beside the item (`ItemBank.save_draft`) a short while
after typing stops, so that closing the app or a crash loses nothing; opening the item again
brings the draft back. The item itself changes only on Save, so its stored scores and its
exports always describe the text the teacher saved.

An opened item is read ahead (`jobs.read_ahead_job`) once it has been on screen a moment,
so that the models keep its passage before the teacher's first edit.
"""

from __future__ import annotations

import copy
import logging
from collections.abc import Collection, Sequence

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMenu,
    QPlainTextEdit,
    QPushButton,
    QTabWidget,
    QTextBrowser,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from quizsmith.bank.store import ItemBank
from quizsmith.domain import (
    CHOICE_TYPES,
    DIFFICULTIES,
    ITEM_TYPES,
    TF_ANSWERS,
    Accepted,
    Item,
    Option,
)
from quizsmith.errors import QuizsmithError
from quizsmith.gui import jobs
from quizsmith.gui.evidence import evidence_html, passage_html
from quizsmith.gui.flow_layout import FlowLayout
from quizsmith.gui.messages import show_error, show_exception
from quizsmith.gui.passage_panel import TYPE_LABELS
from quizsmith.gui.scores import LEVEL_COLORS, chip_for, chip_metrics
from quizsmith.gui.worker import JobRunner, JobWorker, ProgressPanel
from quizsmith.metrics import registry as metric_registry
from quizsmith.metrics.runner import PartStep, ScoredStep
from quizsmith.operations.reviews import record_review
from quizsmith.operations.scores import save_edited_item
from quizsmith.settings import Settings

log = logging.getLogger(__name__)

#: Item types with other accepted answers besides the key (`Item.accepted`).
ACCEPTING_TYPES = ("short", "cloze")

DEBOUNCE_MS = 800
#: Quiet time after the last keystroke before unsaved edits are written to the bank.
AUTOSAVE_MS = 1500
#: How long an opened item stays on screen before its passage is read ahead (jobs.read_ahead_job):
#: long enough that paging through the review queue does not start a read per item.
READ_AHEAD_MS = 1500
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


class ChipRow(QWidget):
    """One coloured label per metric: the standard chips plus any other live metric."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        # Wraps: the chips' texts together are wider than the editor (issue 27).
        self._layout = FlowLayout(self)
        self.labels: dict[str, QLabel] = {}
        self.titles: dict[str, str] = {}
        self.set_metrics(list(chip_metrics()))

    def set_metrics(self, metrics: Sequence[tuple[str, str]]) -> None:
        if [(m, self.titles[m]) for m in self.labels] == list(metrics):
            return
        for label in self.labels.values():
            # Out of the layout at once: deleteLater waits for the event loop.
            self._layout.removeWidget(label)
            label.hide()
            label.deleteLater()
        self.labels, self.titles = {}, {}
        for metric, title in metrics:
            label = QLabel()
            label.setObjectName(f"chip-{metric}")
            label.setAlignment(Qt.AlignmentFlag.AlignCenter)
            self.labels[metric] = label
            self.titles[metric] = title
            self._layout.addWidget(label)

    def show_item(
        self,
        item: Item | None,
        settings: Settings | None,
        pending: Sequence[str] = (),
        parts: dict[str, str] | None = None,
        stale: Collection[str] = (),
    ) -> None:
        """`parts`: for a pending metric, what its finished parts found so far (no number
        until the whole metric is done). `stale`: metrics whose result on `item` describes
        older text (edited since): greyed as out of date, never shown as a number (issue 45:
        a chip never shows a value for older text)."""
        for metric, label in self.labels.items():
            greyed = False
            result = item.scores.get(metric) if item is not None else None
            if item is None:
                text, level, tip = "–", "none", ""
            elif metric in pending:
                part = (parts or {}).get(metric)
                text, level, greyed = (f"… {part}" if part else "…"), "none", True
                tip = "Scoring the edited item…" + (f" So far: {part}." if part else "")
            elif metric in stale and result is not None and result.scored:
                text, level, greyed = "out of date", "none", True
                tip = (
                    f"{self.titles[metric]}: out of date. It was computed for the text before "
                    "your edit; Explain or Score all scores this text (the live chips re-score "
                    "by themselves)."
                )
            else:
                chip = chip_for(item, metric, settings)
                text, level, tip = chip.text, chip.level, chip.tooltip
            label.setText(f"{self.titles[metric]} {text}")
            label.setToolTip(tip)
            label.setProperty("level", level)
            label.setProperty("stale", greyed)
            # Grey text on grey as well: an out-of-date chip must not read as a result.
            ink = "#6b6b6b" if greyed else "#1d1d1d"
            label.setStyleSheet(
                f"background:{LEVEL_COLORS[level]}; color:{ink}; border-radius:8px;"
                " padding:2px 8px;"
            )

    def text(self, metric: str) -> str:
        return self.labels[metric].text()


def metric_title(name: str) -> str:
    from quizsmith.metrics import registry

    try:
        return registry.get(name).title or name
    except QuizsmithError:
        return name


class ItemEditor(QWidget):
    #: The item as now stored (after save, review or a full re-score).
    item_changed = Signal(object)
    #: A live re-score finished for the draft (the draft Item with its new scores).
    live_scored = Signal(object)
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
        self._live_metrics: list[str] = jobs.default_live_metrics()
        self.item: Item | None = None
        #: Scores computed for the current text (stored on save).
        self.fresh_scores: set[str] = set()
        self.dirty = False
        self.live_worker: JobWorker | None = None
        self.full_worker: JobWorker | None = None
        self.live_runs = 0
        self.stale_cancelled = 0
        self._pending: list[str] = []
        #: metric -> what its finished parts found, while the live run of this text goes on.
        self._parts: dict[str, str] = {}
        #: Metrics a running "Score all" has not reached yet (their evidence is old).
        self._full_pending: list[str] = []
        #: The content the bank holds for the item (see jobs.content_signature).
        self.stored_signature: tuple[object, ...] | None = None
        #: The content the running live re-score is scoring.
        self.live_signature: tuple[object, ...] | None = None
        self._loading = False

        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.setInterval(DEBOUNCE_MS)
        self.timer.timeout.connect(self.rescore_now)
        self.draft_timer = QTimer(self)
        self.draft_timer.setSingleShot(True)
        self.draft_timer.setInterval(AUTOSAVE_MS)
        self.draft_timer.timeout.connect(self.keep_draft)
        #: None: opened items are not read ahead (the GUI tests' stand-in metrics need no
        #: warm-up, and a background model job would make their timing depend on load).
        self.read_ahead_ms: int | None = READ_AHEAD_MS
        self.read_ahead_timer = QTimer(self)
        self.read_ahead_timer.setSingleShot(True)
        self.read_ahead_timer.timeout.connect(self._read_ahead)
        self.read_ahead_worker: JobWorker | None = None
        #: (passage hash, metrics, profile) read ahead in this session.
        self._read_ahead_done: set[tuple[object, ...] | None] = set()
        self._read_ahead_running: tuple[object, ...] | None = None
        #: When the shown unsaved edits were last written as a draft ("" if not yet).
        self.draft_saved = ""

        self.header = QLabel("No item selected.")
        self.header.setWordWrap(True)
        self.chips = ChipRow()
        self.type_box = QComboBox()
        # Shown by name, stored by code ("mcq" meant nothing to the teachers who tried it).
        for kind in ITEM_TYPES:
            self.type_box.addItem(TYPE_LABELS.get(kind, kind), kind)
        # Wide enough for the longest name: beside Difficulty it was cut ("Multiple choic").
        longest = max(TYPE_LABELS.values(), key=len)
        self.type_box.setMinimumWidth(self.type_box.fontMetrics().horizontalAdvance(longest) + 40)
        self.difficulty_box = QComboBox()
        self.difficulty_box.addItems(["", *DIFFICULTIES])
        self.stem_edit = QPlainTextEdit()
        self.stem_edit.setPlaceholderText("The question")
        self.stem_edit.setTabChangesFocus(True)
        self.stem_edit.setMaximumHeight(80)
        self.key_edit = QLineEdit()
        self.key_edit.setPlaceholderText("The correct answer")
        self.distractor_edit = QPlainTextEdit()
        self.distractor_edit.setPlaceholderText("Wrong options, one per line")
        self.distractor_edit.setTabChangesFocus(True)
        self.distractor_edit.setMaximumHeight(90)
        self.accepted_edit = QPlainTextEdit()
        self.accepted_edit.setPlaceholderText(
            "Other answers to accept, one per line (e.g. a spelling or a shorter form)"
        )
        self.accepted_edit.setToolTip(
            "Short-answer and fill-in-the-blank items: answers marked right besides the "
            "answer above (exports to Moodle and GIFT accept them too)."
        )
        self.accepted_edit.setTabChangesFocus(True)
        self.accepted_edit.setMaximumHeight(60)
        self.fact_edit = QPlainTextEdit()
        self.fact_edit.setPlaceholderText("The sentence(s) of the passage this item tests")
        self.fact_edit.setTabChangesFocus(True)
        self.fact_edit.setMaximumHeight(60)
        self.problems = QLabel("")
        self.problems.setStyleSheet("color:#a12a1f")
        self.problems.setWordWrap(True)

        form = QFormLayout()
        kinds = QHBoxLayout()
        kinds.addWidget(self.type_box)
        kinds.addWidget(QLabel("Difficulty"))
        kinds.addWidget(self.difficulty_box)
        kinds.addStretch(1)
        form.addRow("Type", kinds)
        form.addRow("Question", self.stem_edit)
        form.addRow("Answer", self.key_edit)
        # Beside the wrong answers: replace one by another of the key's kind (issue 47).
        from quizsmith.gui.wrong_answers import WrongAnswerButton

        self.wrong_answer_button = WrongAnswerButton(self)
        self.distractor_row = QWidget()
        row = QHBoxLayout(self.distractor_row)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.distractor_edit, 1)
        row.addWidget(self.wrong_answer_button, 0, Qt.AlignmentFlag.AlignTop)
        form.addRow("Distractors", self.distractor_row)
        form.addRow("Also accept", self.accepted_edit)
        form.addRow("Target fact", self.fact_edit)
        self.form = form

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

        self.evidence = QTextBrowser()
        self.evidence.setOpenExternalLinks(False)
        self.passage_view = QTextBrowser()
        self.tabs = QTabWidget()
        self.tabs.addTab(self.evidence, "Evidence")
        self.tabs.addTab(self.passage_view, "Passage")
        # Issue 26: the metrics outside the live set (NACo's steps, KDA's solvers, MIRROR's
        # review...) on request, one at a time, for the saved item.
        self.explain_button = QToolButton()
        self.explain_button.setText("Explain")
        self.explain_button.setToolTip(
            "Run one metric that is not re-scored as you type on this item and show its "
            "evidence (the item is saved first)"
        )
        self.explain_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.explain_menu = QMenu(self.explain_button)
        self.explain_menu.aboutToShow.connect(self._fill_explain_menu)
        self.explain_button.setMenu(self.explain_menu)
        self.tabs.setCornerWidget(self.explain_button, Qt.Corner.TopRightCorner)

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
        from quizsmith.gui.chip_clock import ChipClock

        self.chip_clock = ChipClock(self)

    @property
    def live_metrics(self) -> list[str]:
        return list(self._live_metrics)

    @live_metrics.setter
    def live_metrics(self, metrics: Sequence[str]) -> None:
        """Which metrics re-score after each edit; each gets a chip."""
        self._live_metrics = jobs.live_order(metrics)
        chips = chip_metrics()
        shown = dict(chips)
        extra = [(m, metric_title(m)) for m in self._live_metrics if m not in shown]
        # In the metrics' own order: the "answerable" chip (no table column) beside Overall,
        # whose reader's answer it shows.
        place = {cls.name: n for n, cls in enumerate(metric_registry.shown_order())}
        row = sorted([*chips, *extra], key=lambda chip: place.get(chip[0], len(place)))
        self.chips.set_metrics(row)
        self._refresh()

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
        key = self._read_ahead_key()
        if key is not None and key not in self._read_ahead_done and self.read_ahead_ms is not None:
            self.read_ahead_timer.start(self.read_ahead_ms)
        self.item_shown.emit()

    # --- reading ahead ----------------------------------------------------------------------
    def _read_ahead_key(self) -> tuple[object, ...] | None:
        item = self.item
        if item is None or item.passage is None or not item.passage.text.strip():
            return None
        return (item.passage.hash, tuple(self._live_metrics), self.settings.profile)

    def _read_ahead(self) -> None:
        """Read the opened item's passage with the live metrics before the first edit (see
        jobs.read_ahead_job), unless the teacher has started editing or a score runs."""
        key = self._read_ahead_key()
        if (
            key is None
            or key in self._read_ahead_done
            or not self._live_metrics
            or self.dirty
            or self.live_worker is not None
            or self.item is None
        ):
            return
        worker = self.runner.start(
            jobs.read_ahead_job(self.item, self._live_metrics, self.settings, self.bank)
        )
        self.read_ahead_worker = worker
        self._read_ahead_running = key
        # Bound methods (not lambdas), so that Qt queues the calls to this thread.
        worker.signals.finished.connect(self._read_ahead_finished)
        worker.signals.failed.connect(self._read_ahead_failed)

    def _read_ahead_finished(self, _value: object) -> None:
        if self.read_ahead_worker is not None and self.sender() is self.read_ahead_worker.signals:
            self._read_ahead_done.add(self._read_ahead_running)
            self.read_ahead_worker = None

    def _read_ahead_failed(self, message: str, _fix: str) -> None:
        # A warm-up that fails (no model installed, say) is not the teacher's business: the
        # score they ask for next reports the problem with its fix.
        log.info("reading ahead failed: %s", message)
        if self.read_ahead_worker is not None and self.sender() is self.read_ahead_worker.signals:
            self.read_ahead_worker = None

    def _cancel_read_ahead(self) -> None:
        self.read_ahead_timer.stop()
        if self.read_ahead_worker is not None:
            self.read_ahead_worker.cancel()
            self.read_ahead_worker = None

    @staticmethod
    def _fields_of(item: Item | None) -> dict[str, str]:
        """The editor's fields for an item, as text (the form a draft is kept in)."""
        return {
            "type": item.type if item else "mcq",
            "difficulty": (item.difficulty or "") if item else "",
            "stem": item.stem if item else "",
            "key": item.key if item else "",
            "distractors": "\n".join(item.distractors) if item else "",
            "accepted": "\n".join(a.text for a in item.accepted) if item else "",
            "target_fact": item.target_fact if item else "",
        }

    def fields(self) -> dict[str, str]:
        """What the fields now hold, valid item or not."""
        return {
            "type": self.item_type(),
            "difficulty": self.difficulty_box.currentText(),
            "stem": self.stem_edit.toPlainText(),
            "key": self.key_edit.text(),
            "distractors": self.distractor_edit.toPlainText(),
            "accepted": self.accepted_edit.toPlainText(),
            "target_fact": self.fact_edit.toPlainText(),
        }

    def _show_fields(self, fields: dict[str, str]) -> None:
        self._loading = True
        try:
            self.stem_edit.setPlainText(fields["stem"])
            self.key_edit.setText(fields["key"])
            self.distractor_edit.setPlainText(fields["distractors"])
            self.accepted_edit.setPlainText(fields.get("accepted", ""))
            self.fact_edit.setPlainText(fields["target_fact"])
            self.type_box.setCurrentIndex(max(0, self.type_box.findData(fields["type"])))
            self.difficulty_box.setCurrentText(fields["difficulty"])
        finally:
            self._loading = False

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

    def stale_metrics(self) -> set[str]:
        """Metrics whose shown result does not describe the text on screen (edited since),
        or is about to be replaced by a running re-score."""
        if self.item is None:
            return set()
        stale = set(self._pending) | set(self._full_pending)
        if self.dirty:
            stale |= set(self.item.scores) - self.fresh_scores
        return stale

    def _show_passage(self) -> None:
        passage = self.item.passage if self.item else None
        if passage is None and self.item is not None and self.item.passage_id is not None:
            try:
                passage = self.bank.get_passage(self.item.passage_id)
                self.item.passage = passage
            except QuizsmithError:
                passage = None
        text = passage.text if passage else ""
        self.passage_view.setHtml(passage_html(text, self.fact_edit.toPlainText()))

    # --- editing and live scores ------------------------------------------------------------
    def draft(self) -> Item | None:
        """The item as the fields now describe it (None if nothing is loaded or it is not a
        valid item yet; `self.problems` then says why)."""
        if self.item is None:
            return None
        kind = self.item_type()
        key = self.key_edit.text().strip()
        distractors = [
            line.strip() for line in self.distractor_edit.toPlainText().splitlines() if line.strip()
        ]
        if kind == "tf":
            options = [Option(t, t == key, i) for i, t in enumerate(TF_ANSWERS)]
        elif kind in CHOICE_TYPES:
            options = Item.make_options(key, distractors)
            # Partial credit is not edited here: a distractor keeps the credit it had.
            credit = {o.text: o.credit for o in self.item.options if not o.is_key}
            for option in options:
                option.credit = credit.get(option.text, option.credit)
        else:
            options = []
        same_kind = kind == self.item.type
        try:
            draft = Item(
                type=kind,
                stem=self.stem_edit.toPlainText().strip(),
                key=key,
                options=options,
                target_fact=self.fact_edit.toPlainText().strip(),
                passage_id=self.item.passage_id,
                passage=self.item.passage,
                status=self.item.status,
                difficulty=self.difficulty_box.currentText() or None,
                subject=self.item.subject,
                tags=list(self.item.tags),
                reference=self.item.reference,
                provenance=dict(self.item.provenance),
                flags=list(self.item.flags),
                scores=dict(self.item.scores),
                alternatives=list(self.item.alternatives),
                accepted=self._accepted(kind),
                # Fields the editor does not show are kept (an imported item's numerical key
                # and images must survive a Save).
                numeric=self.item.numeric if same_kind and key == self.item.key else None,
                media=list(self.item.media),
                id=self.item.id,
                created=self.item.created,
            )
        except ValueError as exc:
            self.problems.setText(str(exc))
            return None
        found = draft.problems()
        if kind == "tf" and key not in TF_ANSWERS:
            found.append("A true/false item's answer must be True or False.")
        if not found and (warnings := draft.warnings()):
            # Scored and saved anyway, but said (the overall score flags it too).
            self.problems.setText("Warning: " + " ".join(warnings))
        else:
            self.problems.setText(" ".join(found))
        return None if found else draft

    def _accepted(self, kind: str) -> list[Accepted]:
        """The other accepted answers typed (short answer and fill in the blank only), each
        keeping the credit it had (partial credit is not edited here)."""
        if kind not in ACCEPTING_TYPES or self.item is None:
            return []
        credit = {a.text: a.credit for a in self.item.accepted}
        key = self.key_edit.text().strip()
        lines = self.accepted_edit.toPlainText().splitlines()
        texts = dict.fromkeys(t.strip() for t in lines if t.strip() and t.strip() != key)
        return [Accepted(text, credit.get(text, 100.0)) for text in texts]

    def distractor_lines(self) -> list[str]:
        """The wrong answers as typed, one per non-empty line."""
        lines = self.distractor_edit.toPlainText().splitlines()
        return [line.strip() for line in lines if line.strip()]

    def item_type(self) -> str:
        """The chosen type's code (mcq, tf, short, cloze)."""
        return str(self.type_box.currentData() or "mcq")

    def _type_changed(self, *_args: object) -> None:
        # Only multiple choice has free distractors (true/false's are fixed); only short
        # answer and fill in the blank take other answers. A field that does not apply is
        # hidden, not just greyed (a fill-in item seemed to offer distractors, issue 27).
        kind = self.item_type()
        self.form.setRowVisible(self.distractor_row, kind == "mcq")
        self.form.setRowVisible(self.accepted_edit, kind in ACCEPTING_TYPES)
        self.distractor_edit.setEnabled(self.item is not None and kind == "mcq")
        self.wrong_answer_button.setEnabled(self.item is not None and kind == "mcq")
        self.accepted_edit.setEnabled(self.item is not None and kind in ACCEPTING_TYPES)

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

    def rescore_now(self) -> None:
        """Start a live re-score of the draft (cancelling any run still going)."""
        self.timer.stop()
        draft = self.draft()
        self._cancel_live()
        # Its model call in flight finishes first; the passage state it kept serves this run.
        self._cancel_read_ahead()
        metrics = jobs.live_for_item_type(self._live_metrics, draft.type) if draft else []
        if draft is None or not metrics:
            self._pending = []
            self._parts = {}
            self._refresh()
            return
        self.live_runs += 1
        self.live_signature = jobs.content_signature(draft)
        # One job, the estimate first: each chip is shown as its metric finishes (Overall,
        # then the answerable chip from the same reader's answer, then KDA), issue 45.
        worker = self.runner.start(jobs.score_draft_job(draft, metrics, self.settings, self.bank))
        self.live_worker = worker
        worker.signals.progress.connect(self._live_progress)
        worker.signals.failed.connect(self._live_failed)
        worker.signals.done.connect(self._live_done)

    def _live_for_type(self) -> list[str]:
        """The live metrics an edit re-scores for the type now chosen (KDA: multiple choice
        only); the others' chips go out of date until Explain or Score all."""
        return jobs.live_for_item_type(self._live_metrics, self.item_type())

    def _cancel_live(self) -> None:
        if self.live_worker is not None:
            self.live_worker.cancel()
            self.stale_cancelled += 1
            self.live_worker = None

    def _is_current(self) -> bool:
        return self.live_worker is not None and self.sender() is self.live_worker.signals

    def _live_progress(self, event: object) -> None:
        if not self._is_current() or self.item is None:
            return
        step = getattr(event, "payload", None)
        if isinstance(step, PartStep):
            current = self.draft()
            if current is not None and jobs.content_signature(current) == (
                jobs.content_signature(step.item)
            ):
                self._parts[step.metric] = step.text
                self._refresh()
            return
        if not isinstance(step, ScoredStep):
            return
        from quizsmith.metrics.runner import apply_result

        scored = jobs.content_signature(step.item)
        if scored == self.stored_signature and self.item.id is not None:
            # The text that was scored is the text saved (Save was pressed while this run
            # went on): the bank gets the result, which replaces the stale marker.
            try:
                jobs.store_if_current(self.bank, step.item, step.result, step.flags)
            except QuizsmithError as exc:
                log.warning("could not store a live score of item %s: %s", self.item.id, exc)
            else:
                self.item_changed.emit(self.bank.get_item(self.item.id))
        current = self.draft()
        if current is None or jobs.content_signature(current) != scored:
            return  # typed on since: this result describes older text
        apply_result(self.item, step.result, step.flags)
        self.fresh_scores.add(step.result.metric)
        if step.result.metric in self._pending:
            self._pending.remove(step.result.metric)
        self._parts.pop(step.result.metric, None)
        self._refresh()

    def _live_failed(self, message: str, fix: str) -> None:
        if self._is_current():
            self._pending = []
            self._parts = {}
            self._refresh()
            show_error(self, message, fix, "Scoring failed")

    def _live_done(self) -> None:
        if not self._is_current():
            return
        self.live_worker = None
        current = self.draft()
        if current is None or jobs.content_signature(current) == self.live_signature:
            self._pending = []
            self._parts = {}
        # else: the run scored older text; the re-score of the new text is still to come.
        self._refresh()
        if self.item is not None:
            self.live_scored.emit(copy.deepcopy(self.item))

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

    def score_all(self) -> JobWorker | None:
        """Every metric on the saved item, stored as it goes (MIRROR/MRE take a while)."""
        return self._score_saved(jobs.all_metrics(), "Scoring with every metric")

    def explain_metrics(self) -> list[str]:
        """What "Explain" offers: the metrics of "Score all" that are not live and apply to
        the item as saved."""
        if self.item is None:
            return []
        live = set(self._live_metrics)
        return [
            name
            for name in jobs.all_metrics()
            if name not in live and metric_registry.get(name)().not_applicable(self.item) is None
        ]

    def _fill_explain_menu(self) -> None:
        self.explain_menu.clear()
        names = self.explain_metrics()
        for name in names:
            action = self.explain_menu.addAction(metric_title(name))
            action.triggered.connect(lambda _checked=False, m=name: self.explain(m))
        if not names:
            none = self.explain_menu.addAction("Nothing more applies to this item")
            none.setEnabled(False)

    def explain(self, metric: str) -> JobWorker | None:
        """One metric on the saved item (its evidence replaces any out-of-date one)."""
        return self._score_saved([metric], f"Explaining with {metric_title(metric)}")

    def _score_saved(self, metrics: list[str], label: str) -> JobWorker | None:
        if self.item is None or self.item.id is None:
            return None
        if self.full_worker is not None:
            return None  # one at a time (its buttons are disabled until it ends)
        if self.dirty and not self.save():
            return None
        worker = self.runner.start(
            jobs.score_and_store_job(self.bank, [self.item.id], metrics, self.settings)
        )
        self.full_worker = worker
        self._full_pending = list(metrics)
        if self.progress is not None:
            self.progress.attach(worker, label)
        item_id = self.item.id
        worker.signals.progress.connect(self._full_progress)
        worker.signals.failed.connect(lambda m, f: show_error(self, m, f, "Scoring failed"))
        worker.signals.finished.connect(lambda _v: self._after_full_score(item_id))
        worker.signals.done.connect(self._full_done)
        self._sync_scoring_buttons()
        self._refresh()
        return worker

    def _sync_scoring_buttons(self) -> None:
        """ "Score all" and "Explain" wait while either runs (the progress panel shows it),
        rather than take a click they would ignore."""
        free = self.item is not None and self.full_worker is None
        for button in (self.score_all_button, self.explain_button):
            button.setEnabled(free)

    def _full_progress(self, event: object) -> None:
        """One metric of "Score all" finished: its chip and evidence are current again."""
        if self.full_worker is None or self.sender() is not self.full_worker.signals:
            return
        step = getattr(event, "payload", None)
        if not isinstance(step, ScoredStep) or self.item is None:
            return
        if step.item.id == self.item.id and step.result.metric in self._full_pending:
            self._full_pending.remove(step.result.metric)
            if not self.dirty:
                self._reload()
            else:
                self._refresh()

    def _full_done(self) -> None:
        if self.full_worker is not None and self.sender() is self.full_worker.signals:
            self.full_worker = None
            self._full_pending = []
            self._sync_scoring_buttons()
            self._refresh()

    def _after_full_score(self, item_id: int) -> None:
        if self.item is not None and self.item.id == item_id:
            self._reload()
        else:
            self.item_changed.emit(self.bank.get_item(item_id))
