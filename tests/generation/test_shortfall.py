"""The shortfall message: why fewer items came than asked, one reason per fact that gave
none, in the order tried (a pinned answer first), so the teacher sees why the answer they
pinned gave nothing even when many spare facts were tried after it."""

from __future__ import annotations

from typing import Any

from quizsmith.generation.pipeline import SHORTFALL_FACTS, _shortfall


def test_each_fact_that_gave_none_is_named_with_its_last_reason_pinned_first() -> None:
    gave_none = {
        "Creon": "too few good wrong answers for \u201cWho ...?\u201d (0 of the 3 needed passed "
        "the checks)",
        "conscience": "question 3 dropped: the question gives away the answer",
    }
    dropped = [
        "'Creon': question 3 dropped: the question gives away the answer",
        "'Creon': too few good wrong answers for \u201cWho ...?\u201d (0 of the 3 needed passed "
        "the checks)",
        "'conscience': question 1 dropped: the question gives away the answer",
        "'conscience': question 3 dropped: the question gives away the answer",
    ]
    message = _shortfall(0, 1, 2, gave_none, dropped, "Try a longer passage.")
    assert message.startswith("Only 0 of 1 items could be made from 2 candidate facts")
    assert (
        "why each fact gave none: \u201cCreon\u201d: too few good wrong answers for \u201cWho "
        "...?\u201d (0 of the 3 needed passed the checks); \u201cconscience\u201d: question 3 "
        "dropped" in message
    )
    assert message.endswith("Try a longer passage.")


def test_many_facts_are_counted_beyond_the_named_ones() -> None:
    gave_none = {f"fact {i}": "no candidate" for i in range(SHORTFALL_FACTS + 3)}
    message = _shortfall(2, 5, 10, gave_none, [], "")
    assert "\u201cfact 0\u201d: no candidate" in message
    assert f"\u201cfact {SHORTFALL_FACTS}\u201d" not in message
    assert "; and 3 more)" in message


def test_without_a_fact_that_gave_none_the_last_notes_or_the_facts_running_out() -> None:
    # Items set aside as rated low still filled the quiz: the notes say what happened.
    notes = ["a", "b", "c", "d"]
    assert "(last reasons: b; c; d)" in _shortfall(3, 5, 3, {}, notes, "")
    assert "(no more facts to ask about)" in _shortfall(3, 5, 3, {}, [], "")


def test_a_one_item_quiz_tries_six_facts_before_it_gives_up(monkeypatch: Any) -> None:
    # Three facts for one light item left the sample passage's quiz empty for 3 of 6 seeds;
    # six made it for 8 of 8 (pipeline.FEWEST_TARGETS). A longer quiz keeps its spares.
    from quizsmith import paths
    from quizsmith.generation import pipeline, writer
    from quizsmith.generation.analysis import analyse
    from quizsmith.generation.api import GenerationRequest
    from quizsmith.jobs import CancelToken

    monkeypatch.setattr(writer, "propose_concepts", lambda *args, **kwargs: [])
    text = (paths.resources_dir() / "sample_passage.txt").read_text(encoding="utf-8")
    analysis = analyse(text)
    for n, tried in ((1, 6), (2, 6), (5, 15)):
        request = GenerationRequest(n=n, types=("mcq",))
        targets = pipeline._targets(analysis, request, None, "fewshot", CancelToken())
        assert len(targets) == tried
