"""Items, passages, scores, flags, reviews and tags: what is stored comes back, and every
user action is one transaction."""

from __future__ import annotations

import pytest

from quizsmith.bank import BankError, ItemBank
from quizsmith.domain import Flag, Item, Option, Passage, ScoreResult

from .helpers import mcq, passage


def test_an_item_comes_back_as_it_was_stored(bank: ItemBank) -> None:
    item = mcq(
        passage=passage(title="France", subject="Geography", source_file="france.txt"),
        subject="Geography",
        tags=["europe", "Capitals", "europe"],
        difficulty="recall",
        target_fact="Paris is the capital and largest city of France.",
        reference="Name the capital of France.",
        provenance={"model": "smollm2-135m", "seed": 1, "passage_hash": "abc"},
        flags=[Flag("two-keys", "Two options look correct.", "kda")],
        scores={"naco": ScoreResult(metric="naco", value=0.8, values={"steps": 2})},
    )
    item_id = bank.add_item(item)
    got = bank.get_item(item_id)
    assert got.id == item_id and got.created
    assert (got.stem, got.key, got.type, got.status) == (item.stem, "Paris", "mcq", "draft")
    assert [(o.text, o.is_key, o.position) for o in got.options] == [
        ("Paris", True, 0),
        ("Lyon", False, 1),
        ("Marseille", False, 2),
        ("Nice", False, 3),
    ]
    assert got.tags == ["Capitals", "europe"]
    assert got.subject == "Geography" and got.difficulty == "recall"
    assert got.passage is not None and got.passage.title == "France"
    assert got.passage.source_file == "france.txt" and got.passage.id == got.passage_id
    assert got.provenance == item.provenance and got.reference == item.reference
    assert got.flags == item.flags
    assert got.scores["naco"].value == 0.8 and got.scores["naco"].values == {"steps": 2}
    assert bank.subjects() == ["Geography"] and bank.tags() == ["Capitals", "europe"]


def test_items_sharing_a_passage_store_it_once(bank: ItemBank) -> None:
    text = passage()
    a = bank.add_item(mcq(passage=text))
    b = bank.add_item(mcq(stem="Which is the largest city of France?", passage=passage()))
    assert bank.get_item(a).passage_id == bank.get_item(b).passage_id
    assert len(bank.passages()) == 1
    assert bank.add_passage(passage()) == bank.get_item(a).passage_id
    other = bank.add_passage(passage(title="Another document"))
    assert other != bank.get_item(a).passage_id


def test_an_invalid_item_is_refused_with_the_reason(bank: ItemBank) -> None:
    with pytest.raises(BankError, match="same text"):
        bank.add_item(mcq(distractors=["Lyon", "Lyon"]))
    with pytest.raises(BankError, match="at least two options"):
        bank.add_item(Item(type="mcq", stem="Q?", key="A", options=[Option("A", True)]))
    assert bank.count() == 0


def test_add_items_is_all_or_nothing(bank: ItemBank) -> None:
    good = [mcq(stem=f"Question {n}?") for n in range(5)]
    bad = Item(type="mcq", stem="Q?", key="A", options=[Option("A", True), Option("A", True, 1)])
    with pytest.raises(BankError):
        bank.add_items([*good, bad])
    assert bank.count() == 0
    assert bank.add_items(good) == [1, 2, 3, 4, 5]


def test_a_failure_inside_a_user_action_rolls_all_of_it_back(bank: ItemBank) -> None:
    keep = bank.add_item(mcq())
    with pytest.raises(RuntimeError), bank.transaction():
        bank.add_item(mcq(stem="Half-done?"))
        bank.review(keep, "reject", "wrong")
        raise RuntimeError("the GUI crashed mid-action")
    assert bank.count() == 1
    assert bank.get_item(keep).status == "draft" and bank.reviews(keep) == []


def test_nested_actions_are_savepoints(bank: ItemBank) -> None:
    with bank.transaction():
        first = bank.add_item(mcq())
        with pytest.raises(BankError):
            bank.add_score(999, ScoreResult(metric="naco", value=0.1))
        bank.add_score(first, ScoreResult(metric="naco", value=0.2))
    assert bank.get_item(first).scores["naco"].value == 0.2


def test_reads_inside_a_transaction_see_its_own_changes(bank: ItemBank) -> None:
    with bank.transaction():
        item_id = bank.add_item(mcq(stem="Uncommitted question?"))
        assert bank.get_item(item_id).stem == "Uncommitted question?"
        assert [i.id for i in bank.search("uncommitted")] == [item_id]


def test_update_rewrites_content_and_search(bank: ItemBank) -> None:
    item_id = bank.add_item(mcq(tags=["old"]))
    item = bank.get_item(item_id)
    item.stem = "Which river flows through Paris?"
    item.key = "Seine"
    item.options = Item.make_options("Seine", ["Loire", "Rhône"])
    item.tags = ["rivers"]
    bank.update_item(item)
    got = bank.get_item(item_id)
    assert got.stem == item.stem and [o.text for o in got.options] == ["Seine", "Loire", "Rhône"]
    assert got.tags == ["rivers"]
    assert bank.search("capital") == [] and [i.id for i in bank.search("loire")] == [item_id]
    missing = mcq(id=404)
    with pytest.raises(BankError, match="not in the bank"):
        bank.update_item(missing)


