"""True/false statements restated, not copied (issue 44, point 5): the parser's checks of a
restatement on hand-written pairs, and the builder's use of them with a scripted chat model
(its control flow; what the real 1.5B model writes is read in docs/generation.md)."""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from typing import Any, ClassVar

import pytest
from tests.support.build_contexts import build_context

from quizsmith.generation import prompts
from quizsmith.generation.builder import build_candidates
from quizsmith.generation.target import Target
from quizsmith.generation.true_false import (
    false_plan,
    restates,
    rewording_problem,
    shown_statement,
)
from quizsmith.providers.base import ChatResult, Message, ModelInfo, Provider, Reusable

FACT = "The Danube flows through ten countries before it reaches the Black Sea.[3]"
KEY = "ten countries"


@pytest.mark.parametrize(
    ("rewording", "drop", "problem"),
    [
        ("Before reaching the Black Sea, the Danube passes through ten countries.", None, ""),
        ("The Danube flows through ten countries before it reaches the Black Sea.", None, "copies"),
        ("The Danube reaches the Black Sea after a long journey.", None, "leaves out"),
        ("The Danube flows through ten countries before reaching the Black Sea.", None, "copies"),
        ("Before reaching the Black Sea, the Rhine passes through ten countries.", None, "name"),
        ("The Danube flows through ten countries and 2 cities to the Black Sea.", None, "adds"),
        ("The Danube does not flow through ten countries before the Black Sea.", None, "negated"),
        ("Does the Danube flow through ten countries before the Black Sea?", None, "question"),
        ("The text says the Danube crosses ten countries before the Black Sea.", None, "source"),
    ],
)
def test_a_restatement_keeps_the_statement_s_facts(
    rewording: str, drop: str | None, problem: str
) -> None:
    found = rewording_problem(shown_statement(FACT), rewording, keep=KEY, drop=drop)
    assert (problem in found) if problem else found == ""


def test_a_false_statement_s_restatement_never_brings_back_the_true_answer() -> None:
    false = "The Danube flows through four countries before it reaches the Black Sea."
    corrected = "Before it reaches the Black Sea the Danube flows through ten countries."
    kept = "Before it reaches the Black Sea the Danube flows through four countries."
    assert "brings back" in rewording_problem(false, corrected, keep="four countries", drop=KEY)
    assert rewording_problem(false, kept, keep="four countries", drop=KEY) == ""


def test_a_restatement_may_change_quotes_and_a_number_s_wording_not_its_figures() -> None:
    statement = "The Lord Chamberlain’s Men built it in about 1599 at a cost of 700 pounds."
    keep = "Lord Chamberlain’s Men"
    fine = "At a cost of 700 pounds, the Lord Chamberlain's Men built it around 1599."
    other_year = "At a cost of 700 pounds, the Lord Chamberlain's Men built it around 1600."
    assert rewording_problem(statement, fine, keep=keep, drop=None) == ""
    assert "'about 1599'" in rewording_problem(statement, other_year, keep=keep, drop=None)


def test_the_shown_statement_has_no_web_marks() -> None:
    assert shown_statement(FACT) == (
        "The Danube flows through ten countries before it reaches the Black Sea."
    )
    assert shown_statement("Mitochondria[12], the cell's power plants [a], make ATP.") == (
        "Mitochondria, the cell's power plants, make ATP."
    )


class Restater(Provider):
    """A chat model that restates every statement with the given text."""

    name: ClassVar[str] = "restater"
    can_chat = True
    can_logprob = False
    is_local = False

    def __init__(self, restatement: str) -> None:
        self.restatement = restatement
        self.asked: list[str] = []

    @property
    def info(self) -> ModelInfo:
        return ModelInfo(self.name, "restater")

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
        assert json_schema == prompts.REWORD_SCHEMA
        last = messages[-1]
        self.asked.append(last["content"] if isinstance(last, dict) else last.content)
        data = {"statement": self.restatement}
        return ChatResult(text=json.dumps(data), model="restater", data=data)


def _true_statement(model: Restater, profile: str) -> tuple[str, str, list[str]]:
    # A seed whose coin makes a true statement (the builder's fair coin per target).
    seed = next(s for s in range(100) if random.Random(s).random() >= 0.5)
    ctx = build_context(
        FACT,
        model,
        profile=profile,
        seed=seed,
        restates_statements=restates(profile, "my-own-7b.gguf"),
    )
    built = build_candidates(Target(FACT, 0, KEY, FACT.index(KEY), "entity", 0, 1.0), "tf", 1, ctx)
    (item,) = built.candidates
    assert item.key == "True"
    return item.stem, item.provenance["method"], built.notes


def test_a_chat_generator_s_true_statement_is_restated() -> None:
    model = Restater("Before reaching the Black Sea, the Danube passes through ten countries.")
    stem, method, notes = _true_statement(model, "chat")
    assert stem == model.restatement
    assert method == "restated by the model"
    assert notes == []
    # The model saw the statement without its citation mark's effect on the words.
    assert "ten countries before it reaches the Black Sea" in model.asked[0]


def test_a_restatement_that_fails_its_check_leaves_the_statement_without_web_marks() -> None:
    model = Restater("Before reaching the Black Sea, the Rhine passes through ten countries.")
    stem, method, notes = _true_statement(model, "chat")
    assert stem == "The Danube flows through ten countries before it reaches the Black Sea."
    assert method == "as the passage states it"
    assert len(notes) == 1 and "name or number" in notes[0]


def test_a_few_shot_generator_is_not_asked_to_restate() -> None:
    model = Restater("unused")
    stem, method, _ = _true_statement(model, "fewshot")
    assert model.asked == []
    assert method == "as the passage states it"
    assert stem == "The Danube flows through ten countries before it reaches the Black Sea."


def test_a_quiz_plans_half_of_its_statements_false_in_a_seeded_order() -> None:
    for n in range(1, 11):
        plans = [false_plan(n, seed) for seed in range(40)]
        assert all(len(p) == n and sum(p) in (n // 2, (n + 1) // 2) for p in plans)
        assert false_plan(n, 7) == false_plan(n, 7)
    assert len({tuple(false_plan(5, seed)) for seed in range(40)}) > 5  # not one fixed order


def test_only_a_chat_generator_of_the_user_s_own_restates() -> None:
    # The bundled 1.5B model changed the meaning of 4 of the 9 statements it restated
    # (docs/generation.md): it keeps the statement; a larger model of the user's restates.
    assert not restates("chat", "qwen2.5-coder-1.5b-instruct")
    assert restates("chat", "/models/my-own-7b.gguf")
    assert restates("chat", "openai:gpt-4o-mini")
    assert not restates("fewshot", "/models/my-own-7b.gguf")
