from __future__ import annotations

import json
from pathlib import Path

import pytest

from quizsmith.errors import QuizsmithError
from quizsmith.evaluation.adapters import FORMATS, load_records
from quizsmith.evaluation.adapters.naco_groups import strip_answer
from quizsmith.evaluation.adapters.qgeval import DIMENSIONS


def test_qgeval_real_lines(qgeval_small: Path) -> None:
    records = load_records(qgeval_small, "qgeval")
    assert len(records) == 30
    first = records[0]
    assert set(first.labels) == {*DIMENSIONS, "mean"}
    assert all(1.0 <= v <= 3.0 for r in records for v in r.labels.values())
    assert len({r.group for r in records}) == 2
    assert len({r.source for r in records}) == 30  # 15 systems per dataset half
    refs = [r for r in records if r.source.endswith("_reference")]
    assert len(refs) == 2
    assert all(r.references == [] and r.item.reference is None for r in refs)
    others = [r for r in records if not r.source.endswith("_reference")]
    assert all(r.item.reference and r.references == [r.item.reference] for r in others)
    assert all(r.item.type == "short" and r.item.key and r.item.passage for r in records)
    hotpot = [r for r in records if r.source.startswith("HotpotQA")]
    assert all(r.item.passage and " <sep> " in r.item.passage.text for r in hotpot)
    # The cache key depends on content: equal for equal items, different otherwise.
    assert len({r.key for r in records}) == len({(r.item.stem, r.group) for r in records})


def test_naco_squad_real_lines(naco_squad_small: Path) -> None:
    records = load_records(naco_squad_small, "naco-squad")
    assert len(records) == 12
    assert [r.role for r in records[:3]] == ["refq", "annoq", "annoq_clue_refq"]
    assert all(r.valid and r.labels == {"valid": 1.0} for r in records)
    refq, annoq = records[0], records[1]
    assert refq.references == [] and annoq.references == [refq.item.stem]
    assert refq.group == annoq.group == "5733ad384776f41900660ff0"
    assert refq.item.key == "Touchdown Jesus"


def test_naco_groups_fixture(fixtures: Path) -> None:
    records = load_records(fixtures / "naco_groups.jsonl", "naco-groups")
    assert len(records) == 12
    first = records[0]
    assert first.item.key == "American"
    text = first.item.passage.text if first.item.passage else ""
    assert "<ans>" not in text
    assert "was an American filmmaker" in text
    assert text.count(" <sep> ") == 1
    roles = {r.role: r for r in records if r.group == first.group}
    assert set(roles) == {"refq", "annoq", "annoq_clue_refq", "1hop_q", "non_q", "random_q"}
    assert roles["non_q"].valid is False and roles["non_q"].labels == {"valid": 0.0}
    assert roles["annoq"].valid is True
    assert roles["random_q"].references == [roles["refq"].item.stem]
    # A string og_id works as well as a list; an answer at the end keeps its full stop.
    second = [r for r in records if r.group == "5a8c7595554299585d9e36b6"]
    assert second and second[0].item.key == "United States"
    assert second[0].item.passage and second[0].item.passage.text.endswith("United States.")


def test_strip_answer_needs_markers() -> None:
    assert strip_answer("in <ans> Paris <ans> , France") == ("in Paris, France", "Paris")
    with pytest.raises(ValueError):
        strip_answer("no markers here")


def test_strip_answer_takes_every_marked_occurrence() -> None:
    # The released HotpotQA file marks the answer in both passages: 4 markers on one line.
    text = "Born in <ans> Ohio <ans> . <sep> He left <ans> Ohio <ans> in 1900."
    assert strip_answer(text) == ("Born in Ohio. <sep> He left Ohio in 1900.", "Ohio")
    six = "<ans> A <ans> x <ans> a <ans> y <ans> A <ans>"
    assert strip_answer(six) == ("A x a y A", "A")
    with pytest.raises(ValueError, match="disagree"):
        strip_answer("in <ans> Paris <ans> and <ans> Rome <ans>")
    with pytest.raises(ValueError, match="odd number"):
        strip_answer("in <ans> Paris <ans> and <ans> Rome")


