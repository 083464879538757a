"""Overgenerated alternatives travel with their item: bank, JSONL and the interchange dict."""

from __future__ import annotations

import json
from pathlib import Path

from quizsmith.bank import ItemBank
from quizsmith.domain import Item, Passage

from .helpers import mcq


def _with_alternatives() -> Item:
    item = mcq(passage=Passage(text="Paris is the capital of France.", title="France"))
    item.alternatives = [
        mcq(stem="Which city is the capital of France?", provenance={"seed": 2}),
        mcq(stem="France's capital is which city?", distractors=("Lille", "Nice", "Lyon")),
    ]
    return item


def test_alternatives_survive_the_bank(bank: ItemBank) -> None:
    item_id = bank.add_item(_with_alternatives())
    loaded = bank.get_item(item_id)
    assert [a.stem for a in loaded.alternatives] == [
        "Which city is the capital of France?",
        "France's capital is which city?",
    ]
    assert loaded.alternatives[0].provenance == {"seed": 2}
    assert loaded.alternatives[1].distractors == ["Lille", "Nice", "Lyon"]
    # Swapping one in is an ordinary update; the list shrinks with it.
    swapped = loaded.alternatives.pop(0)
    loaded.stem = swapped.stem
    bank.update_item(loaded)
    again = bank.get_item(item_id)
    assert again.stem == swapped.stem and len(again.alternatives) == 1


def test_alternatives_survive_jsonl(bank: ItemBank, tmp_path: Path) -> None:
    bank.add_item(_with_alternatives())
    out = tmp_path / "items.jsonl"
    bank.export_jsonl(out)
    row = json.loads(out.read_text(encoding="utf-8").splitlines()[-1])
    assert len(row["alternatives"]) == 2 and "passage" not in row["alternatives"][0]
    with ItemBank(tmp_path / "other.qbank") as other:
        other.import_jsonl(out)
        [loaded] = other.search(limit=None)
        assert [a.stem for a in loaded.alternatives] == [a["question"] for a in row["alternatives"]]


def test_new_items_have_no_alternatives(bank_path: Path) -> None:
    with ItemBank(bank_path) as bank:
        assert "0004_alternatives" in bank.schema_version
        item_id = bank.add_item(mcq())
        assert bank.get_item(item_id).alternatives == []
