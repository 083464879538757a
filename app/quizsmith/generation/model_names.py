"""Models by the names a teacher can read ("Qwen2.5-Coder-1.5B-Instruct"), for the steps a
job announces while it loads them (issue 47: the first generation spent two minutes on
"Finding facts" without saying it was loading models) and for the desktop app's notes."""

from __future__ import annotations

import re

from quizsmith.errors import QuizsmithError
from quizsmith.providers.base import Provider


def model_name(ref: str) -> str:
    """A catalog model's name without its file format ("Gemma 3 270M base"); the reference
    itself when the catalog does not know it (an endpoint, a file of the teacher's)."""
    from quizsmith.providers import catalog

    try:
        models = catalog.load_catalog()
    except QuizsmithError:
        return ref
    for model in models:
        if model.id == ref:
            return re.sub(r"\s*\([^)]*\)\s*$", "", model.name) or ref
    return ref


def provider_name(provider: Provider) -> str:
    """The name of the model a provider runs (no model is loaded to tell)."""
    return model_name(provider.info.model)
