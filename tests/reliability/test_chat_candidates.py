"""A chat generator's default: one candidate per fact and no key-concept call (issue 44's
speed target); a number named by the request still decides (GenerationRequest)."""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable
from typing import Any

import pytest

from quizsmith.domain import Passage
from quizsmith.generation import GenerationRequest, generate_items
from quizsmith.generation.api import CHAT_CANDIDATES, FEWSHOT_CANDIDATES
from quizsmith.jobs import CancelToken, run_to_end
from quizsmith.providers.base import ChatResult, Provider
from quizsmith.settings import Settings

from .conftest import QuickGenerator

PASSAGE = Passage(
    text=(
        "The Atacama Desert lies in northern Chile. Most of it gets less than 15 millimetres "
        "of rain a year. The first weather station there opened in 1905."
    ),
    title="Atacama",
)


class CountingGenerator(QuickGenerator):
    """QuickGenerator that also counts the key-concept requests it gets."""

    def __init__(self, stem: Callable[[], str]) -> None:
        super().__init__(stem)
        self.concepts_asked = 0

    def chat(
        self, messages: Any, *, json_schema: dict[str, Any] | None = None, **kw: Any
    ) -> ChatResult:  # type: ignore[override]
        if json_schema is not None and "key_terms" in json_schema.get("properties", {}):
            self.concepts_asked += 1
        return super().chat(messages, json_schema=json_schema, **kw)


def _stems() -> Callable[[], str]:
    numbers = itertools.count(1)
    return lambda: f"What is the answer to quiz question number {next(numbers)}?"


def test_the_request_default_follows_the_profile_and_a_named_number_wins() -> None:
    assert GenerationRequest().candidates_per_target is None
    assert GenerationRequest().candidates_for("chat") == CHAT_CANDIDATES == 1
    assert GenerationRequest().candidates_for("fewshot") == FEWSHOT_CANDIDATES == 3
    assert GenerationRequest(candidates_per_target=2).candidates_for("chat") == 2
    with pytest.raises(ValueError, match="between 1 and 10"):
        GenerationRequest(candidates_per_target=0)


def test_a_chat_generator_writes_one_question_per_fact_and_is_not_asked_for_concepts(
    quick_generation: Callable[[Provider], None],
) -> None:
    generator = CountingGenerator(_stems())
    quick_generation(generator)
    request = GenerationRequest(n=2, types=("short",), rank=False)
    _, result = run_to_end(
        generate_items(PASSAGE, request, settings=Settings(n_threads=1), cancel=CancelToken())
    )
    assert len(result.items) == 2, result.dropped
    assert generator.concepts_asked == 0
    # One question per item, written with its own answer: no answer-aware one after it.
    assert generator.stems_asked == 2
    assert all(not item.alternatives for item in result.items)


class TwoSetGenerator(CountingGenerator):
    """Answers the wrong-answer prompt with `sets` in turn (the sampled sets of one model)."""

    def __init__(self, stem: Callable[[], str], sets: list[list[str]]) -> None:
        super().__init__(stem)
        self.sets = sets
        self.seeds: list[int] = []

    def chat(
        self, messages: Any, *, json_schema: dict[str, Any] | None = None, **kw: Any
    ) -> ChatResult:  # type: ignore[override]
        if json_schema is not None and "wrong_answers" in json_schema.get("properties", {}):
            self.seeds.append(int(kw.get("seed", -1)))
            wrong = self.sets[min(len(self.seeds), len(self.sets)) - 1]
            data = {"wrong_answers": wrong}
            return ChatResult(json.dumps(data), "quick-generator", data=data)
        return super().chat(messages, json_schema=json_schema, **kw)


