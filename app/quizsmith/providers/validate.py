"""Checks on what a server answered, at the provider boundary.

A 200 answer is data from outside like a file: `usage: "lots"`, a number as `content`, or a
NaN log-probability once aborted a whole run (AttributeError, ValueError) or put a made-up
number into KDA and EXAM. Here each field is checked for its type and range; a wrong one is a
ProviderError, which a metric turns into "not scored: reason" for that one item. Fields that
only inform (token counts) fall back to 0 instead.
"""

from __future__ import annotations

import math
from typing import Any

from quizsmith.errors import ProviderError

#: A log-probability is <= 0; a server's float noise may put a certain token a hair above.
_LOGPROB_SLACK = 1e-4


def answer_text(value: Any, where: str) -> str:
    """The text of an answer: a string, or nothing (None) for an empty answer."""
    if value is None:
        return ""
    if not isinstance(value, str):
        raise ProviderError(
            f"The server at {where} answered with {type(value).__name__} where the text of "
            "the answer belongs.",
            "Check that the endpoint is an OpenAI-compatible (or Anthropic) server and that "
            "the model name is right.",
        )
    return value


def short_label(value: Any) -> str:
    """finish_reason, model name ...: a short string, or "" for anything else."""
    return value[:200] if isinstance(value, str) else ""


def token_count(value: Any) -> int:
    """A usage count; informational, so a wrong type is 0 rather than a failure."""
    if isinstance(value, bool):
        return 0
    if isinstance(value, int):
        return max(0, value)
    if isinstance(value, float) and math.isfinite(value):
        return max(0, int(value))
    return 0


def usage_of(data: dict[str, Any]) -> dict[str, Any]:
    usage = data.get("usage")
    return usage if isinstance(usage, dict) else {}


def logprob(value: Any, where: str) -> float:
    """A token log-probability: a finite number <= 0 (NaN, Infinity or > 0 is refused)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ProviderError(
            f"The server at {where} returned a log-probability that is not a number "
            f"({type(value).__name__}).",
            "Check the server's logprobs support, or score with a local model.",
        )
    number = float(value)
    if not math.isfinite(number) or number > _LOGPROB_SLACK:
        raise ProviderError(
            f"The server at {where} returned an impossible log-probability ({number!r}); "
            "a log-probability is a finite number at most 0.",
            "The server or model is misbehaving; score with another model or a local one.",
        )
    return min(number, 0.0)


def embedding(values: Any, where: str) -> list[float]:
    """An embedding vector: a non-empty list of finite numbers."""
    if not isinstance(values, list) or not values:
        raise ProviderError(f"The server at {where} returned an empty or malformed embedding.", "")
    out: list[float] = []
    for v in values:
        if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v):
            raise ProviderError(
                f"The server at {where} returned an embedding with a value that is not a "
                "finite number.",
                "Choose the bundled embedding model for this role.",
            )
        out.append(float(v))
    return out
