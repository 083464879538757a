"""The domain objects and the item interchange format (DESIGN.md, "Command line")."""

from __future__ import annotations

import json
import math

import pytest

from quizsmith.domain import Flag, Item, Option, Passage, ScoreResult

from .helpers import mcq


def test_not_scored_has_no_value_and_says_why() -> None:
    result = ScoreResult.not_scored("kda", "no solver model installed", seconds=0.5)
    assert result.value is None
    assert not result.scored
    assert result.not_scored_reason == "no solver model installed"
    assert ScoreResult(metric="naco", value=0.5).scored


@pytest.mark.parametrize("bad", [math.nan, math.inf, "0.5", True])
def test_a_score_value_is_a_finite_number(bad: object) -> None:
    with pytest.raises(ValueError):
        ScoreResult(metric="naco", value=bad)  # type: ignore[arg-type]


def test_a_not_scored_result_cannot_carry_a_number() -> None:
    with pytest.raises(ValueError, match="not-scored"):
        ScoreResult(metric="naco", value=0.3, not_scored_reason="parse failure")


def test_passage_hash_follows_its_text() -> None:
    p = Passage(text="abc")
    first = p.hash
    p.text = "abd"
    assert p.hash != first
    assert len(first) == 64


def test_item_rejects_unknown_type_status_and_difficulty() -> None:
    with pytest.raises(ValueError, match="type"):
        Item(type="essay", stem="q", key="a")
    with pytest.raises(ValueError, match="status"):
        Item(type="short", stem="q", key="a", status="done")
    with pytest.raises(ValueError, match="difficulty"):
        Item(type="short", stem="q", key="a", difficulty="hard")


def test_problems_name_what_is_wrong() -> None:
    assert mcq().problems() == []
    item = mcq(distractors=["Paris"])
    assert "Two options have the same text." in item.problems()
    item = Item(type="mcq", stem="Q?", key="A", options=[Option("A"), Option("B", position=1)])
    assert any("Exactly one option" in p for p in item.problems())
    item = Item(type="mcq", stem="Q?", key="A", options=[Option("A", True)])
    assert any("at least two options" in p for p in item.problems())
    item = Item(type="short", stem=" ", key="A")
    assert "The question is empty." in item.problems()


def test_one_distractor_is_a_warning_not_a_problem() -> None:
    from quizsmith.domain import ONE_DISTRACTOR_MESSAGE, distractor_warning

    two_options = mcq(distractors=["Lyon"])
    assert two_options.problems() == []  # stored and scored ...
    assert two_options.warnings() == [ONE_DISTRACTOR_MESSAGE]  # ... with a warning
    assert mcq().warnings() == [] and mcq(distractors=["Lyon", "Nice"]).warnings() == []
    true_false = Item(type="tf", stem="Paris is in France.", key="True",
                      options=Item.make_options("True", ["False"]))  # fmt: skip
    assert true_false.warnings() == []  # two options by nature
    assert distractor_warning("mcq", 1) == ONE_DISTRACTOR_MESSAGE
    assert distractor_warning("mcq", 0) is None  # refused by problems() instead
    assert distractor_warning("short", 1) is None


def test_interchange_round_trip_keeps_everything() -> None:
    item = mcq(
        stem="¿Cuál es la capital de Francia? 🇫🇷",
        key="París",
        distractors=["Lyon", "東京", "القاهرة"],
        id=7,
        passage=Passage(text="París es la capital.", title="Geo", subject="Geografía"),
        status="needs-review",
        difficulty="recall",
        subject="Geografía",
        tags=["europa", "capitales"],
        reference="What is the capital of France?",
        target_fact="París es la capital.",
        provenance={"model": "smollm2", "seed": 3, "prompt": {"version": 2}},
        flags=[Flag("answer-differs", "The model answered Lyon.", "naco", "error")],
        scores={
            "naco": ScoreResult(metric="naco", value=0.75, values={"n": 1, "steps": 2}),
            "kda": ScoreResult.not_scored("kda", "no solvers"),
        },
        created="2024-01-01T00:00:00.000000+00:00",
    )
    data = item.to_dict()
    assert data["question"] == item.stem and data["answer"] == "París"
    assert data["distractors"] == ["Lyon", "東京", "القاهرة"]
    assert data["fact"] == item.target_fact and data["passage"] == "París es la capital."
    text = json.dumps(data, ensure_ascii=False)
    back = Item.from_dict(json.loads(text))
    assert back == item
    assert back.to_dict() == data


def test_from_dict_accepts_minimal_external_items() -> None:
    item = Item.from_dict(
        {"id": "q-17", "question": "2+2?", "answer": "4", "distractors": ["3", "5"]}
    )
    assert item.type == "mcq"
    assert item.id is None and item.provenance["source_id"] == "q-17"
    assert [o.text for o in item.options] == ["4", "3", "5"] and item.options[0].is_key
    short = Item.from_dict({"question": "Capital of Peru?", "answer": "Lima"})
    assert short.type == "short" and short.options == []
    tf = Item.from_dict({"type": "tf", "question": "Water boils at 100 °C.", "answer": "True"})
    assert [o.text for o in tf.options] == ["True", "False"] and tf.problems() == []


def test_from_dict_keeps_the_presentation_order() -> None:
    item = Item.from_dict(
        {"question": "Q?", "answer": "B", "distractors": ["A", "C"], "options": ["A", "B", "C"]}
    )
    assert [(o.text, o.is_key, o.position) for o in item.options] == [
        ("A", False, 0),
        ("B", True, 1),
        ("C", False, 2),
    ]


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"answer": "x"}, "question"),
        ({"question": "q?"}, "answer"),
        ({"question": "q?", "answer": "a", "distractors": "b"}, "distractors"),
        ({"question": "q?", "answer": "a", "options": ["b", "c"]}, "options"),
        ({"question": "q?", "answer": "a", "scores": [1]}, "scores"),
        ({"question": "q?", "answer": "a", "scores": {"m": {"value": "high"}}}, "number"),
        ({"question": "q?", "answer": "a", "status": "done"}, "status"),
        ([1, 2], "object"),
    ],
)
def test_from_dict_names_the_bad_field(data: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Item.from_dict(data)  # type: ignore[arg-type]