def test_a_lone_question_gets_a_second_set_of_wrong_answers_and_keeps_the_first_sets(
    quick_generation: Callable[[Provider], None],
) -> None:
    passage = Passage(text="The Atacama Desert is the driest desert on Earth.", title="A")
    generator = TwoSetGenerator(
        lambda: "Which desert is the driest on Earth?",
        [["Gobi Desert"], ["Sahara Desert", "Kalahari Desert", "Mojave Desert"]],
    )
    quick_generation(generator)
    request = GenerationRequest(n=1, types=("mcq",), rank=False, pinned_answers=("Atacama Desert",))
    _, result = run_to_end(
        generate_items(passage, request, settings=Settings(n_threads=1), cancel=CancelToken())
    )
    assert len(result.items) == 1, result.dropped
    item = result.items[0]
    # Two sets, the second sampled with another seed; the first set's survivor comes first.
    assert len(generator.seeds) == 2 and generator.seeds[0] != generator.seeds[1]
    assert item.distractors[0] == "Gobi Desert"
    assert set(item.distractors[1:]) <= {"Sahara Desert", "Kalahari Desert", "Mojave Desert"}
    assert not any("too few good wrong answers" in note for note in result.dropped)


class NoPhraseGenerator(CountingGenerator):
    """Answers a question-with-answer prompt with a whole clause, no phrase of the fact (what
    the 1.5B model does for about half of all facts); records the kinds of question prompt."""

    def __init__(self) -> None:
        super().__init__(_stems())
        self.asked: list[str] = []

    def chat(
        self, messages: Any, *, json_schema: dict[str, Any] | None = None, **kw: Any
    ) -> ChatResult:  # type: ignore[override]
        properties = (json_schema or {}).get("properties", {})
        if "answer" in properties:
            self.asked.append("together")
            data = {"question": "Which place gets little rain?", "answer": "It says it rains."}
            return ChatResult(json.dumps(data), "quick-generator", data=data)
        if "question" in properties:
            self.asked.append("answer-aware")
        return super().chat(messages, json_schema=json_schema, **kw)


def test_facts_whose_question_has_no_phrase_for_an_answer_wait_for_the_spare_facts(
    quick_generation: Callable[[Provider], None],
) -> None:
    """With one candidate per fact (a chat generator's default), a question whose own answer
    is no phrase of the fact is dropped, and the fact is asked answer-aware (those read far
    worse, builder._questions) only after every other fact was tried, where the quiz is
    still short. A named number of candidates gets the answer-aware question at once."""
    generator = NoPhraseGenerator()
    quick_generation(generator)
    request = GenerationRequest(n=1, types=("short",), rank=False)
    _, result = run_to_end(
        generate_items(PASSAGE, request, settings=Settings(n_threads=1), cancel=CancelToken())
    )
    assert len(result.items) == 1 and result.shortfall is None
    # Six facts for the one item, where a few-shot generator would try three
    # (pipeline.CHAT_SPARE_TARGETS); a dropped fact costs one call per sentence (the
    # passage's three: a fact's question with its own answer is written once); then the
    # first of them, answer-aware.
    assert generator.asked == ["together"] * 3 + ["answer-aware"]
    assert any("is no phrase of the fact" in note for note in result.dropped)

    generator = NoPhraseGenerator()
    quick_generation(generator)
    request = GenerationRequest(n=1, types=("short",), rank=False, candidates_per_target=2)
    _, result = run_to_end(
        generate_items(PASSAGE, request, settings=Settings(n_threads=1), cancel=CancelToken())
    )
    assert len(result.items) == 1
    assert generator.asked == ["together", "answer-aware"]


def test_a_phrase_whose_question_has_no_phrase_for_an_answer_is_not_asked_again(
    quick_generation: Callable[[Provider], None],
) -> None:
    """The second pass asks only numbers, dates and names answer-aware: for a phrase or a
    term such questions read mostly bad (pipeline.ANSWER_AWARE_KINDS). A passage of phrases
    only ends short, saying why, and no answer-aware question is written."""
    generator = NoPhraseGenerator()
    quick_generation(generator)
    phrases = Passage(
        text="Rivers carry sand to the sea. Glaciers carve deep valleys. Strong winds move dust.",
        title="Land",
    )
    request = GenerationRequest(n=1, types=("short",), rank=False)
    _, result = run_to_end(
        generate_items(phrases, request, settings=Settings(n_threads=1), cancel=CancelToken())
    )
    assert result.items == [] and result.shortfall is not None
    assert generator.asked and set(generator.asked) == {"together"}
    assert any("not asked again for this answer" in note for note in result.dropped)
