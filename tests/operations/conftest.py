"""A real bank on tmp_path with one passage and three items about it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from quizsmith.bank.store import ItemBank
from quizsmith.domain import Item, Passage

PASSAGE = (
    "Photosynthesis is the process by which green plants turn light into chemical energy. "
    "It takes place in the chloroplasts, which contain the green pigment chlorophyll. "
    "The plant takes in carbon dioxide and water and releases oxygen."
)


def mcq(stem: str, key: str, distractors: list[str], **fields: Any) -> Item:
    return Item(
        type="mcq", stem=stem, key=key, options=Item.make_options(key, distractors), **fields
    )


@pytest.fixture
def bank(tmp_path: Path) -> Iterator[ItemBank]:
    b = ItemBank(tmp_path / "bank.sqlite")
    yield b
    if not b._closed:
        assert b.integrity_problems() == []
        b.close()


@pytest.fixture
def sample(bank: ItemBank) -> dict[str, int]:
    pid = bank.add_passage(Passage(text=PASSAGE, title="Photosynthesis", subject="Biology"))
    items = {
        "where": mcq(
            "Where in the plant cell does photosynthesis take place?",
            "In the chloroplasts",
            ["In the nucleus", "In the cell wall", "In the vacuole"],
        ),
        "release": mcq("Which gas do plants release?", "Oxygen", ["Nitrogen", "Helium", "Argon"]),
        "alt": mcq(
            "What do plants take in besides water?",
            "Carbon dioxide",
            ["Oxygen", "Nitrogen"],
            alternatives=[mcq("Which gas do plants absorb?", "Carbon dioxide", ["Oxygen", "Neon"])],
        ),
    }
    ids = {}
    for name, item in items.items():
        item.passage_id = pid
        item.subject = "Biology"
        ids[name] = bank.add_item(item)
    ids["passage"] = pid
    return ids
