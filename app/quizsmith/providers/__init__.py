"""Model backends behind one protocol (`base.Provider`), their registry and the catalog."""

from __future__ import annotations

from quizsmith.providers.base import ChatResult, Message, ModelInfo, OptionLogprob, Provider
from quizsmith.providers.manager import provider_for, provider_for_role, providers_for_role

__all__ = [
    "ChatResult",
    "Message",
    "ModelInfo",
    "OptionLogprob",
    "Provider",
    "provider_for",
    "provider_for_role",
    "providers_for_role",
]
