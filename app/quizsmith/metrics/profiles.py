"""Prompt profiles: the papers' procedures with prompts a given model can follow.

The papers prompted GPT-3.5/4-class chat models. The 135M-270M bundled models cannot follow
those long chat prompts (measured; see docs/evaluation.md), so each metric asks here which
profile to use for a provider:

- "chat": the paper's own chat prompt (capable instruct models: API servers, large GGUF);
- "fewshot": few-shot completion prompts, with constrained output where it helps (base and
  tiny models).

The model profiles (settings.PROFILES) pick models this rule sorts as intended: the standard
profile's Qwen2.5-Coder-1.5B-Instruct (1.1 GB, a chat template) gets "chat", the light
profile's SmolLM2 and Gemma (and Gemma as the standard profile's second student and
reviewer) get "fewshot" (tests/test_standard_profile.py checks both on the real files).

The rule below is the default; `[metrics] profiles = { "<model ref>" = "chat" }` in settings
overrides it per model. The profile used is recorded in every score's model configuration.
"""

from __future__ import annotations

from typing import Any

from quizsmith.providers.base import Provider
from quizsmith.settings import Settings

PROFILES = ("chat", "fewshot")
#: Local models below this file size are treated as tiny (the bundled ones are 94-242 MB;
#: 1B-class instruct models at 4 bits start near 0.7 GB).
TINY_MODEL_BYTES = 600 * 2**20


def choose_profile(provider: Provider, settings: Settings | None = None) -> str:
    label = provider.info.model
    overrides: Any = (settings.metrics.get("profiles") if settings else None) or {}
    if isinstance(overrides, dict) and overrides.get(label) in PROFILES:
        return str(overrides[label])
    if not provider.is_local:
        return "chat"
    if not provider.is_chat_model:
        return "fewshot"
    path = provider.model_path
    try:
        size = path.stat().st_size if path is not None else 0
    except OSError:
        size = 0
    return "chat" if size >= TINY_MODEL_BYTES else "fewshot"


def model_config(provider: Provider, profile: str, **extra: Any) -> dict[str, Any]:
    """What goes into ScoreResult.model_config for one model call site."""
    info = provider.info
    return {"provider": info.provider, "model": info.model, "profile": profile, **extra}
