from __future__ import annotations

from quizsmith.bank.store import ItemBank
from quizsmith.domain import Passage
from quizsmith.operations.passages import items_of_passage

from .conftest import mcq


def test_a_passages_items_oldest_first_and_only_its_own(
    bank: ItemBank, sample: dict[str, int]
) -> None:
    other = bank.add_passage(Passage(text="Rivers carry water to the sea.", title="Rivers"))
    stray = mcq("Where do rivers go?", "To the sea", ["Uphill", "Nowhere"], passage_id=other)
    bank.add_item(stray)
    found = items_of_passage(bank, sample["passage"])
    assert [i.id for i in found] == [sample["where"], sample["release"], sample["alt"]]
    assert all(i.passage is None for i in found)  # the caller has the passage
    assert [i.stem for i in items_of_passage(bank, other)] == ["Where do rivers go?"]
    assert items_of_passage(bank, None) == []
