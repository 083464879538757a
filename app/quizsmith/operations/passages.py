"""Reading a passage's items, and naming a passage as lists show it."""

from __future__ import annotations

from quizsmith.bank.store import ItemBank
from quizsmith.domain import Item, Passage


def items_of_passage(bank: ItemBank, passage_id: int | None) -> list[Item]:
    """Every item written about the passage, oldest first, without the passage itself
    (the caller has it); none for a passage not stored yet."""
    if passage_id is None:
        return []
    return bank.items_of_passage(passage_id)


def passage_label(passage: Passage) -> str:
    """A passage as lists and confirmations name it: its title, or its first six words."""
    if passage.title.strip():
        return passage.title.strip()
    words = passage.text.split()
    return " ".join(words[:6]) + ("…" if len(words) > 6 else "")
