"""The kind the QA model gives a common-noun key where no question names one
(`key_kinds.kind_of_key`), and the builder asking it of the wrong answers: "What did the critic
call the painters?" names no kind, and music labels stood among names of art movements.

Scripted models (the reply's reading and the builder's control flow); the real 1.5B model's
kinds are checked in tests/test_standard_profile.py.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import pytest
from tests.generation.test_kind_check_in_builder import Script, ScriptedModel, _context, _target

from quizsmith.errors import CapabilityError
from quizsmith.generation.builder import build_candidates
from quizsmith.generation.key_kinds import KIND_PROMPT, kind_of_key, said_kind
from quizsmith.providers.base import ChatResult, OptionLogprob, Provider, Reusable


class Replies(Provider):
    """Completes the kind prompt with a fixed reply, answers "Is <key> a <kind>?" with a
    fixed log-odds of Yes, and records what it was asked."""

    name: ClassVar[str] = "replies"
    can_complete = True
    can_logprob = True

    def __init__(self, reply: str, key_says_yes: float = 1.0) -> None:
        self.reply = reply
        self.key_says_yes = key_says_yes
        self.prompts: list[tuple[str, Reusable]] = []
        self.asked: list[str] = []

    def complete(self, prompt: str, **kwargs: Any) -> ChatResult:
        self.prompts.append((prompt, kwargs.get("reuse_prefix", "")))
        return ChatResult(text=self.reply, model="replies")

    def option_logprobs(
        self, prefix: str, options: Sequence[str], *, reuse_prefix: Reusable = ""
    ) -> list[OptionLogprob]:
        self.asked.append(prefix)
        yes = self.key_says_yes
        return [OptionLogprob(" Yes", yes, yes, 1), OptionLogprob(" No", 0.0, 0.0, 1)]


@pytest.mark.parametrize(
    ("reply", "kind"),
    [
        (" movement", "movement"),
        (" An art movement.", "art movement"),
        ("  Poetic   meter ", "poetic meter"),
        (" term", None),  # any phrase is a term: it asks nothing
        (" the name", None),
        (" year", None),  # a time: the form checks read those
        (" sonnet", None),  # the key's own word
        ("", None),
        (" 1870s", None),
        (" a group of painters who exhibited together", None),  # no kind, a description
    ],
)
def test_the_reply_is_read_as_a_kind_or_none(reply: str, kind: str | None) -> None:
    model = Replies(reply)
    assert said_kind(model, "What did the critic call them?", "Petrarchan sonnet") == kind


def test_a_kind_the_model_does_not_affirm_of_the_key_is_not_used() -> None:
    question = "Where do the monks live?"
    doubted = Replies(" monastery", key_says_yes=-1.2)
    assert kind_of_key(doubted, question, "small rooms") is None
    assert doubted.asked == ["Q: Is small rooms a monastery?\nA:"]
    assert kind_of_key(Replies(" room", key_says_yes=0.4), question, "small rooms") == "room"


def test_the_prompt_ends_with_the_question_and_key_and_reuses_the_examples() -> None:
    model = Replies(" meter")
    assert kind_of_key(model, "What is the meter of the poem?", "iambic pentameter") == "meter"
    ((prompt, reuse),) = model.prompts
    assert prompt.startswith(KIND_PROMPT) and reuse == KIND_PROMPT
    end = "Question: What is the meter of the poem?\nAnswer: iambic pentameter\nKind:"
    assert prompt.endswith(end)


class ChatOnly(Replies):
    """A server that says it completes prompts and answers that it cannot."""

    def complete(self, prompt: str, **kwargs: Any) -> ChatResult:
        raise CapabilityError("This server serves chat only.", "Use a completion model.")


def test_a_server_that_turns_the_completion_down_gives_no_kind() -> None:
    assert kind_of_key(ChatOnly(" movement"), "What did they call them?", "Impressionists") is None


def test_a_model_that_cannot_complete_is_not_asked() -> None:
    model = Replies(" movement")
    model.can_complete = False  # type: ignore[misc]
    assert kind_of_key(model, "What did the critic call them?", "Impressionists") is None
    assert model.prompts == []


CRITIC_FACT = "A critic called the painters of the show Impressionists, and the name stuck."
CRITIC = Script(
    CRITIC_FACT,
    ["What did the critic call the painters of the show?"],
    ["Punk", "Dadaists", "Jazz", "Surrealists", "Cubists"],
    {f"Q: Is {name} a movement?": 2.0 for name in ["Impressionists", "Dadaists", "Cubists"]}
    | {"Q: Is Surrealists a movement?": 1.2}
    | {f"Q: Is {name} a movement?": -2.5 for name in ["Punk", "Jazz"]},
)


class KindTeller(ScriptedModel):
    """The builder's scripted model, which also completes the kind prompt."""

    can_complete = True

    def __init__(self, script: Script, kind: str) -> None:
        super().__init__(script)
        self.kind = kind
        self.kind_prompts: list[str] = []

    def complete(self, prompt: str, **kwargs: Any) -> ChatResult:
        self.kind_prompts.append(prompt)
        return ChatResult(text=f" {self.kind}", model="scripted-model")


