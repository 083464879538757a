"""The provider protocol: one interface for every model backend.

Capabilities are class attributes so that callers (metrics, generation, the settings dialog)
can choose a provider without calling it. A method a provider cannot serve raises
`CapabilityError` with the reason.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from quizsmith.errors import CapabilityError, ConfigError

if TYPE_CHECKING:
    from quizsmith.providers.catalog import CatalogModel
    from quizsmith.settings import Endpoint, Settings

Role = Literal["system", "user", "assistant"]

#: Leading parts of a prompt that later calls repeat (`reuse_prefix`): one text, or nested
#: texts each extending the one before (instructions, then instructions + passage).
Reusable = str | tuple[str, ...]


class Transient(str):
    """A reusable head (see `Reusable`) whose evaluated state serves the next call while it
    is still in the cache, but is not kept among a model's prefix states: a question that the
    reader answers and then scores a reply to is read by two calls in a row, and keeping a
    state per question would crowd out the passages' states, which serve many calls."""

    __slots__ = ()


class Fixed(str):
    """A reusable head that is the same for every passage and item (a prompt's instructions
    and worked examples): a local model keeps its evaluated state on disk as well
    (llamacpp_disk_states), so that a new quiz, or a new start of the app, does not
    evaluate it again."""

    __slots__ = ()


@dataclass(frozen=True)
class Message:
    role: Role
    content: str

    def as_dict(self) -> dict[str, str]:
        return {"role": self.role, "content": self.content}


@dataclass(frozen=True)
class ChatResult:
    text: str
    model: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    finish_reason: str = ""
    seconds: float = 0.0
    #: The parsed JSON object when `json_schema` was given and the output parsed.
    data: Any = None


@dataclass(frozen=True)
class OptionLogprob:
    """Log-probability of one option text as a continuation of a prefix."""

    option: str
    total: float  # sum of token log-probabilities (natural log)
    mean: float  # total / n_tokens: the length-normalised score used by likelihood solvers
    n_tokens: int
    token_logprobs: tuple[float, ...] = field(default=(), repr=False)


@dataclass(frozen=True)
class ModelInfo:
    """What a provider instance runs, for evidence and provenance."""

    provider: str
    model: str
    details: dict[str, Any] = field(default_factory=dict)

    def label(self) -> str:
        return f"{self.provider}:{self.model}"


