"""Any OpenAI-compatible server: OpenAI, vLLM, llama.cpp's server, LM Studio, Ollama ...

Requests go through a bounded pool (`max_concurrency` per endpoint) so batch generation and
scoring scale with a server that batches on a GPU. Token log-probabilities are real ones,
read from the server's /completions `echo` + `logprobs` answer where it gives them.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, ClassVar

from quizsmith.errors import CapabilityError, OutputParseError, ProviderError
from quizsmith.providers import validate
from quizsmith.providers.base import (
    ChatResult,
    Message,
    ModelInfo,
    OptionLogprob,
    Provider,
    Reusable,
    as_message_dicts,
    parse_json_output,
)
from quizsmith.providers.http import JsonHttpClient
from quizsmith.providers.http_transport import HttpError
from quizsmith.secrets import env_key_for_endpoint, require_api_key
from quizsmith.settings import Endpoint

log = logging.getLogger(__name__)


class OpenAIProvider(Provider):
    name: ClassVar[str] = "openai"
    description: ClassVar[str] = (
        "OpenAI-compatible HTTP server (vLLM, llama.cpp server, OpenAI ...)"
    )
    can_chat = True
    can_complete = True
    can_logprob = True  # where the server returns prompt logprobs; else CapabilityError
    can_embed = True  # where the server has /embeddings
    can_constrain = True
    needs_key = False  # local servers usually need none; a configured key_name must resolve
    is_local = False

    serves_endpoints = True
    order = 10

    @classmethod
    def from_endpoint(cls, endpoint: Endpoint) -> Provider:
        return cls(endpoint)

    def __init__(self, endpoint: Endpoint, api_key: str | None = None) -> None:
        self.endpoint = endpoint
        # No key_name: a local server that needs no key (an explicit key is still sent).
        # OPENAI_API_KEY belongs to api.openai.com and is sent nowhere else.
        env = env_key_for_endpoint("OPENAI_API_KEY", endpoint.base_url, endpoint.key_name)
        key = require_api_key(endpoint.key_name, api_key, env) if endpoint.key_name else api_key
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        self._http = JsonHttpClient(
            endpoint.base_url,
            headers=headers,
            timeout_s=endpoint.timeout_s,
            max_retries=endpoint.max_retries,
            max_concurrency=endpoint.max_concurrency,
            key_hint=f"quizsmith key set {endpoint.key_name or endpoint.name}",
        )
        # OpenAI's structured outputs use "json_schema"; llama.cpp's server also accepts a
        # schema under "json_object". Start with the standard and remember a fallback.
        self._json_style = "json_schema"
        self._json_schema_accepted = False

    @property
    def info(self) -> ModelInfo:
        return ModelInfo(
            self.name,
            self.endpoint.model,
            {"endpoint": self.endpoint.name, "base_url": self._http.base_url},
        )

    def close(self) -> None:
        self._http.close()

    # -- text --------------------------------------------------------------------------------
    def _response_format(self, schema: dict[str, Any]) -> dict[str, Any]:
        if self._json_style == "json_schema":
            return {
                "type": "json_schema",
                "json_schema": {"name": "quizsmith_output", "schema": schema, "strict": True},
            }
        return {"type": "json_object", "schema": schema}

    def _post_constrained(
        self, path: str, payload: dict[str, Any], schema: dict[str, Any] | None
    ) -> dict[str, Any]:
        if schema is None:
            return self._http.post(path, payload)
        body = {**payload, "response_format": self._response_format(schema)}
        if self._json_style == "json_schema" and not self._json_schema_accepted:
            # Until the server has accepted "json_schema" once, ask once without retries: a
            # server that does not know it answers 400 or 422, or (llama-cpp-python) 500 with
            # a validation error, and retrying that would only add the whole backoff.
            try:
                data = self._http.post(path, body, retries=0)
            except HttpError as exc:
                if _rejects_json_schema(exc):
                    log.info(
                        "%s does not accept response_format json_schema (HTTP %s); "
                        "using json_object with the schema",
                        self._http.base_url,
                        exc.status,
                    )
                    self._json_style = "json_object"
                    body = {**payload, "response_format": self._response_format(schema)}
                elif not exc.retryable:
                    raise
                # else: a transient failure; the request below retries as usual
            else:
                self._json_schema_accepted = True
                return data
        return self._http.post(path, body)

    def chat(
        self,
        messages: Sequence[Message | dict[str, str]],
        *,
        max_tokens: int = 256,
        temperature: float = 0.0,
        seed: int | None = None,
        stop: Sequence[str] = (),
        json_schema: dict[str, Any] | None = None,
        reuse_prefix: Reusable = "",  # a local-model optimisation; a server keeps its own cache
    ) -> ChatResult:
        payload: dict[str, Any] = {
            "model": self.endpoint.model,
            "messages": as_message_dicts(messages),
            "max_tokens": max_tokens,
            "temperature": temperature,
        }
        if seed is not None:
            payload["seed"] = seed
        if stop:
            payload["stop"] = list(stop)
        started = time.perf_counter()
        data = self._post_constrained("chat/completions", payload, json_schema)
        try:
            choice = data["choices"][0]
            content = choice["message"].get("content")
        except (KeyError, IndexError, TypeError, AttributeError):
            raise ProviderError(f"Unexpected chat answer from {self._http.base_url}.", "") from None
        text = validate.answer_text(content, self._http.base_url)
        return self._result(data, text, choice.get("finish_reason"), started, json_schema)

    def complete(
        self,
        prompt: str,
        *,
        max_tokens: int = 256,
        temperature: float = 0.0,
        seed: int | None = None,
        stop: Sequence[str] = (),
        json_schema: dict[str, Any] | None = None,
        reuse_prefix: Reusable = "",  # a local-model optimisation; a server keeps its own cache
    ) -> ChatResult:
        payload: dict[str, Any] = {
            "model": self.endpoint.model,
            "prompt": prompt,
            "max_tokens": max_tokens,
            "temperature": temperature,
        }
        if seed is not None:
            payload["seed"] = seed
        if stop:
            payload["stop"] = list(stop)
        started = time.perf_counter()
        data = self._post_constrained("completions", payload, json_schema)
        try:
            choice = data["choices"][0]
            content = choice.get("text")
        except (KeyError, IndexError, TypeError, AttributeError):
            raise ProviderError(f"Unexpected completion from {self._http.base_url}.", "") from None
        text = validate.answer_text(content, self._http.base_url)
        return self._result(data, text, choice.get("finish_reason"), started, json_schema)

    def _result(
        self, data: dict[str, Any], text: str, finish_raw: Any, started: float, schema: Any
    ) -> ChatResult:
        usage = validate.usage_of(data)
        finish = validate.short_label(finish_raw)
        # A server that echoes the key (in any case) must not put it into the bank.
        text = self._http.mask(text)
        if schema is not None and finish == "length":
            raise OutputParseError(
                "The model's JSON answer was cut off at the max_tokens limit.",
                "Ask for a shorter answer or raise max_tokens.",
            )
        return ChatResult(
            text=text,
            model=self._http.mask(validate.short_label(data.get("model")) or self.endpoint.model),
            prompt_tokens=validate.token_count(usage.get("prompt_tokens")),
            completion_tokens=validate.token_count(usage.get("completion_tokens")),
            finish_reason=finish,
            seconds=time.perf_counter() - started,
            data=parse_json_output(text) if schema is not None else None,
        )

    def chat_many(self, requests: Sequence[dict[str, Any]]) -> list[ChatResult]:
        """Several chats at once, `max_concurrency` in flight; results in request order."""
        with ThreadPoolExecutor(max_workers=max(1, self.endpoint.max_concurrency)) as pool:
            futures = [pool.submit(self.chat, **r) for r in requests]
            return [f.result() for f in futures]

    # -- scoring -----------------------------------------------------------------------------
    def option_logprobs(
        self, prefix: str, options: Sequence[str], *, reuse_prefix: Reusable = ""
    ) -> list[OptionLogprob]:
        # One request per option, sent concurrently: HTTP has no shared KV cache to reuse,
        # but servers with prefix caching (vLLM, llama.cpp) reuse the shared prefix anyway.
        workers = max(1, min(len(options), self.endpoint.max_concurrency))
        with ThreadPoolExecutor(max_workers=workers) as pool:
            return list(pool.map(lambda o: self._one_option(prefix, o), options))

    def _one_option(self, prefix: str, option: str) -> OptionLogprob:
        if not option:
            raise ProviderError("An option is empty.", "Fill in every option before scoring.")
        full = prefix + option
        data = self._http.post(
            "completions",
            {
                "model": self.endpoint.model,
                "prompt": full,
                "max_tokens": 1,  # some servers reject 0; the generated token is dropped below
                "temperature": 0.0,
                "echo": True,
                "logprobs": 1,
            },
        )
        no_logprobs = CapabilityError(
            f"The server at {self._http.base_url} gives no prompt log-probabilities.",
            "Use it for chat roles only, or start it with prompt logprobs enabled "
            "(llama.cpp server: --logits_all true; vLLM supports echo by default).",
        )
        try:
            choice = data["choices"][0]
            lp = choice["logprobs"]
            tokens, values, offsets = lp["tokens"], lp["token_logprobs"], lp["text_offset"]
            text = choice.get("text")
        except (KeyError, IndexError, TypeError, AttributeError):
            raise no_logprobs from None
        if not all(isinstance(x, list) for x in (tokens, values, offsets)):
            raise no_logprobs
        if not all(isinstance(t, str) for t in tokens) or not all(
            isinstance(o, int) and not isinstance(o, bool) for o in offsets
        ):
            raise ProviderError(
                f"The server at {self._http.base_url} returned malformed log-probabilities "
                "(tokens that are not text, or offsets that are not whole numbers).",
                "Check the server's logprobs support, or score with a local model.",
            )
        if not tokens or not offsets or len(values) != len(tokens) or offsets[0] != 0:
            raise no_logprobs  # no echo: only the generated token was scored
        if isinstance(text, str) and len(text) > len(full) and offsets[-1] < len(full):
            # With echo, the arrays describe the whole returned text, the generated token
            # included. llama-cpp-python's server, for models that add no BOS token, leaves
            # out that last entry because it scores every prompt token with the distribution
            # that *follows* it (abetlen/llama-cpp-python#1983): all numbers are one token
            # off, and an unlikely option can outscore the right one.
            raise CapabilityError(
                f"The server at {self._http.base_url} returns prompt log-probabilities "
                "shifted by one token (llama-cpp-python's server does this for models that "
                "add no BOS token), so they cannot be used for scoring.",
                "Score with the model locally (llamacpp provider), or start the server with "
                "--kv_overrides tokenizer.ggml.add_bos_token=bool:true.",
            )
        picked: list[float] = []
        for token, value, offset in zip(tokens, values, offsets, strict=False):
            # A token belongs to the option when it ends after the prefix and starts inside
            # the prompt (a token merged across the boundary counts for the option).
            if offset + len(token) > len(prefix) and offset < len(full):
                if value is None:
                    raise CapabilityError(
                        f"The server at {self._http.base_url} returned no log-probability "
                        "for a token of the option (the first token of a prompt has none).",
                        "Put some text before the options.",
                    )
                picked.append(validate.logprob(value, self._http.base_url))
        if not picked:
            raise ProviderError(
                f"The server at {self._http.base_url} returned no tokens for the option "
                f"{option!r}.",
                "Check that the server echoes the prompt with logprobs.",
            )
        total = sum(picked)
        return OptionLogprob(option, total, total / len(picked), len(picked), tuple(picked))

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        data = self._http.post("embeddings", {"model": self.endpoint.model, "input": list(texts)})
        try:
            rows = sorted(data["data"], key=lambda r: int(r.get("index", 0)))
            vectors = [validate.embedding(r["embedding"], self._http.base_url) for r in rows]
        except (KeyError, TypeError, ValueError, AttributeError):
            raise CapabilityError(
                f"The server at {self._http.base_url} gives no embeddings.",
                "Choose the bundled embedding model for this role.",
            ) from None
        if len(vectors) != len(texts):
            raise ProviderError(
                f"The server at {self._http.base_url} returned {len(vectors)} embeddings for "
                f"{len(texts)} texts.",
                "Choose the bundled embedding model for this role.",
            )
        return vectors


def _rejects_json_schema(exc: HttpError) -> bool:
    """Whether a failed request reads as "this server does not know json_schema"."""
    if exc.status is None or exc.status in (404, 408, 429):
        return False
    if 400 <= exc.status < 500:
        return True
    # llama-cpp-python's server answers a request it cannot validate with HTTP 500.
    detail = exc.detail.lower()
    return "json_schema" in detail or "response_format" in detail
