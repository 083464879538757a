"""The broader-term check in the builder: for a key that is a phrase, a wrong answer the key
is a kind of ("educational institutions" for "private schools") is dropped as right too,
asked of a QA model that can tell kinds apart, with the question's head read once per target;
a QA model too small for chat prompts is not asked (names, numbers and dates are never asked:
tests/generation/test_distractors.py).

Scripted models (the builder's control flow, not a model's quality); the real 1.5B model's
readings are checked in tests/test_standard_profile.py.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, ClassVar

from quizsmith.domain import Passage
from quizsmith.generation import prompts
from quizsmith.generation.builder import BuildContext, build_candidates
from quizsmith.generation.target_candidates import Target
from quizsmith.jobs import CancelToken
from quizsmith.providers.base import (
    ChatResult,
    Message,
    ModelInfo,
    OptionLogprob,
    Provider,
    Reusable,
)

FACT = "Academic Colleges Group is a group of private schools run as a business in Auckland."
STEM = "Which schools does the Academic Colleges Group run in Auckland?"
WRONG = ["public schools", "educational institutions", "state schools", "charter schools"]
#: Log-odds of Yes to "Is private schools a kind of X?" (the 1.5B model read +2.4 for the
#: broader term on the bench item this comes from, and below 0 for the others).
BROADER = {"public schools": -0.7, "educational institutions": 2.4}
BROADER |= {"state schools": -1.0, "charter schools": -0.9}


class ScriptedModel(Provider):
    """Writes the scripted question and wrong answers; on the source the key is preferred
    (nothing is 'also true'), every option equally plausible; "a kind of" answered from
    BROADER."""

    name: ClassVar[str] = "scripted"
    can_chat = True
    can_logprob = True
    is_local = False

    def __init__(self) -> None:
        self.broader_questions: list[tuple[str, Reusable]] = []

    @property
    def info(self) -> ModelInfo:
        return ModelInfo(self.name, "scripted-model")

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
        wanted = json_schema == prompts.DISTRACTOR_SCHEMA
        data: dict[str, Any] = {"wrong_answers": WRONG} if wanted else {"question": STEM}
        return ChatResult(text=json.dumps(data), model="scripted-model", data=data)

    def option_logprobs(
        self, prefix: str, options: Sequence[str], *, reuse_prefix: Reusable = ""
    ) -> list[OptionLogprob]:
        head = "Q: Is private schools a kind of "
        if prefix.startswith(head):
            self.broader_questions.append((prefix, reuse_prefix))
            yes = BROADER[prefix.removeprefix(head).split("?")[0]]
            return [OptionLogprob(" Yes", yes, yes, 1), OptionLogprob(" No", 0.0, 0.0, 1)]
        key_first = prefix.startswith(FACT)
        return [
            OptionLogprob(o, -1.0 if key_first and i == 0 else -5.0, -1.0, 1)
            for i, o in enumerate(options)
        ]


def _build(qa_knows_kinds: bool) -> tuple[list[str], ScriptedModel]:
    model = ScriptedModel()
    ctx = BuildContext(
        passage=Passage(text=FACT),
        generator=model,
        profile="chat",
        embed=None,
        qa=model,
        cancel=CancelToken(),
        difficulty=None,
        seed=0,
        qa_knows_kinds=qa_knows_kinds,
    )
    key = "private schools"
    target = Target(FACT, 0, key, FACT.index(key), "phrase", 0, 1.0)
    built = build_candidates(target, "mcq", 1, ctx)
    (item,) = built.candidates
    return [o.text for o in item.options if not o.is_key], model


def test_a_broader_term_is_dropped_and_the_next_wrong_answer_stands_in() -> None:
    options, model = _build(qa_knows_kinds=True)
    assert sorted(options) == ["charter schools", "public schools", "state schools"]
    asked = [prefix for prefix, _ in model.broader_questions]
    assert "Q: Is private schools a kind of educational institutions?\nA:" in asked
    # The head is the same for every candidate: read once, not kept after.
    assert {str(head) for _, head in model.broader_questions} == {"Q: Is private schools a kind of"}


def test_a_qa_model_that_cannot_tell_kinds_is_not_asked() -> None:
    options, model = _build(qa_knows_kinds=False)
    assert model.broader_questions == []
    assert "educational institutions" in options  # the sources' order stands