def test_scores_keep_history_and_show_the_latest(bank: ItemBank) -> None:
    item_id = bank.add_item(mcq())
    bank.add_score(item_id, ScoreResult(metric="naco", value=0.4, model_config={"m": "a"}))
    bank.add_score(item_id, ScoreResult(metric="kda", value=0.9))
    bank.add_score(item_id, ScoreResult(metric="naco", value=0.6, model_config={"m": "b"}))
    bank.add_score(item_id, ScoreResult.not_scored("exam", "no QA model"))
    item = bank.get_item(item_id)
    assert item.scores["naco"].value == 0.6 and item.scores["naco"].model_config == {"m": "b"}
    assert item.scores["exam"].value is None
    assert item.scores["exam"].not_scored_reason == "no QA model"
    assert [s.value for s in bank.score_history(item_id, "naco")] == [0.4, 0.6]
    assert len(bank.score_history(item_id)) == 4


def test_unstorable_evidence_is_refused_clearly(bank: ItemBank) -> None:
    item_id = bank.add_item(mcq())
    with pytest.raises(BankError, match="evidence"):
        bank.add_score(item_id, ScoreResult(metric="naco", value=0.5, evidence={"x": object()}))
    with pytest.raises(BankError, match="NaN"):
        bank.add_score(item_id, ScoreResult(metric="naco", value=0.5, values={"c": float("nan")}))
    assert bank.score_history(item_id) == []


def test_flags_are_replaced_per_metric(bank: ItemBank) -> None:
    item_id = bank.add_item(mcq())
    bank.set_flags(item_id, [Flag("not-a-question", "Model says unnatural.", "naco")], "naco")
    bank.set_flags(item_id, [Flag("never-chosen", "Nice is never chosen.", "kda")], "kda")
    bank.set_flags(item_id, [Flag("answer-differs", "Model answered Lyon.")], "naco")
    assert sorted(f.code for f in bank.get_item(item_id).flags) == [
        "answer-differs",
        "never-chosen",
    ]
    bank.set_flags(item_id, [])
    assert bank.get_item(item_id).flags == []


def test_reviews_set_the_status_and_keep_history(bank: ItemBank) -> None:
    item_id = bank.add_item(mcq())
    bank.review(item_id, "needs-review", "two options look correct", "check Lyon")
    assert bank.get_item(item_id).status == "needs-review"
    bank.review(item_id, "accept")
    assert bank.get_item(item_id).status == "accepted"
    bank.review(item_id, "reject", "too easy")
    assert bank.get_item(item_id).status == "rejected"
    history = bank.reviews(item_id)
    assert [r.decision for r in history] == ["needs-review", "accept", "reject"]
    assert history[0].note == "check Lyon" and all(r.created for r in history)
    with pytest.raises(BankError, match="decision"):
        bank.review(item_id, "maybe")
    with pytest.raises(BankError, match="not in the bank"):
        bank.review(999, "accept")
    assert len(bank.reviews(item_id)) == 3


def test_deleting_an_item_removes_everything_that_belongs_to_it(bank: ItemBank) -> None:
    a = bank.add_item(mcq(tags=["t"]), dedupe=True)
    b = bank.add_item(mcq(stem="Another question?"))
    bank.add_score(a, ScoreResult(metric="naco", value=1.0))
    bank.review(a, "accept")
    bank.set_flags(a, [Flag("f", "m", "naco")])
    quiz = bank.create_quiz("Week 1", [a, b])
    bank.delete_item(a)
    with pytest.raises(BankError, match="not in the bank"):
        bank.get_item(a)
    assert bank.get_quiz(quiz).item_ids == [b]
    assert bank.search("capital") == []
    with bank.reading() as conn:
        for table in (
            "options",
            "scores",
            "latest_scores",
            "reviews",
            "flags",
            "item_tags",
            "item_embeddings",
        ):
            assert (
                conn.execute(f"SELECT count(*) FROM {table} WHERE item_id = ?", (a,)).fetchone()[0]
                == 0
            )
    with pytest.raises(BankError):
        bank.delete_item(a)


def test_ids_are_never_reused(bank: ItemBank) -> None:
    first = bank.add_item(mcq())
    bank.delete_item(first)
    assert bank.add_item(mcq()) == first + 1


def test_passages_in_use_cannot_be_deleted(bank: ItemBank) -> None:
    item_id = bank.add_item(mcq(passage=passage()))
    passage_id = bank.get_item(item_id).passage_id
    assert passage_id is not None
    with pytest.raises(BankError, match="used by 1 item"):
        bank.delete_passage(passage_id)
    bank.delete_item(item_id)
    bank.delete_passage(passage_id)
    assert bank.passages() == []


def test_passage_edits_are_searchable(bank: ItemBank) -> None:
    item_id = bank.add_item(mcq(passage=passage()))
    stored = bank.get_passage(bank.get_item(item_id).passage_id or 0)
    stored.text = "Lutetia was the Roman name of the city."
    bank.update_passage(stored)
    assert [i.id for i in bank.search("lutetia")] == [item_id]
    assert bank.search("largest") == []
    assert bank.get_passage(stored.id or 0).hash == Passage(text=stored.text).hash


def test_status_counts(bank: ItemBank) -> None:
    ids = bank.add_items([mcq(stem=f"Q{n}?") for n in range(4)])
    bank.review(ids[0], "accept")
    bank.review(ids[1], "reject")
    assert bank.status_counts() == {"draft": 2, "accepted": 1, "rejected": 1}
