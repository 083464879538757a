"""The passage editor (paste, open or drop a file) with the Generate controls."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QMimeData, Signal
from PySide6.QtGui import QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from quizsmith.domain import DIFFICULTIES, ITEM_TYPES, Passage

PASSAGE_SUFFIXES = (".txt", ".md", ".docx", ".pdf")
TYPE_LABELS = {
    "mcq": "Multiple choice",
    "tf": "True/false",
    "short": "Short answer",
    "cloze": "Fill in the blank",
}


def dropped_passage_file(mime: QMimeData) -> Path | None:
    for url in mime.urls():
        if url.isLocalFile():
            path = Path(url.toLocalFile())
            if path.suffix.lower() in PASSAGE_SUFFIXES:
                return path
    return None


class PassageText(QPlainTextEdit):
    """Accepts dropped .txt/.md/.docx/.pdf files (read by load_passage in a worker)."""

    file_dropped = Signal(object)  # Path

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:  # noqa: N802
        if dropped_passage_file(event.mimeData()) is not None:
            event.acceptProposedAction()
        else:
            super().dragEnterEvent(event)

    def dragMoveEvent(self, event):  # type: ignore[no-untyped-def]  # noqa: N802
        if dropped_passage_file(event.mimeData()) is not None:
            event.acceptProposedAction()
        else:
            super().dragMoveEvent(event)

    def dropEvent(self, event: QDropEvent) -> None:  # noqa: N802
        path = dropped_passage_file(event.mimeData())
        if path is not None:
            event.acceptProposedAction()
            self.file_dropped.emit(path)
        else:
            super().dropEvent(event)


class PassagePanel(QWidget):
    generate_requested = Signal()
    open_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.passage: Passage | None = None
        self.title_edit = QLineEdit()
        self.title_edit.setPlaceholderText("Title")
        self.subject_edit = QLineEdit()
        self.subject_edit.setPlaceholderText("Subject (e.g. Biology)")
        self.text_edit = PassageText()
        self.text_edit.setPlaceholderText(
            "Paste a textbook passage here, or drop a .txt, .md, .docx or .pdf file."
        )
        self.open_button = QPushButton("Open file…")
        self.count_box = QSpinBox()
        self.count_box.setRange(1, 100)
        self.count_box.setValue(5)
        self.count_box.setPrefix("Items: ")
        self.type_checks: dict[str, QCheckBox] = {}
        for kind in ITEM_TYPES:
            box = QCheckBox(TYPE_LABELS.get(kind, kind))
            box.setChecked(kind == "mcq")
            self.type_checks[kind] = box
        self.difficulty_box = QComboBox()
        self.difficulty_box.addItem("any difficulty", None)
        for d in DIFFICULTIES:
            self.difficulty_box.addItem(d, d)
        self.candidates_box = QSpinBox()
        # 0 is "auto": the question-writing model's default (GenerationRequest.candidates_for).
        self.candidates_box.setRange(0, 10)
        self.candidates_box.setValue(0)
        self.candidates_box.setSpecialValueText("Candidates: auto")
        self.candidates_box.setPrefix("Candidates: ")
        self.candidates_box.setToolTip(
            "Overgenerate: candidates written per fact; the best is kept, the others become "
            "alternatives. Fewer is faster. Auto: 1 with a chat model (it writes each "
            "question with its own answer), 3 with the light profile's models."
        )
        self.rank_check = QCheckBox("Rank by scores")
        self.rank_check.setChecked(True)
        self.rank_check.setToolTip("Keep the candidate the live metrics score best (slower)")
        self.generate_button = QPushButton("Generate")
        self.generate_button.setDefault(True)
        self.note = QLabel("")
        self.note.setWordWrap(True)

        head = QHBoxLayout()
        head.addWidget(self.title_edit, 2)
        head.addWidget(self.subject_edit, 1)
        head.addWidget(self.open_button)
        # Two rows: in one, the controls alone would make the window wider than a laptop
        # screen.
        kinds = QHBoxLayout()
        kinds.addWidget(self.count_box)
        for box in self.type_checks.values():
            kinds.addWidget(box)
        kinds.addStretch(1)
        gen = QHBoxLayout()
        gen.addWidget(self.difficulty_box)
        gen.addWidget(self.candidates_box)
        gen.addWidget(self.rank_check)
        gen.addStretch(1)
        gen.addWidget(self.generate_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(head)
        layout.addWidget(self.text_edit, 1)
        layout.addLayout(kinds)
        layout.addLayout(gen)
        layout.addWidget(self.note)
        self.generate_button.clicked.connect(self.generate_requested)
        self.open_button.clicked.connect(self.open_requested)
        for box in self.type_checks.values():
            box.toggled.connect(self._types_changed)

    def _types_changed(self) -> None:
        self.generate_button.setEnabled(bool(self.types()))

    def set_passage(self, passage: Passage | None) -> None:
        self.passage = passage
        self.title_edit.setText(passage.title if passage else "")
        self.subject_edit.setText((passage.subject or "") if passage else "")
        self.text_edit.setPlainText(passage.text if passage else "")

    def current(self) -> Passage:
        """The passage as edited (keeps the id of the loaded one; the caller decides whether
        the text changed and must be saved)."""
        base = self.passage
        return Passage(
            text=self.text_edit.toPlainText(),
            title=self.title_edit.text().strip(),
            subject=self.subject_edit.text().strip() or None,
            source_file=base.source_file if base else None,
            id=base.id if base else None,
        )

    def is_dirty(self) -> bool:
        """Whether the fields differ from the passage as loaded (or hold a new text)."""
        now = self.current()
        base = self.passage
        if base is None:
            return bool(now.text.strip())
        return (now.text, now.title, now.subject) != (base.text, base.title, base.subject)

    def types(self) -> tuple[str, ...]:
        return tuple(kind for kind, box in self.type_checks.items() if box.isChecked())

    def difficulty(self) -> str | None:
        value = self.difficulty_box.currentData()
        return str(value) if value else None

    def candidates(self) -> int | None:
        """Candidates per fact; None for "auto", the question-writing model's default."""
        return self.candidates_box.value() or None
