"""A local provider seen from the app's process: every call goes to the model host.

`manager.provider_for` hands one of these out for a provider kind that `runs_in_host`
(llama.cpp, transformers), unless the host is switched off (QUIZSMITH_MODEL_HOST=0: tests
and benchmarks that look inside a model's state, and the host itself). It keeps the local
provider object it was built from, unloaded, for what needs no model: the capability flags,
`info`, `model_path`. Everything else is asked of the host's own provider for the same
reference and settings, built there by the same code.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

from quizsmith.providers.base import (
    ChatResult,
    Message,
    ModelInfo,
    OptionLogprob,
    Provider,
    Reusable,
)

#: Class attributes a hosted provider copies from the kind it stands for.
CAPABILITIES = (
    "name",
    "description",
    "can_chat",
    "can_complete",
    "can_logprob",
    "can_reply_logprob",
    "can_embed",
    "can_constrain",
    "needs_key",
    "is_local",
    "serves_endpoints",
    "order",
)


class HostedProvider(Provider):
    runs_in_host = False  # it is the app's side: never wrapped again

    def __init__(self, ref: str, settings: Any, local: Provider) -> None:
        self._ref = ref
        self._settings = settings
        self._local = local
        self.model_path = local.model_path
        self.max_length = local.max_length
        #: Read-only facts the host answered once (context_size, is_chat_model).
        self._facts: dict[str, Any] = {}

    def _call(self, method: str, *args: Any, **kwargs: Any) -> Any:
        from quizsmith.providers.host_client import shared_host

        return shared_host().call(self._ref, self._settings, method, args, kwargs)

    def _fact(self, name: str) -> Any:
        if name not in self._facts:
            self._facts[name] = self._call("getattr", name)
        return self._facts[name]

    @property
    def info(self) -> ModelInfo:
        return self._local.info

    @property
    def is_chat_model(self) -> bool:
        return bool(self._fact("is_chat_model"))

    @is_chat_model.setter
    def is_chat_model(self, value: bool) -> None:
        self._call("setattr", "is_chat_model", bool(value))
        self._facts["is_chat_model"] = bool(value)

    @property
    def context_size(self) -> int | None:
        return cast("int | None", self._fact("context_size"))

    def count_tokens(self, text: str) -> int | None:
        return cast("int | None", self._call("count_tokens", text))

    def chat(self, messages: Sequence[Message | dict[str, str]], **kwargs: Any) -> ChatResult:
        return cast(ChatResult, self._call("chat", list(messages), **kwargs))

    def complete(self, prompt: str, **kwargs: Any) -> ChatResult:
        return cast(ChatResult, self._call("complete", prompt, **kwargs))

    def option_logprobs(
        self, prefix: str, options: Sequence[str], *, reuse_prefix: Reusable = "", **kwargs: Any
    ) -> list[OptionLogprob]:
        return cast(
            "list[OptionLogprob]",
            self._call(
                "option_logprobs", prefix, list(options), reuse_prefix=reuse_prefix, **kwargs
            ),
        )

    def reply_logprobs(
        self,
        messages: Sequence[Message | dict[str, str]],
        options: Sequence[str],
        *,
        reuse_prefix: Reusable = "",
    ) -> list[OptionLogprob]:
        return cast(
            "list[OptionLogprob]",
            self._call("reply_logprobs", list(messages), list(options), reuse_prefix=reuse_prefix),
        )

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        return cast("list[list[float]]", self._call("embed", list(texts)))

    def token_embeddings(self, texts: Sequence[str]) -> list[Any]:
        return cast("list[Any]", self._call("token_embeddings", list(texts)))

    def close(self) -> None:
        """Nothing here to free: the host frees its models when it closes."""

    def __getattr__(self, name: str) -> Any:
        # A method only this kind offers (llama.cpp's chat_prompt_tokens, say): run in the
        # host too. Reached only for names the class above does not define.
        if name.startswith("_") or not callable(getattr(type(self._local), name, None)):
            raise AttributeError(name)

        def remote(*args: Any, **kwargs: Any) -> Any:
            return self._call(name, *args, **kwargs)

        return remote


_classes: dict[type[Provider], type[HostedProvider]] = {}


def hosted(ref: str, settings: Any, local: Provider) -> Provider:
    """`local`'s stand-in whose calls run in the model host."""
    kind = type(local)
    cls = _classes.get(kind)
    if cls is None:
        attrs = {name: getattr(kind, name) for name in CAPABILITIES}
        cls = cast("type[HostedProvider]", type(f"Hosted{kind.__name__}", (HostedProvider,), attrs))
        _classes[kind] = cls
    return cls(ref, settings, local)
