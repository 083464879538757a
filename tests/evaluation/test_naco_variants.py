"""NACo-style flawed variants built from SQuAD candidates (evaluation/adapters/naco_variants)."""

from __future__ import annotations

from pathlib import Path

from quizsmith.evaluation.adapters import is_group_format, load_records, roles
from quizsmith.metrics.squad import f1_score


def _by_group(path: Path) -> dict[str, dict]:
    out: dict[str, dict] = {}
    for r in load_records(path, "naco-variants"):
        out.setdefault(r.group, {})[r.role] = r
    return out


def test_every_group_has_three_valid_and_the_built_flawed_questions(fixtures: Path) -> None:
    path = fixtures / "squad_candidates_small.jsonl"
    assert is_group_format("naco-variants")
    valid, flawed = roles("naco-variants")
    assert valid == ("refq", "annoq", "annoq_clue_refq")
    groups = _by_group(path)
    assert set(groups) == {"q1", "q2", "q3"}
    for group, members in groups.items():
        refq = members["refq"]
        for role in valid:
            assert members[role].valid is True and members[role].labels == {"valid": 1.0}
            assert members[role].record_id == f"naco-variants:{group}:{role}"
        for role in ("non_q", "shuffled_q", "random_q", "wrong_key_q"):
            assert role in flawed
            r = members[role]
            assert r.valid is False and r.labels == {"valid": 0.0}
            assert r.item.passage.text == refq.item.passage.text  # asked of the same passage
        # The statement is the passage sentence that holds the answer.
        assert members["non_q"].item.stem in refq.item.passage.text
        assert refq.item.key.lower() in members["non_q"].item.stem.lower()
        # Shuffled: the same words, in another order.
        shuffled = members["shuffled_q"].item.stem
        assert sorted(shuffled.lower().split()) == sorted(
            refq.item.stem.rstrip(" ?").lower().split()
        )
        assert shuffled.lower() != refq.item.stem.rstrip(" ?").lower()
        # Random: another passage's question, with this passage's key.
        assert members["random_q"].item.stem not in {
            m.item.stem for m in members.values() if m.valid
        }
        assert members["random_q"].item.key == refq.item.key
        # Wrong key: the reference question, a key sharing no word with the answer.
        wrong = members["wrong_key_q"]
        assert wrong.item.stem == refq.item.stem
        assert f1_score(wrong.item.key, refq.item.key) == 0.0
        assert wrong.item.key in refq.item.passage.text


def test_variants_are_deterministic(fixtures: Path) -> None:
    path = fixtures / "squad_candidates_small.jsonl"
    first = [(r.record_id, r.item.stem, r.item.key) for r in load_records(path, "naco-variants")]
    again = [(r.record_id, r.item.stem, r.item.key) for r in load_records(path, "naco-variants")]
    assert first == again