def test_quizdesign_fixture_is_multi_reference(fixtures: Path) -> None:
    records = load_records(fixtures / "quizdesign.jsonl", "quizdesign")
    assert len(records) == 7
    g1 = [r for r in records if r.group == "g1"]
    kept = [r for r in g1 if r.role == "kept"]
    assert len(kept) == 2
    # A kept question is compared with the other kept one, never with itself.
    assert kept[0].references == [kept[1].item.stem]
    assert kept[1].references == [kept[0].item.stem]
    flawed = {r.role: r for r in g1 if r.role != "kept"}
    assert set(flawed) == {"disfluent", "wrong_context"}
    assert flawed["disfluent"].references == [k.item.stem for k in kept]
    assert flawed["disfluent"].labels == {"kept": 0.0}
    assert kept[0].source == "bart_squad|t5_squad"
    assert kept[0].item.key == "1963"


def test_jsonl_fixture(fixtures: Path) -> None:
    records = load_records(fixtures / "items.jsonl", "jsonl")
    assert len(records) == 3
    a, b, c = records
    assert a.labels == {"quality": 3.0, "accept": 1.0} and a.group == "nile"
    assert a.role == "system-a" and a.references == ["Where does the Nile end?"]
    assert b.item.type == "mcq" and len(b.item.options) == 4
    assert b.references == ["What is Africa's longest river?", "Name the longest river in Africa."]
    assert b.item.reference == b.references[0]
    assert b.source == "system-b"
    assert b.group.startswith("p") and b.group != c.group  # default group: the passage
    assert c.references == []


def _write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_bad_line_is_named(tmp_path: Path, fixtures: Path) -> None:
    good = (fixtures / "naco_groups.jsonl").read_text(encoding="utf-8").splitlines()[0]
    path = _write(tmp_path, "bad.jsonl", good + "\n\n{not json\n")
    with pytest.raises(QuizsmithError, match=r"bad.jsonl, line 3: not valid JSON") as err:
        load_records(path, "naco-groups")
    assert err.value.fix


def test_missing_field_is_named(tmp_path: Path) -> None:
    path = _write(tmp_path, "q.jsonl", json.dumps({"context": "x", "answer": "y"}) + "\n")
    with pytest.raises(QuizsmithError, match=r"line 1: 'refq' is missing"):
        load_records(path, "naco-squad")
    bad_label = {"question": "Why?", "answer": "Because.", "labels": {"q": "high"}}
    path = _write(tmp_path, "i.jsonl", json.dumps(bad_label) + "\n")
    with pytest.raises(QuizsmithError, match=r"line 1: label 'q' is not a number"):
        load_records(path, "jsonl")


def test_wrong_format_suggests_the_right_one(qgeval_small: Path, fixtures: Path) -> None:
    with pytest.raises(QuizsmithError) as err:
        load_records(qgeval_small, "naco-squad")
    assert "--format qgeval" in err.value.fix
    with pytest.raises(QuizsmithError) as err:
        load_records(fixtures / "quizdesign.jsonl", "naco-groups")
    assert "--format quizdesign" in err.value.fix
    with pytest.raises(QuizsmithError) as err:
        load_records(fixtures / "naco_groups.jsonl", "qgeval")
    assert "--format naco-groups" in err.value.fix


def test_unknown_format_and_missing_file(tmp_path: Path) -> None:
    with pytest.raises(QuizsmithError, match="Unknown dataset format"):
        load_records(tmp_path / "x.jsonl", "csv")
    with pytest.raises(QuizsmithError, match="There is no file"):
        load_records(tmp_path / "missing.jsonl", "jsonl")
    assert set(FORMATS) == {
        "jsonl",
        "qgeval",
        "naco-squad",
        "naco-groups",
        "naco-variants",
        "quizdesign",
    }
