"""A target's question attempts ask the same with other seeds: the second and third read
none of the request again (the first's state serves them, writer.write_stem), and what they
write is what they write from an empty cache."""

from __future__ import annotations

import pytest

from quizsmith.generation import writer
from quizsmith.providers.llamacpp_models import forget_kept_state

pytestmark = pytest.mark.slow

FACT = "The Aswan High Dam, completed in 1970, controls the annual flood of the Nile."
ANSWER = "1970"


def attempt(provider, profile: str, seed: int):
    return writer.write_stem(
        provider, profile, FACT, ANSWER, difficulty=None, seed=seed, temperature=0.8
    )


@pytest.mark.parametrize("profile", ["chat", "fewshot"])
def test_later_attempts_read_only_the_prompts_tail(smollm, profile, monkeypatch) -> None:
    forget_kept_state()
    cold = attempt(smollm, profile, seed=2)
    forget_kept_state()
    attempt(smollm, profile, seed=1)
    loaded = smollm._get()
    evaluated: list[int] = []
    real_eval = loaded.llm.eval
    monkeypatch.setattr(loaded.llm, "eval", lambda t: evaluated.append(len(t)) or real_eval(t))
    warm = attempt(smollm, profile, seed=2)
    # create_completion reads what start_from left out: the template's tail (chat) or the
    # "Question:" line (few-shot), a few tokens, then one token per generated token.
    assert evaluated and evaluated[0] <= 8, evaluated
    assert sum(evaluated) < smollm.count_tokens(FACT) + len(evaluated)
    assert (warm.text, warm.reason) == (cold.text, cold.reason)
