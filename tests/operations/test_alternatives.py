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


def test_the_old_wordings_scores_are_marked_out_of_date_not_shown_as_current(
    bank: ItemBank, sample: dict[str, int]
) -> None:
    """Issue 27: after the swap the queue showed NACo 0.00 and KDA 0.59 computed for the old
    wording, and "no metric found a problem"."""
    from quizsmith.operations.alternatives import rescore_metrics
    from quizsmith.operations.scores import STALE_REASON

    item_id = sample["alt"]
    bank.save_score(item_id, ScoreResult(metric="naco", value=0.0), [])
    bank.save_score(
        item_id, ScoreResult(metric="kda", value=0.59), [Flag("kda-weak", "W.", "kda", "info")]
    )
    item = bank.get_item(item_id)
    item.alternatives[0].scores = {"overall": ScoreResult(metric="overall", value=0.7)}
    bank.update_item(item)

    swap_alternative(bank, item_id, 0)
    stored = bank.get_item(item_id)
    for metric in ("naco", "kda"):
        assert not stored.scores[metric].scored
        assert stored.scores[metric].not_scored_reason == STALE_REASON
    assert stored.scores["overall"].value == 0.7  # computed for the alternative's text
    assert stored.flags == []
    # The history keeps the old numbers.
    assert [s.value for s in bank.score_history(item_id, "kda")] == [0.59, None]
    # Re-scored: the stale and missing live metrics, and the one that reads the others.
    assert rescore_metrics(bank, item_id, ["overall", "naco", "kda", "exam"]) == [
        "overall",
        "naco",
        "kda",
        "exam",
    ]
    bank.save_score(item_id, ScoreResult(metric="exam", value=1.0), [])
    assert rescore_metrics(bank, item_id, ["naco", "exam"]) == ["naco"]
