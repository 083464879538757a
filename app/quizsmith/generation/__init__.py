"""Question and distractor generation from passages, with overgenerate-and-rank.

`generate_items(passage, request, settings=..., cancel=...)` is the entry point (a job: it
yields progress and each finished item). Heavy modules load on first use so that importing
this package stays cheap.
"""

from __future__ import annotations

from typing import Any

from quizsmith.generation.api import GeneratedStep, GenerationRequest, GenerationResult

__all__ = ["GeneratedStep", "GenerationRequest", "GenerationResult", "generate_items"]


def generate_items(*args: Any, **kwargs: Any) -> Any:
    from quizsmith.generation.pipeline import generate_items as run

    return run(*args, **kwargs)
