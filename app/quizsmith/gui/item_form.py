"""The item editor's form: the type, difficulty, question, answer, wrong answers, other
accepted answers and target fact, read back as the fields' texts (the form a draft is kept
in) or as an `Item` (`draft`, which says in `problems` why the text is not a valid item yet).

`ItemForm` is the lowest layer of the editor (`item_editor.ItemEditor` builds on it): it holds
the fields, not the item's scores or how they are kept."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QWidget,
)

from quizsmith.domain import (
    CHOICE_TYPES,
    DIFFICULTIES,
    ITEM_TYPES,
    TF_ANSWERS,
    Accepted,
    Item,
    Option,
)
from quizsmith.gui.passage_panel import TYPE_LABELS

#: Item types with other accepted answers besides the key (`Item.accepted`).
ACCEPTING_TYPES = ("short", "cloze")


class ItemForm(QWidget):
    """The fields of one item; `item` is the item they were loaded from (None: nothing)."""

    item: Item | None
    #: The "Replace…" button beside the wrong answers (enabled with them).
    wrong_answer_button: QWidget

    def _build_form(self, wrong_answer_button: QWidget) -> QFormLayout:
        """Make the fields; `wrong_answer_button` goes beside the wrong answers (issue 47)."""
        self._loading = False
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
        self.wrong_answer_button = wrong_answer_button
        self.distractor_row = QWidget()
        row = QHBoxLayout(self.distractor_row)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.distractor_edit, 1)
        row.addWidget(self.wrong_answer_button, 0, Qt.AlignmentFlag.AlignTop)
        form.addRow("Distractors", self.distractor_row)
        form.addRow("Also accept", self.accepted_edit)
        form.addRow("Target fact", self.fact_edit)
        self.form = form
        return form

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
