from __future__ import annotations

import dataclasses

import pytest

from quizsmith.operations import OpChanges


def test_changes_merge_field_by_field() -> None:
    a = OpChanges(items=frozenset({1}), scores=True, created=(1, 2))
    b = OpChanges(items=frozenset({2}), flags=True, created=(2, 3), passages=frozenset({7}))
    merged = a | b
    assert merged.items == {1, 2} and merged.passages == {7}
    assert merged.scores and merged.flags and not merged.reviews
    assert merged.created == (1, 2, 3)  # order kept, no id twice


def test_no_change_is_empty_and_changes_are_frozen() -> None:
    assert OpChanges().empty
    assert not OpChanges(reviews=True).empty
    with pytest.raises(dataclasses.FrozenInstanceError):
        OpChanges().scores = True  # type: ignore[misc]
