"""A build context for tests of the builder and the pipeline's order: the fields every run
sets, with no embedder and the fixed seed, so a test names only what it is about."""

from __future__ import annotations

from typing import Any

from quizsmith.domain import Passage
from quizsmith.generation.build_context import BuildContext
from quizsmith.jobs import CancelToken


def build_context(
    text: str,
    generator: Any,
    *,
    profile: str = "chat",
    qa: Any = None,
    seed: int = 0,
    **extra: Any,
) -> BuildContext:
    """A context for `text` with `generator` (a scripted model, or None where no model is
    asked); `extra` sets the other fields."""
    return BuildContext(
        passage=Passage(text=text),
        generator=generator,
        profile=profile,
        embed=None,
        qa=qa,
        cancel=CancelToken(),
        difficulty=None,
        seed=seed,
        **extra,
    )
