"""Generating into the bank: continuing a stopped batch, the keeper the desktop app uses,
and a real run on the bundled models."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.support.texts import WAR

from quizsmith.bank.errors import BankError
from quizsmith.bank.store import ItemBank
from quizsmith.domain import Passage
from quizsmith.generation import GenerationRequest
from quizsmith.generation.keeper import ItemKeeper
from quizsmith.jobs import CancelToken, run_to_end
from quizsmith.operations.generate import GeneratedBatch, continue_batch, generate_into_bank
from quizsmith.settings import Settings

from .conftest import PASSAGE, mcq


def test_a_rerun_asks_only_for_what_is_missing(bank: ItemBank, sample: dict[str, int]) -> None:
    request = GenerationRequest(n=5)
    left, done = continue_batch(bank, sample["passage"], request)
    assert done == 3 and left is not None and left.n == 2
    assert set(left.avoid_answers) == {"In the chloroplasts", "Oxygen", "Carbon dioxide"}
    assert len(left.avoid_stems) == 4  # the three questions and the kept alternative
    assert continue_batch(bank, sample["passage"], GenerationRequest(n=3)) == (None, 3)
    fresh = bank.add_passage(Passage(text="Rivers carry water to the sea.", title="Rivers"))
    assert continue_batch(bank, fresh, request) == (request, 0)


def test_the_desktop_keeper_raises_where_the_cli_keeper_rescues(
    tmp_path: Path, sample: dict[str, int], bank: ItemBank
) -> None:
    bank.close()
    with ItemBank(bank.path, read_only=True) as read_only:
        item = mcq("Which gas do plants absorb?", "Carbon dioxide", ["Oxygen", "Neon"])
        with pytest.raises(BankError, match="read-only"):
            ItemKeeper(read_only, None, rescue=False).keep(item)
        cli = ItemKeeper(read_only, None)
        cli.keep(item)
        assert cli.unsaved == [item] and cli.rescue_path is not None
        assert cli.rescue_path.is_file()


@pytest.mark.slow
def test_generated_items_reach_the_bank_as_they_are_made(bank: ItemBank, tmp_path: Path) -> None:
    passage = Passage(text=PASSAGE, title="Photosynthesis", subject="Biology")
    passage.id = bank.add_passage(passage)
    request = GenerationRequest(n=2, types=("cloze",), rank=False, candidates_per_target=1)
    out = tmp_path / "items.jsonl"
    keeper = ItemKeeper(bank, out)
    events, batch = run_to_end(
        generate_into_bank(passage, request, Settings(n_threads=1), CancelToken(), keeper)
    )
    assert isinstance(batch, GeneratedBatch) and not batch.cancelled
    stored = [e.payload for e in events if e.payload is not None]
    assert stored == batch.items and 1 <= len(stored) <= 2
    assert all(it.id is not None and it.passage_id == passage.id for it in stored)
    assert batch.changes.created == tuple(it.id for it in stored)
    assert batch.changes.items == set(batch.changes.created)
    assert [it.id for it in bank.items_of_passage(passage.id)] == list(batch.changes.created)
    assert len(out.read_text(encoding="utf-8").splitlines()) == len(stored)


def test_the_desktop_generate_job_reads_the_banks_expected_complexity(
    bank: ItemBank, sample: dict[str, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """NACo's expected step count comes from the bank's accepted items, in the app as in the
    CLI (it was left out of the app's generate job)."""
    from quizsmith.operations import jobs

    seen: dict[str, object] = {}

    def fake_generate(*args: object, **kwargs: object):  # type: ignore[no-untyped-def]
        seen.update(kwargs)
        seen["request"] = args[1]
        return GeneratedBatch([])
        yield  # a generator, as the real one

    monkeypatch.setattr(jobs, "generate_into_bank", fake_generate)
    monkeypatch.setattr(jobs, "prepare_models", lambda settings: None)
    passage = bank.get_passage(sample["passage"])
    run_to_end(jobs.generate_job(bank, passage, GenerationRequest(n=1), Settings())(CancelToken()))
    assert seen["expected_complexity"] == bank.expected_complexity
    # Generate pressed on a passage with items writes new ones (issue 27).
    request = seen["request"]
    assert isinstance(request, GenerationRequest) and request.n == 1
    assert "Which gas do plants release?" in request.avoid_stems


def test_generate_again_avoids_every_question_the_bank_has_for_the_passage(
    bank: ItemBank, sample: dict[str, int]
) -> None:
    """Issue 27: a second run reproduced the first three questions word for word, a
    rejected one among them."""
    from quizsmith.operations.generate import new_questions_request

    bank.review(sample["release"], "reject", "Too easy")
    request = GenerationRequest(n=3, seed=5)
    again = new_questions_request(bank, sample["passage"], request)
    assert again.n == 3  # three new items, not "what is missing"
    assert set(again.avoid_stems) == {
        "Where in the plant cell does photosynthesis take place?",
        "Which gas do plants release?",  # rejected, still never written again
        "What do plants take in besides water?",
        "Which gas do plants absorb?",  # a kept alternative
    }
    assert set(again.asked_answers) == {"In the chloroplasts", "Oxygen", "Carbon dioxide"}
    assert again.avoid_answers == ()  # asked answers come last, they are not forbidden
    assert again.seed != request.seed
    fresh = bank.add_passage(Passage(text="Rivers carry water to the sea.", title="Rivers"))
    assert new_questions_request(bank, fresh, request) == request
    assert new_questions_request(bank, None, request) == request


@pytest.mark.slow
def test_generate_again_on_the_bundled_models_writes_new_questions(bank: ItemBank) -> None:
    """Issue 27, end to end: a second run on the same passage, after the teacher rejected
    one of the first run's items, asks about other facts and repeats no question."""
    from quizsmith.operations.generate import new_questions_request

    passage = Passage(text=WAR, title="The causes of World War I", subject="History")
    passage.id = bank.add_passage(passage)
    request = GenerationRequest(n=2, types=("cloze",), rank=False, candidates_per_target=1)
    settings = Settings(n_threads=1)

    def run(req: GenerationRequest) -> tuple[list[str], GeneratedBatch]:
        keeper = ItemKeeper(bank, None, rescue=False)
        events, batch = run_to_end(
            generate_into_bank(passage, req, settings, CancelToken(), keeper)
        )
        return [e.message for e in events], batch

    messages, first = run(request)
    assert len(first.items) == 2, first.shortfall
    # Each slow step before the first item says what it is.
    assert any(m.startswith("Loading the question-writing model (") for m in messages)
    assert any(m.startswith("Finding facts to ask about") for m in messages)
    bank.review(first.items[0].id, "reject", "Too easy")

    _, second = run(new_questions_request(bank, passage.id, request))
    assert len(second.items) == 2, second.shortfall
    asked = {it.stem for it in first.items}
    assert not asked & {it.stem for it in second.items}
    assert not {it.target_fact for it in first.items} & {it.target_fact for it in second.items}
    assert len(bank.items_of_passage(passage.id)) == 4
