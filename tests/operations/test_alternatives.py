from __future__ import annotations

from quizsmith.bank.store import ItemBank
from quizsmith.domain import Flag, ScoreResult
from quizsmith.operations.alternatives import replace_with_alternative, swap_alternative


def test_the_swap_is_its_own_undo(bank: ItemBank, sample: dict[str, int]) -> None:
    item = bank.get_item(sample["alt"])
    swapped = replace_with_alternative(item, 0)
    assert swapped.stem == "Which gas do plants absorb?"
    assert (swapped.id, swapped.passage_id, swapped.status) == (item.id, item.passage_id, "draft")
    back = replace_with_alternative(swapped, 0)
    assert back.stem == item.stem and back.distractors == item.distractors
    assert [a.stem for a in back.alternatives] == ["Which gas do plants absorb?"]


def test_swap_alternative_stores_the_alternative_with_its_own_scores_and_flags(
    bank: ItemBank, sample: dict[str, int]
) -> None:
    item_id = sample["alt"]
    bank.save_score(
        item_id, ScoreResult(metric="naco", value=0.2), [Flag("too-easy", "Easy.", "naco")]
    )
    item = bank.get_item(item_id)
    item.alternatives[0].scores = {"naco": ScoreResult(metric="naco", value=0.8)}
    item.alternatives[0].flags = []
    bank.update_item(item)

    changes = swap_alternative(bank, item_id, 0)
    assert changes.items == {item_id} and changes.content and changes.scores and changes.flags
    stored = bank.get_item(item_id)
    assert stored.stem == "Which gas do plants absorb?"
    assert stored.distractors == ["Oxygen", "Neon"]
    assert stored.scores["naco"].value == 0.8
    assert stored.flags == []  # the old wording's flags went with it
    assert [a.stem for a in stored.alternatives] == ["What do plants take in besides water?"]
    assert stored.passage_id == sample["passage"]
