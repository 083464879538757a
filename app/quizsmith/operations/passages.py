"""Reading a passage's items."""

from __future__ import annotations

from quizsmith.bank.store import ItemBank
from quizsmith.domain import Item


def items_of_passage(bank: ItemBank, passage_id: int | None) -> list[Item]:
    """Every item written about the passage, oldest first, without the passage itself
    (the caller has it); none for a passage not stored yet."""
    if passage_id is None:
        return []
    return bank.items_of_passage(passage_id)
