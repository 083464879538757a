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

    def __reduce__(self) -> tuple[object, ...]:
        # Pickled whole (subclasses with other constructors included): the model host
        # (providers/host_server.py) sends a provider's errors to the app's process, and the
        # default pickling would rebuild them from `args` alone, losing the fix.
        return (_rebuild_error, (type(self), self.message, dict(self.__dict__)))


#: The most of a user's text a message quotes: a 40 KB answer repeated in an import's
#: message buried the reason (issue 48).
QUOTE_LIMIT = 60


def quoted(text: str, limit: int = QUOTE_LIMIT) -> str:
    """`text` as a message quotes it: repr'd, cut to `limit` characters with an ellipsis
    and the length said, so a message stays readable whatever the file held."""
    if len(text) <= limit:
        return repr(text)
    return f"{text[:limit]!r}… ({len(text):,} characters)"


def _rebuild_error(cls: type[QuizsmithError], message: str, state: dict[str, object]) -> Exception:
    error = cls.__new__(cls)
    Exception.__init__(error, message)
    error.__dict__.update(state)
    return error


class ConfigError(QuizsmithError):
    """The settings file or the model catalog is unreadable or inconsistent."""


class ModelNotFoundError(QuizsmithError):
    """A model named in the catalog or settings is not installed or not on disk."""


class DamagedModelError(ModelNotFoundError):
    """A model file's content is not what its package holds (bit rot, a copy cut short):
    every answer from it would be noise, so the job stops, saying how to rebuild the file."""


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


class ModelHostError(QuizsmithError):
    """The model host (the child process that runs the local models) died, hung or would not
    start: the running job stops with this message; the next job starts a fresh host."""


#: Errors that end a whole job: a step that skips one solver or candidate on an ordinary
#: failure re-raises these, since every later model call would fail (or was cancelled) too.
STOPS_THE_JOB: tuple[type[QuizsmithError], ...] = (
    CancelledError,
    NativeLibraryError,
    ModelHostError,
    DamagedModelError,
)
