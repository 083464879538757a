"""Where the rule-made question (rule_questions.wh_question) joins a target's candidates: second for
a few-shot generator, only as a stand-in for a chat generator (issue 26: on the standard
profile the ranking kept the rule's often ungrammatical questions over the 1.5B model's).

The generator is scripted (this is the builder's control flow, not a model's quality); the
real models write items in test_pipeline.py and tests/test_standard_profile.py.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, ClassVar

from tests.support.build_contexts import build_context

from quizsmith.generation import prompts
from quizsmith.generation.builder import RULE_METHOD, TOGETHER, BuildContext, build_candidates
from quizsmith.generation.target import Target
from quizsmith.providers.base import (
    ChatResult,
    Fixed,
    Message,
    ModelInfo,
    Provider,
    Reusable,
    Transient,
)

FACT = "The library was completed in 1963 after ten years of work."
RULE_STEM = "In what year was the library completed after ten years of work?"


class ScriptedWriter(Provider):
    """Answers each stem request with the next scripted question (chat JSON or completion)."""

    name: ClassVar[str] = "scripted"
    can_chat = True
    is_local = False

    def __init__(self, questions: list[str | tuple[str, str]]):
        self.questions = list(questions)
        self.calls = 0
        self.asked: list[str] = []  # each chat request's last message
        self.heads: list[Reusable] = []  # each chat request's reusable heads

    @property
    def info(self) -> ModelInfo:
        return ModelInfo(self.name, "scripted-writer")

    def _next(self) -> str:
        self.calls += 1
        question = self.questions.pop(0)
        return question if isinstance(question, str) else question[0]

    def chat(
        self,
        messages: Sequence[Message | dict[str, str]],
        *,
        max_tokens: int = 256,
        temperature: float = 0.0,
        seed: int | None = None,
        stop: Sequence[str] = (),
        json_schema: dict[str, Any] | None = None,
        reuse_prefix: Reusable = "",
    ) -> ChatResult:
        last = messages[-1]
        self.asked.append(last["content"] if isinstance(last, dict) else last.content)
        self.heads.append(reuse_prefix)
        if json_schema == prompts.QUESTION_ANSWER_SCHEMA:
            # A (question, answer) pair scripted for it; a bare question has no answer.
            pair = self.questions[0]
            answer = pair[1] if isinstance(pair, tuple) else ""
            data = {"question": self._next(), "answer": answer}
        else:
            data = {"question": self._next()}
        return ChatResult(text=json.dumps(data), model="scripted-writer", data=data)

    def complete(
        self,
        prompt: str,
        *,
        max_tokens: int = 256,
        temperature: float = 0.0,
        seed: int | None = None,
        stop: Sequence[str] = (),
        json_schema: dict[str, Any] | None = None,
        reuse_prefix: Reusable = "",
    ) -> ChatResult:
        return ChatResult(text=self._next(), model="scripted-writer")


def target() -> Target:
    return Target(FACT, 0, "1963", FACT.index("1963"), "year", 0, 1.0)


def short_candidates(
    profile: str, questions: list[str], k: int = 3, about: Target | None = None
) -> tuple[list[str], Any]:
    """The short-answer candidates for `about` (default: the library's year) and, beside
    them, each one's stem method and how many questions the scripted writer was asked."""
    about = about or target()
    writer = ScriptedWriter(questions)
    ctx = build_context(about.fact, writer, profile=profile)
    built = build_candidates(about, "short", k, ctx)
    methods = [c.provenance["stem_method"] for c in built.candidates]
    return [c.stem for c in built.candidates], (methods, writer.calls)


def test_a_chat_generator_writes_every_candidate() -> None:
    # The first call writes the question with its own answer, the others ask for the key.
    together = ("When was the library completed?", "1963")
    asked = ["In which year was the library finished?", "What year saw it completed?"]
    stems, (methods, calls) = short_candidates("chat", [together, *asked])
    assert stems == [together[0], *asked]
    assert methods == [TOGETHER, "model", "model"] and calls == 3
    assert RULE_STEM not in stems


ARCHITECT_FACT = "The library was completed in 1963 by the architect Alvar Aalto."


def architect_context(
    writer: ScriptedWriter, made: set[str] | None = None, text: str = ARCHITECT_FACT
) -> BuildContext:
    """A chat generator's run on the architect's fact (or on `text`)."""
    return build_context(text, writer, made_keys=made or set())


def architect_target(answer: str, kind: Any) -> Target:
    return Target(ARCHITECT_FACT, 0, answer, ARCHITECT_FACT.index(answer), kind, 0, 1.0)


def keys_and_notes(
    questions: list[str | tuple[str, str]], made: set[str] | None = None
) -> tuple[list[str], list[str]]:
    ctx = architect_context(ScriptedWriter(questions), made)
    built = build_candidates(architect_target("1963", "date"), "short", 2, ctx)
    return [c.key for c in built.candidates], built.notes


def test_the_key_follows_the_answer_the_model_wrote_with_its_question() -> None:
    # The model asked for another whole constituent of the fact: the key follows it, and the
    # next attempt asks for that key too.
    keys, notes = keys_and_notes(
        [("Which architect completed the library?", "Alvar Aalto"), "Who designed it?"]
    )
    assert keys == ["Alvar Aalto", "Alvar Aalto"]
    assert any("the key follows it" in n for n in notes)


def test_an_answer_that_is_no_whole_phrase_of_the_fact_drops_the_question() -> None:
    # A cut through the clause is no constituent: the question goes, the target stays.
    keys, notes = keys_and_notes(
        [("What happened to the library?", "completed in 1963 after"), "When was it completed?"]
    )
    assert keys == ["1963"]
    assert "no phrase of the fact" in notes[0]


def test_a_key_already_made_is_not_followed() -> None:
    keys, notes = keys_and_notes(
        [("Which architect completed it?", "Alvar Aalto"), "When was it completed?"],
        {"alvar aalto"},
    )
    assert keys == ["1963"]
    assert "an earlier item's key" in notes[0]


def test_a_facts_question_with_its_own_answer_is_written_once() -> None:
    """Its prompt is the fact alone, so each target of one sentence got the same reply: on
    the bench's water cycle passage, 30 calls were 8 prompts. The second target of the
    sentence reads the first one's question, whose answer is now an item's key."""
    writer = ScriptedWriter(
        [("Which architect completed the library?", "Alvar Aalto"), ("Again?", "1963")]
    )
    ctx = architect_context(writer)
    first = build_candidates(architect_target("1963", "date"), "short", 1, ctx)
    assert [c.key for c in first.candidates] == ["Alvar Aalto"] and writer.calls == 1
    ctx.made_keys.add("alvar aalto")
    second = build_candidates(architect_target("Alvar Aalto", "entity"), "short", 1, ctx)
    assert second.candidates == [] and writer.calls == 1
    assert "'Alvar Aalto' is an earlier item's key" in second.notes[0]


def test_no_rule_question_stands_in_when_every_chat_attempt_fails() -> None:
    # Too short, gives the answer away, not a question: all three are dropped, and the
    # fact gives no candidate (a spare fact is tried instead) rather than a rule-made stem.
    stems, (methods, calls) = short_candidates(
        "chat", ["Year?", "Was it 1963?", "The library was completed"]
    )
    assert stems == [] and methods == [] and calls == 3


def test_a_fewshot_generators_rule_question_is_its_only_candidate_where_it_passes() -> None:
    # The tiny models' own questions mostly asked for something else than the key: the
    # model is not asked at all.
    stems, (methods, calls) = short_candidates(
        "fewshot", ["When was the library completed?", "In which year was it finished?"]
    )
    assert stems == [RULE_STEM]
    assert methods == [RULE_METHOD] and calls == 0


def test_a_fewshot_generator_writes_where_the_rule_makes_no_question() -> None:
    # "the what fastest": no grammatical question, so the model's greedy and sampled ones.
    fact = "The cheetah is the fastest land animal."
    about = Target(fact, 0, "fastest", fact.index("fastest"), "phrase", 0, 1.0)
    asked = ["Which land animal is the fastest?", "What is the cheetah's top ranking?"]
    stems, (methods, calls) = short_candidates("fewshot", asked, about=about)
    assert methods == ["model"] * len(stems) and calls == 2
    assert stems and set(stems) <= set(asked)


def test_the_rule_question_leaves_out_a_web_pages_marks() -> None:
    """A fact pasted from a web page keeps its citation marks in the passage (offsets hold),
    but the question made from it shows none (7 of 60 light-profile bench items did)."""
    fact = "Estimates of its capacity range up to 3,000 people.[7] It burned down.[8]"
    fact = fact[: fact.index(" It")]
    answer_at = fact.index("3,000")
    about = Target(fact, 0, "3,000", answer_at, "number", 0, 1.0)
    stems, (methods, _) = short_candidates(
        "fewshot", ["How many people did it hold?", "How big was it?"], about=about
    )
    rule = [stem for stem, method in zip(stems, methods, strict=True) if method.startswith("rule")]
    assert rule == ["Up to how many people do estimates of its capacity range?"]


def test_an_answer_that_is_one_of_a_list_is_not_followed() -> None:
    # "snow" of "rain, snow and hail": the list's others answer the question too, so the
    # model's question goes and the fact's own target stays.
    fact = "In 1963 the clouds brought rain, snow and hail to the valley."
    writer = ScriptedWriter([("What fell from the clouds?", "snow"), "When did the clouds come?"])
    ctx = architect_context(writer, text=fact)
    target = Target(fact, 0, "1963", fact.index("1963"), "date", 0, 1.0)
    built = build_candidates(target, "short", 2, ctx)
    assert [c.key for c in built.candidates] == ["1963"]
    assert "'snow' is one of a list in its sentence" in built.notes[0]


def test_a_fact_that_points_back_is_asked_with_the_lines_before_it() -> None:
    # "It" alone: the model guessed what was closed (the bench's "Palace of Westminster" for
    # the second Globe); the sentence that names it now comes before the fact.
    text = (
        "The old hall burned down in 1921. A new hall was built on the same site in 1925. "
        "It was closed in 1988 when the town's theatre opened."
    )
    fact = "It was closed in 1988 when the town's theatre opened."
    writer = ScriptedWriter([("When was the new hall closed?", "1988")])
    ctx = architect_context(writer, text=text)
    target = Target(fact, text.index(fact), "1988", text.index("1988"), "date", 2, 1.0)
    built = build_candidates(target, "short", 1, ctx)
    assert [c.stem for c in built.candidates] == ["When was the new hall closed?"]
    asked = writer.asked[0]
    assert "A new hall was built on the same site in 1925." in asked
    assert "The old hall burned down" not in asked  # the nearest sentence that names it
    assert asked.index("A new hall") < asked.index(fact)
    # Lines this fact alone points back to: no state is kept for them, only the fixed head's.
    (fixed,) = writer.heads[0]
    assert isinstance(fixed, Fixed) and asked.startswith(fixed) and "1925" not in fixed


def test_the_answer_aware_pass_shows_the_lines_before_a_fact_that_points_back() -> None:
    # The second pass asks for the fact's own key (`BuildContext.answer_aware`): the model
    # needs what "It" means as much as when it picks the answer itself.
    text = "A new hall was built in 1925. It was closed in 1988 when the town's theatre opened."
    fact = "It was closed in 1988 when the town's theatre opened."
    writer = ScriptedWriter(["When was the new hall closed?"])
    ctx = architect_context(writer, text=text)
    ctx.answer_aware = True
    target = Target(fact, text.index(fact), "1988", text.index("1988"), "date", 1, 1.0)
    built = build_candidates(target, "short", 1, ctx)
    assert [c.stem for c in built.candidates] == ["When was the new hall closed?"]
    asked = writer.asked[0]
    assert "Answer: 1988" in asked
    assert asked.index("A new hall was built in 1925.") < asked.index(fact)


def test_a_fact_that_names_what_it_speaks_of_is_asked_after_the_passages_first_statement():
    # Not the sentences between: the first statement most often names what the passage is
    # about, which the question needs ("Who founded the dynasty?" named no dynasty).
    opening = "The Aalto Library is a public library in Viipuri."
    text = f"{opening} Work began in 1953. {ARCHITECT_FACT}"
    writer = ScriptedWriter(
        [("When was the Aalto Library completed?", "1963"), ("Where is it?", "Viipuri")]
    )
    ctx = architect_context(writer, text=text)
    at = text.index(ARCHITECT_FACT)
    target = Target(ARCHITECT_FACT, at, "1963", text.index("1963"), "date", 2, 1.0)
    built = build_candidates(target, "short", 1, ctx)
    assert [c.stem for c in built.candidates] == ["When was the Aalto Library completed?"]
    asked = writer.asked[0]
    assert "Work began" not in asked and asked.index(opening) < asked.index(ARCHITECT_FACT)
    # The first statement comes before most facts: the state up to it is kept with the
    # fixed head's, so a local model reads it once per passage.
    fixed, with_opening = writer.heads[0]
    assert isinstance(fixed, Fixed) and not isinstance(with_opening, Transient | Fixed)
    assert opening in with_opening and with_opening.endswith("The lines to ask about:\n")
    assert asked.startswith(with_opening) and with_opening.startswith(fixed)
    # The first statement itself is asked alone.
    first = Target(opening, 0, "Viipuri", text.index("Viipuri"), "entity", 0, 1.0)
    build_candidates(first, "short", 1, ctx)
    assert "Earlier lines" not in writer.asked[1]


def test_the_answer_aware_pass_asks_after_the_passages_first_statement_too() -> None:
    # Alone, the second pass's questions left their subject unnamed as often as the first
    # pass's did ("In which year did John die?"): they read the first statement as well.
    opening = "The Aalto Library is a public library in Viipuri."
    text = f"{opening} Work began in 1953. {ARCHITECT_FACT}"
    writer = ScriptedWriter(["When was the Aalto Library completed?"])
    ctx = architect_context(writer, text=text)
    ctx.answer_aware = True
    at = text.index(ARCHITECT_FACT)
    target = Target(ARCHITECT_FACT, at, "1963", text.index("1963"), "date", 2, 1.0)
    built = build_candidates(target, "short", 1, ctx)
    assert [c.stem for c in built.candidates] == ["When was the Aalto Library completed?"]
    asked = writer.asked[0]
    assert "Answer: 1963" in asked and "Work began" not in asked
    assert asked.index(opening) < asked.index(ARCHITECT_FACT)
    # Its state is kept with the fixed head's; the whole request serves the next attempts.
    fixed, with_opening, whole = writer.heads[0]
    assert isinstance(fixed, Fixed) and opening in with_opening
    assert not isinstance(with_opening, Transient) and isinstance(whole, Transient)


def test_one_candidate_asked_for_is_the_models_where_the_rule_makes_none() -> None:
    # The rule costs no call, so `--candidates 1` still gets the model's question.
    fact = "The cheetah is the fastest land animal."
    about = Target(fact, 0, "fastest", fact.index("fastest"), "phrase", 0, 1.0)
    asked = "What is the cheetah's top ranking among land animals?"
    stems, (methods, calls) = short_candidates("fewshot", [asked], k=1, about=about)
    assert stems == [asked] and methods == ["model"] and calls == 1
    # Where the rule makes one, it is the one candidate and the model is not asked.
    stems, (methods, calls) = short_candidates("fewshot", ["When?"], k=1)
    assert stems == [RULE_STEM] and calls == 0
