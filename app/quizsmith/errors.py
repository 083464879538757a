"""Errors a teacher may see. Every one carries the fix, so the GUI and CLI can show it as is."""

from __future__ import annotations


class QuizsmithError(Exception):
    """Base class for expected failures: shown as a message, never as a traceback."""

    def __init__(self, message: str, fix: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.fix = fix

    def __str__(self) -> str:
        return f"{self.message} {self.fix}".strip() if self.fix else self.message


class ConfigError(QuizsmithError):
    """The settings file or the model catalog is unreadable or inconsistent."""


class ModelNotFoundError(QuizsmithError):
    """A model named in the catalog or settings is not installed or not on disk."""


class ProviderError(QuizsmithError):
    """A backend failed: a server error, a timeout, a model that would not load."""


class AuthError(ProviderError):
    """The server rejected the API key (HTTP 401/403)."""


class CapabilityError(ProviderError):
    """The provider cannot do what was asked (no logprobs, no embeddings, no chat)."""


class OutputParseError(ProviderError):
    """The model answered, but not in the format asked for (e.g. invalid JSON)."""


class SecretStoreError(QuizsmithError):
    """No usable keyring backend, or the keyring refused the operation."""


class CancelledError(QuizsmithError):
    """A job was cancelled through its CancelToken."""


class NativeLibraryError(QuizsmithError):
    """The native llama.cpp library cannot run on this computer (built for another CPU):
    every model call would fail the same way, so a job stops instead of scoring on."""