def _build(model: KindTeller, key: str, qa_knows_kinds: bool = True) -> list[list[str]]:
    ctx = _context(model, model.script.fact, qa=model, qa_knows_kinds=qa_knows_kinds)
    target = _target(model.script.fact, key, "phrase")
    built = build_candidates(target, "mcq", len(model.script.stems) + 1, ctx)
    return [[o.text for o in c.options if not o.is_key] for c in built.candidates]


def test_a_common_noun_keys_kind_is_asked_of_its_wrong_answers() -> None:
    model = KindTeller(CRITIC, "movement")
    (wrong,) = _build(model, "Impressionists")
    assert "Punk" not in wrong and "Jazz" not in wrong
    assert sorted(wrong) == ["Cubists", "Dadaists", "Surrealists"]
    assert "Q: Is Punk a movement?\nA:" in model.kind_questions
    assert len(model.kind_prompts) == 1
    # The generator is told the kind, as for a kind a question names.
    assert "The question asks for a movement" in model.distractor_requests[0]


def test_no_kind_is_asked_where_the_model_gives_none() -> None:
    model = KindTeller(CRITIC, "term")
    (wrong,) = _build(model, "Impressionists")
    assert "Punk" in wrong  # nothing checks the kind: the sources' order stands
    assert not any(q.endswith(" a term?\nA:") for q in model.kind_questions)


def test_a_qa_model_that_cannot_tell_kinds_is_not_asked_for_one() -> None:
    model = KindTeller(CRITIC, "movement")
    _build(model, "Impressionists", qa_knows_kinds=False)
    assert model.kind_prompts == []


def test_a_false_statements_blank_is_not_given_a_kind() -> None:
    """The true/false builder reads wrong answers for "Complete: ..." (no question): the kind
    was measured on questions only, so none is asked there."""
    from quizsmith.generation.wrong_answer_sets import wrong_answers

    model = KindTeller(CRITIC, "movement")
    ctx = _context(model, CRITIC_FACT, qa=model, qa_knows_kinds=True)
    target = _target(CRITIC_FACT, "Impressionists", "phrase")
    wrong_answers(f"Complete: {CRITIC_FACT.replace('Impressionists', '_____')}", target, ctx, 0)
    assert model.kind_prompts == []
    wrong_answers("What did the critic call the painters of the show?", target, ctx, 0)
    assert len(model.kind_prompts) == 1


def test_a_lone_questions_second_set_does_not_ask_the_kind_again() -> None:
    """Too few wrong answers pass the first time, so the builder asks the generator again
    (another seed) for the same question: the key's kind is asked once."""
    few = Script(CRITIC.fact, CRITIC.stems, ["Punk", "Dadaists"], CRITIC.says_yes)
    model = KindTeller(few, "movement")
    ctx = _context(model, few.fact, qa=model, qa_knows_kinds=True)
    build_candidates(_target(few.fact, "Impressionists", "phrase"), "mcq", 2, ctx)
    assert len(model.distractor_requests) == 2  # the second set was asked for
    assert len(model.kind_prompts) == 1
