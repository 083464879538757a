"""Which bank items a dialog works on (the handout check and the export share it)."""

from __future__ import annotations

from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QWidget,
)

from quizsmith.bank.store import ItemBank
from quizsmith.domain import STATUSES, Item


class SelectionBox(QWidget):
    """Which bank items a dialog works on: a quiz, or every item with a status."""

    def __init__(self, bank: ItemBank, default_status: str = "accepted") -> None:
        super().__init__()
        self.bank = bank
        self.combo = QComboBox()
        for status in ("accepted", "all", *[s for s in STATUSES if s != "accepted"]):
            label = "all items" if status == "all" else f"{status} items"
            self.combo.addItem(label, ("status", status))
        for quiz in bank.quizzes():
            self.combo.addItem(f"quiz: {quiz.name}", ("quiz", quiz.name))
        self.select("status", default_status)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.combo)

    def choice(self) -> tuple[str, str]:
        kind, value = self.combo.currentData()
        return str(kind), str(value)

    def select(self, kind: str, value: str) -> None:
        # Not findData: it compares the Python tuples by identity, and found none (an equal
        # tuple is not the same object), so every choice fell back to the first entry.
        for index in range(self.combo.count()):
            if tuple(self.combo.itemData(index)) == (kind, value):
                self.combo.setCurrentIndex(index)
                return

    def items(self) -> list[Item]:
        kind, value = self.choice()
        if kind == "quiz":
            quiz = next(q for q in self.bank.quizzes() if q.name == value)
            return self.bank.get_items(quiz.item_ids, with_passages=True)
        return self.bank.search(
            status=None if value == "all" else value, limit=None, with_passages=True
        )
