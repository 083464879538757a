"""Anthropic's Messages API (chat only: it returns no token log-probabilities)."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any, ClassVar

from quizsmith.errors import OutputParseError, ProviderError
from quizsmith.providers import validate
from quizsmith.providers.base import (
    ChatResult,
    Message,
    ModelInfo,
    Provider,
    Reusable,
    as_message_dicts,
    parse_json_output,
)
from quizsmith.providers.http import JsonHttpClient
from quizsmith.secrets import env_key_for_endpoint, require_api_key
from quizsmith.settings import Endpoint

API_VERSION = "2023-06-01"


class AnthropicProvider(Provider):
    name: ClassVar[str] = "anthropic"
    description: ClassVar[str] = "Anthropic Messages API (chat and judging only)"
    can_chat = True
    needs_key = True
    is_local = False

    serves_endpoints = True
    order = 20

    @classmethod
    def from_endpoint(cls, endpoint: Endpoint) -> Provider:
        return cls(endpoint)

    def __init__(self, endpoint: Endpoint, api_key: str | None = None) -> None:
        self.endpoint = endpoint
        # ANTHROPIC_API_KEY belongs to api.anthropic.com and is sent nowhere else.
        name = endpoint.key_name or endpoint.name
        env = env_key_for_endpoint("ANTHROPIC_API_KEY", endpoint.base_url, name)
        key = require_api_key(name, api_key, env)
        self._http = JsonHttpClient(
            endpoint.base_url,
            headers={"x-api-key": key, "anthropic-version": API_VERSION},
            timeout_s=endpoint.timeout_s,
            max_retries=endpoint.max_retries,
            max_concurrency=endpoint.max_concurrency,
            key_hint=f"quizsmith key set {endpoint.key_name or endpoint.name}",
        )

    @property
    def info(self) -> ModelInfo:
        return ModelInfo(self.name, self.endpoint.model, {"endpoint": self.endpoint.name})

    def close(self) -> None:
        self._http.close()

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
        msgs = as_message_dicts(messages)
        system = "\n\n".join(m["content"] for m in msgs if m["role"] == "system")
        turns = [m for m in msgs if m["role"] != "system"]
        if json_schema is not None:
            # No grammar here: the schema goes into the instructions and the answer is parsed
            # (and rejected with OutputParseError when it does not parse).
            import json

            system = (system + "\n\n" if system else "") + (
                "Answer with one JSON object only, matching this JSON schema:\n"
                + json.dumps(json_schema)
            )
        payload: dict[str, Any] = {
            "model": self.endpoint.model,
            "max_tokens": max_tokens,
            "temperature": temperature,
            "messages": turns,
        }
        if system:
            payload["system"] = system
        if stop:
            payload["stop_sequences"] = list(stop)
        started = time.perf_counter()
        data = self._http.post("v1/messages", payload)
        where = self._http.base_url
        try:
            text = "".join(
                validate.answer_text(b.get("text"), where)
                for b in data["content"]
                if b.get("type") == "text"
            )
        except (KeyError, TypeError, AttributeError):
            raise ProviderError("Unexpected answer from the Anthropic API.", "") from None
        text = self._http.mask(text)
        usage = validate.usage_of(data)
        stop_reason = validate.short_label(data.get("stop_reason"))
        if json_schema is not None and stop_reason == "max_tokens":
            raise OutputParseError(
                "The model's JSON answer was cut off at the max_tokens limit.",
                "Ask for a shorter answer or raise max_tokens.",
            )
        return ChatResult(
            text=text,
            model=self._http.mask(validate.short_label(data.get("model")) or self.endpoint.model),
            prompt_tokens=validate.token_count(usage.get("input_tokens")),
            completion_tokens=validate.token_count(usage.get("output_tokens")),
            finish_reason=stop_reason,
            seconds=time.perf_counter() - started,
            data=parse_json_output(text) if json_schema is not None else None,
        )
