"""Near-duplicate detection with embeddings stored per item."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from quizsmith.bank import DEFAULT_THRESHOLD, ItemBank
from quizsmith.errors import CancelledError
from quizsmith.jobs import CancelToken, run_to_end

from .helpers import fake_embed, mcq


def _stored_vectors(bank: ItemBank) -> dict[int, np.ndarray]:
    with bank.reading() as conn:
        return {
            r[0]: np.frombuffer(r[1], dtype=np.float32)
            for r in conn.execute("SELECT item_id, vector FROM item_embeddings")
        }


def test_add_with_dedupe_flags_a_near_copy_and_stores_vectors(bank: ItemBank) -> None:
    first = bank.add_item(mcq(), dedupe=True)
    other = bank.add_item(
        mcq("Which gas do plants absorb?", "Carbon dioxide", ["Oxygen"]), dedupe=True
    )
    copy = bank.add_item(mcq("What is the capital of France ?", "Paris"), dedupe=True)
    assert bank.get_item(first).flags == [] and bank.get_item(other).flags == []
    (flag,) = bank.get_item(copy).flags
    assert flag.code == "near-duplicate" and flag.metric == "dedupe" and f"#{first}" in flag.message
    vectors = _stored_vectors(bank)
    assert set(vectors) == {first, other, copy}
    assert all(abs(np.linalg.norm(v) - 1.0) < 1e-5 for v in vectors.values())


def test_near_duplicates_returns_close_items_closest_first(bank: ItemBank) -> None:
    a = bank.add_item(mcq("What is the capital city of France?", "Paris"))
    b = bank.add_item(mcq("What is the capital of France?", "Paris"))
    bank.add_item(mcq("Which gas do plants absorb?", "Carbon dioxide", ["Oxygen"]))
    probe = mcq("What is the capital of France?", "Paris")
    found = bank.near_duplicates(probe, threshold=0.8)
    assert [m.item_id for m in found] == [b, a]
    assert (
        found[0].similarity == pytest.approx(1.0, abs=1e-5)
        and found[0].similarity > found[1].similarity
    )
    assert found[0].stem == "What is the capital of France?"
    # an item in the bank is not its own duplicate
    assert [m.item_id for m in bank.near_duplicates(bank.get_item(b), threshold=0.8)] == [a]
    assert bank.near_duplicates("Completely unrelated words here") == []


def test_items_imported_without_vectors_are_embedded_when_needed(bank: ItemBank) -> None:
    ids = bank.add_items([mcq(stem=f"Question about topic {n}?", key=f"Key{n}") for n in range(70)])
    assert _stored_vectors(bank) == {}
    found = bank.near_duplicates(mcq(stem="Question about topic 5?", key="Key5"))
    assert found and found[0].item_id == ids[5]
    assert set(_stored_vectors(bank)) == set(ids)


def test_editing_an_item_invalidates_its_vector(bank: ItemBank) -> None:
    item_id = bank.add_item(mcq(), dedupe=True)
    item = bank.get_item(item_id)
    item.stem, item.key = "Which planet is largest?", "Jupiter"
    item.options = item.make_options("Jupiter", ["Mars", "Venus"])
    bank.update_item(item)
    assert _stored_vectors(bank) == {}
    assert bank.near_duplicates(mcq()) == []
    assert [
        m.item_id for m in bank.near_duplicates(mcq("Which planet is largest?", "Jupiter"))
    ] == [item_id]


def test_embedding_job_reports_progress_and_can_be_cancelled(bank: ItemBank) -> None:
    bank.add_items([mcq(stem=f"Question {n}?", key=f"K{n}") for n in range(10)])
    token = CancelToken()
    job = bank.embed_missing(token, batch=4)
    first = next(job)
    assert (first.done, first.total) == (4, 10)
    token.cancel()
    with pytest.raises(CancelledError):
        next(job)
    assert len(_stored_vectors(bank)) == 4  # the finished batch is kept
    events, done = run_to_end(bank.embed_missing(batch=4))
    assert done == 6 and [e.done for e in events] == [4, 6]


def test_vectors_of_another_model_are_not_compared(bank_path: Path) -> None:
    with ItemBank(bank_path, embed=fake_embed, embed_model="model-a") as bank:
        bank.add_item(mcq(), dedupe=True)

    def other_model(texts: Sequence[str]) -> list[list[float]]:
        return [[1.0, 0.0, 0.0] for _ in texts]

    with ItemBank(bank_path, embed=other_model, embed_model="model-b") as bank:
        # the old vector (model-a, 64-d) is replaced, not mixed with 3-d ones
        assert [m.item_id for m in bank.near_duplicates("anything")] == [1]
        with bank.reading() as conn:
            assert conn.execute("SELECT model, dim FROM item_embeddings").fetchall() == [
                ("model-b", 3)
            ]


@pytest.mark.slow
def test_real_minilm_flags_a_paraphrase_and_not_an_unrelated_item(bank_path: Path) -> None:
    """With the bundled all-MiniLM-L6-v2 (loaded lazily by the bank through
    provider_for_role("embeddings")), a reworded question is caught at the default
    threshold and unrelated questions, or the same frame about another fact, are not."""
    from quizsmith.providers import provider_for_role

    provider = provider_for_role("embeddings")
    with ItemBank(bank_path) as bank:
        original = bank.add_item(mcq("What is the capital of France?", "Paris"), dedupe=True)
        bank.add_item(
            mcq("Which gas do plants absorb during photosynthesis?", "Carbon dioxide", ["Oxygen"]),
            dedupe=True,
        )
        paraphrase = mcq("Which city is the capital of France?", "Paris")
        unrelated = mcq("How many legs does a spider have?", "Eight", ["Six", "Ten"])
        same_frame = mcq("What is the capital of Spain?", "Madrid", ["Seville", "Valencia"])
        found = bank.find_near_duplicates([paraphrase, unrelated, same_frame])
        assert [m.item_id for m in found[0]] == [original]
        assert found[0][0].similarity >= DEFAULT_THRESHOLD
        assert found[1] == [] and found[2] == []
        new_id = bank.add_item(paraphrase, dedupe=True)
        assert [f.code for f in bank.get_item(new_id).flags] == ["near-duplicate"]
        with bank.reading() as conn:
            model = conn.execute("SELECT DISTINCT model FROM item_embeddings").fetchall()
        assert model == [(provider.info.label(),)]
