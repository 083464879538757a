"""A score and its metric's flags are stored together or not at all."""

from __future__ import annotations

import pytest

from quizsmith.bank import records
from quizsmith.bank.store import ItemBank
from quizsmith.domain import Flag, ScoreResult
from quizsmith.operations.scores import (
    STALE_REASON,
    content_signature,
    mark_stale,
    save_edited_item,
    save_score,
    store_if_current,
)

WEAK = Flag("kda-weak", "Weak distractors.", "kda", "warning")


def score_rows(bank: ItemBank, item_id: int) -> int:
    with bank.reading() as conn:
        return int(
            conn.execute("SELECT count(*) FROM scores WHERE item_id = ?", (item_id,)).fetchone()[0]
        )


def test_save_score_stores_the_result_and_replaces_only_its_metrics_flags(
    bank: ItemBank, sample: dict[str, int]
) -> None:
    item_id = sample["where"]
    other = Flag("answer-differs", "The model answered otherwise.", "naco")
    bank.set_flags(item_id, [other, Flag("kda-old", "Old.", "kda")], None)
    changes = save_score(bank, item_id, ScoreResult(metric="kda", value=0.3), [WEAK])
    assert changes.items == {item_id} and changes.scores and changes.flags
    assert not changes.reviews and not changes.content and changes.created == ()
    stored = bank.get_item(item_id)
    assert stored.scores["kda"].value == 0.3
    assert sorted(f.code for f in stored.flags) == ["answer-differs", "kda-weak"]


def test_a_failure_while_writing_flags_leaves_no_score(
    bank: ItemBank, sample: dict[str, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    item_id = sample["where"]
    bank.set_flags(item_id, [Flag("kda-old", "Old.", "kda")], "kda")

    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("disk went away between the two writes")

    monkeypatch.setattr(records, "write_flags", broken)
    with pytest.raises(RuntimeError):
        save_score(bank, item_id, ScoreResult(metric="kda", value=0.3), [WEAK])
    monkeypatch.undo()
    assert score_rows(bank, item_id) == 0
    assert [f.code for f in bank.get_item(item_id).flags] == ["kda-old"]


def test_store_if_current_refuses_a_result_for_edited_text(
    bank: ItemBank, sample: dict[str, int]
) -> None:
    scored = bank.get_item(sample["where"])
    edited = bank.get_item(sample["where"])
    edited.stem = "In which organelle does photosynthesis happen?"
    bank.update_item(edited)
    changes = store_if_current(bank, scored, ScoreResult(metric="kda", value=0.9), [WEAK])
    assert changes.empty
    assert score_rows(bank, sample["where"]) == 0
    current = bank.get_item(sample["where"])
    assert content_signature(current) == content_signature(edited)
    changes = store_if_current(bank, current, ScoreResult(metric="kda", value=0.9), [WEAK])
    assert changes.scores and changes.items == {sample["where"]}
    assert bank.get_item(sample["where"]).scores["kda"].value == 0.9


def test_saving_an_edit_marks_old_scores_stale_and_keeps_fresh_ones(
    bank: ItemBank, sample: dict[str, int]
) -> None:
    item_id = sample["where"]
    bank.save_score(item_id, ScoreResult(metric="naco", value=0.9), [])
    bank.save_score(item_id, ScoreResult(metric="kda", value=0.2), [WEAK])
    bank.save_draft(item_id, {"stem": "half typed"})
    draft = bank.get_item(item_id)
    draft.stem = "In which organelle does photosynthesis happen?"
    draft.scores["naco"] = ScoreResult(metric="naco", value=0.7)
    draft.flags = [Flag("too-easy", "One step.", "naco", "info")]
    changes = save_edited_item(bank, draft, {"naco"}, content_changed=True)
    assert changes.content and changes.scores and changes.flags and changes.drafts
    stored = bank.get_item(item_id)
    assert stored.stem == draft.stem
    assert stored.scores["naco"].value == 0.7
    assert stored.scores["kda"].not_scored_reason == STALE_REASON
    assert [f.code for f in stored.flags] == ["too-easy"]
    assert bank.get_draft(item_id) is None
    # The old numbers stay in the history.
    assert [s.value for s in bank.score_history(item_id, "kda")] == [0.2, None]


def test_mark_stale_keeps_the_metrics_asked_for(bank: ItemBank, sample: dict[str, int]) -> None:
    item_id = sample["release"]
    bank.save_score(item_id, ScoreResult(metric="naco", value=0.9), [])
    bank.save_score(item_id, ScoreResult(metric="kda", value=0.4), [WEAK])
    changes = mark_stale(bank, item_id, keep=["naco"])
    assert changes.scores and changes.items == {item_id}
    stored = bank.get_item(item_id)
    assert stored.scores["naco"].value == 0.9
    assert not stored.scores["kda"].scored and stored.flags == []