class Provider:
    """Base class of all backends. Subclasses set the capability flags and override methods."""

    name: ClassVar[str] = "base"
    #: Human description for `quizsmith models` and the settings dialog.
    description: ClassVar[str] = ""
    can_chat: ClassVar[bool] = False
    can_complete: ClassVar[bool] = False
    can_logprob: ClassVar[bool] = False
    #: Log-probabilities of a chat reply (`reply_logprobs`): the chat template applied locally.
    can_reply_logprob: ClassVar[bool] = False
    can_embed: ClassVar[bool] = False
    #: Grammar / JSON-schema constrained decoding enforced by the backend itself.
    can_constrain: ClassVar[bool] = False
    needs_key: ClassVar[bool] = False
    is_local: ClassVar[bool] = True
    #: Set up as an endpoint ([endpoints.<n>], provider = "<name>"): the settings dialog's
    #: endpoint tab offers it, in `order`.
    serves_endpoints: ClassVar[bool] = False
    order: ClassVar[int] = 100
    #: The model file it runs (its size tells a tiny model from a capable one), if any.
    model_path: Path | None = None
    #: The longest input an embedding model reads, in tokens (None: not known).
    max_length: int | None = None
    #: Runs its model in the app's model host (providers/host_client.py), not in the
    #: process that asks: a kind that loads native model libraries (llama.cpp, torch).
    runs_in_host: ClassVar[bool] = False

    # -- how it is built from the settings (providers/manager.py) ---------------------------
    @classmethod
    def from_endpoint(cls, endpoint: Endpoint) -> Provider:
        """The provider for an [endpoints.<n>] table naming this kind."""
        raise ConfigError(
            f"{cls.name} cannot be set up as an endpoint.",
            "Use a provider meant for servers (openai, anthropic) in [endpoints.<name>].",
        )

    @classmethod
    def from_catalog(cls, model: CatalogModel, path: Path, settings: Settings) -> Provider:
        """The provider for a catalog model (`backend = "<name>"`) whose file is `path`."""
        raise ConfigError(
            f"{cls.name} cannot run a model file ({model.id}).",
            "Give the model a backend that runs files (llamacpp, hf) in its catalog entry.",
        )

    @classmethod
    def release_shared(cls) -> None:
        """Free what this kind shares between its instances (loaded weights); called when
        the app closes every provider."""

    # -- what the model is -----------------------------------------------------------------
    @property
    def info(self) -> ModelInfo:
        raise NotImplementedError

    @property
    def is_chat_model(self) -> bool:
        """An instruct model that follows chat prompts; a base model (False) is driven with
        few-shot transcripts. Settable, for a backend that learns it when it connects."""
        return bool(self.__dict__.get("_is_chat_model", self.can_chat))

    @is_chat_model.setter
    def is_chat_model(self, value: bool) -> None:
        self.__dict__["_is_chat_model"] = bool(value)

    @property
    def context_size(self) -> int | None:
        """Tokens of prompt plus answer the model can attend to (None: not known)."""
        return None

    def count_tokens(self, text: str) -> int | None:
        """The number of tokens `text` takes for this model (None: it cannot tell)."""
        return None

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
        """`reuse_prefix`: leading parts of the last message's content (e.g. the instructions,
        then instructions and passage) that later calls will repeat. A backend that can keep
        their evaluated state does so (llama.cpp); the answer never depends on whether it was
        kept. Others ignore it."""
        raise CapabilityError(f"{self.name} cannot chat.", "Choose a chat model for this role.")

    def complete(
        self,
        prompt: str,
        *,
        max_tokens: int = 256,
        temperature: float = 0.0,
        seed: int | None = None,
        stop: Sequence[str] = (),
        json_schema: dict[str, Any] | None = None,
        reuse_prefix: Reusable = "",
    ) -> ChatResult:
        """Raw text completion, for base models driven with few-shot prompts. `reuse_prefix`:
        a leading part of `prompt`, as for `chat`."""
        raise CapabilityError(
            f"{self.name} cannot do raw completion.", "Choose a completion-capable model."
        )

    def option_logprobs(
        self, prefix: str, options: Sequence[str], *, reuse_prefix: Reusable = ""
    ) -> list[OptionLogprob]:
        """`reuse_prefix`: a leading part of `prefix`, as for `chat`."""
        raise CapabilityError(
            f"{self.name} gives no token log-probabilities.",
            "Choose a local GGUF model or a server that returns prompt logprobs for this role.",
        )

    def reply_logprobs(
        self,
        messages: Sequence[Message | dict[str, str]],
        options: Sequence[str],
        *,
        reuse_prefix: Reusable = "",
    ) -> list[OptionLogprob]:
        """Log-probability of each option as the assistant's reply to `messages` (the chat
        template applied). `reuse_prefix`: a leading part of the last message, as for `chat`."""
        raise CapabilityError(
            f"{self.name} gives no log-probabilities of a chat reply.",
            "Choose a local GGUF chat model for this role.",
        )

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        raise CapabilityError(
            f"{self.name} gives no embeddings.", "Choose an embedding model for this role."
        )

    def token_embeddings(self, texts: Sequence[str]) -> list[Any]:
        """Contextual vectors of each text's word pieces (one 2-D array per text, special
        tokens and padding left out): what BERTScore-style similarity compares."""
        raise CapabilityError(
            f"{self.name} gives no token vectors.", "Choose an embedding model for this role."
        )

    def close(self) -> None:
        """Release sockets or memory; the shared model cache calls this on shutdown."""


def as_message_dicts(messages: Sequence[Message | dict[str, str]]) -> list[dict[str, str]]:
    out = []
    for m in messages:
        out.append(
            m.as_dict() if isinstance(m, Message) else {"role": m["role"], "content": m["content"]}
        )
    return out


def reusable_heads(text: str, reuse: Reusable) -> list[str]:
    """The non-empty parts of `reuse` that `text` starts with, shortest first."""
    heads = [reuse] if isinstance(reuse, str) else list(reuse)
    return sorted({h for h in heads if h and text.startswith(h)}, key=len)


def parse_json_output(text: str) -> Any:
    """Parse a model's JSON answer, tolerating a code fence or text around one object."""
    import json

    from quizsmith.errors import OutputParseError

    stripped = text.strip()
    if stripped.startswith("```"):
        stripped = stripped.strip("`")
        stripped = stripped.split("\n", 1)[1] if "\n" in stripped else stripped
    # strict=False: a raw newline or tab inside a string is read as itself. Small models
    # write them (the JSON grammar llama.cpp's server builds from a schema lets them through),
    # and refusing the whole answer for one would lose a readable item.
    try:
        return json.loads(stripped, strict=False)
    except json.JSONDecodeError:
        pass
    start, end = stripped.find("{"), stripped.rfind("}")
    if 0 <= start < end:
        try:
            return json.loads(stripped[start : end + 1], strict=False)
        except json.JSONDecodeError:
            pass
    raise OutputParseError(
        "The model's answer is not valid JSON.",
        "Try again, or choose a larger model for this role.",
    )
