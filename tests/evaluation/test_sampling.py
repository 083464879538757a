from __future__ import annotations

from collections import Counter
from pathlib import Path

from quizsmith.evaluation.adapters import load_records
from quizsmith.evaluation.sampling import stratified_sample


def test_round_robin_covers_systems_and_passages(qgeval_small: Path) -> None:
    records = load_records(qgeval_small, "qgeval")
    sample = stratified_sample(records, 10, seed=3, whole_groups=False)
    assert len(sample) == 10
    assert len({r.source for r in sample}) == 10  # ten different systems
    per_passage = Counter(r.group for r in sample)
    assert max(per_passage.values()) - min(per_passage.values()) <= 2
    # Seeded: the same seed gives the same sample, in dataset order; another seed differs.
    assert stratified_sample(records, 10, seed=3, whole_groups=False) == sample
    assert [records.index(r) for r in sample] == sorted(records.index(r) for r in sample)
    assert stratified_sample(records, 10, seed=4, whole_groups=False) != sample


def test_no_limit_or_large_limit_keeps_everything(qgeval_small: Path) -> None:
    records = load_records(qgeval_small, "qgeval")
    assert stratified_sample(records, None, 0, whole_groups=False) == records
    assert stratified_sample(records, 1000, 0, whole_groups=False) == records
    assert stratified_sample(records, 0, 0, whole_groups=False) == []


def test_group_formats_draw_whole_groups(fixtures: Path) -> None:
    records = load_records(fixtures / "naco_groups.jsonl", "naco-groups")
    sample = stratified_sample(records, 6, seed=0, whole_groups=True)
    assert len(sample) == 6
    assert len({r.group for r in sample}) == 1
    assert {r.role for r in sample} == {
        "refq",
        "annoq",
        "annoq_clue_refq",
        "1hop_q",
        "non_q",
        "random_q",
    }
