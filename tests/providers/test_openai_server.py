"""The `openai` provider against a real OpenAI-compatible server: llama-cpp-python's own
(`python -m llama_cpp.server`), serving the bundled SmolLM2-135M on 127.0.0.1.

Two servers run for this module:

* `server`: the stock model file, exactly as a user would start it. Its echo log-probabilities
  are shifted by one token, because llama-cpp-python scores every prompt token with the
  distribution that follows it when the model adds no BOS token (SmolLM2 adds none;
  abetlen/llama-cpp-python#1983). The provider must refuse them rather than score with them.
* `bos_server`: a copy of the same file whose header says "add a BOS token", so the server's
  echo log-probabilities line up. The local llama.cpp provider is pointed at the very same
  copy, so both see identical token ids and the numbers must agree.

llama-cpp-python serves its one model under any model name, so a wrong model name cannot
give an error against this server; a wrong base_url (404) is checked instead.
"""

from __future__ import annotations

import math
import shutil
import struct
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from quizsmith.errors import CapabilityError, ProviderError, QuizsmithError
from quizsmith.providers import Message, catalog, provider_for
from quizsmith.providers.openai_compat import OpenAIProvider
from quizsmith.settings import Endpoint, Settings
from support.llama_server import free_port, llama_server

pytestmark = pytest.mark.slow

ALIAS = "smollm2"
STARTUP_TIMEOUT_S = 120.0
QA_SCHEMA = {
    "type": "object",
    "properties": {"question": {"type": "string"}, "answer": {"type": "string"}},
    "required": ["question", "answer"],
}
PREFIX = "The capital of France is"
OPTIONS = [" Paris", " banana", " the city of Lyon"]


# -- servers ---------------------------------------------------------------------------------
def _smollm_path() -> Path:
    return catalog.locate(catalog.find("smollm2-135m-instruct", catalog.load_catalog()))


def _copy_with_bos(src: Path, dst: Path) -> Path:
    """Copy a GGUF file and set its `tokenizer.ggml.add_bos_token` flag to true (one byte)."""
    shutil.copyfile(src, dst)
    key = b"tokenizer.ggml.add_bos_token"
    with dst.open("r+b") as f:
        head = f.read(1 << 20)
        at = head.index(struct.pack("<Q", len(key)) + key) + 8 + len(key)
        assert struct.unpack("<I", head[at : at + 4])[0] == 7, "the flag is not a GGUF bool"
        f.seek(at + 4)
        f.write(b"\x01")
    return dst


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    # Polls GET /v1/models; a server that dies or does not answer in time raises with its
    # log in the message; terminate (then kill) on exit.
    with llama_server(_smollm_path(), alias=ALIAS, startup_s=STARTUP_TIMEOUT_S) as base_url:
        yield base_url


@pytest.fixture(scope="module")
def bos_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _copy_with_bos(_smollm_path(), tmp_path_factory.mktemp("bos") / "smollm2-bos.gguf")


@pytest.fixture(scope="module")
def bos_server(bos_model: Path) -> Iterator[str]:
    with llama_server(bos_model, alias=ALIAS, startup_s=STARTUP_TIMEOUT_S) as base_url:
        yield base_url


def _provider(base_url: str, **overrides: Any) -> OpenAIProvider:
    fields: dict[str, Any] = {
        "name": "llama-test",
        "base_url": base_url,
        "model": ALIAS,
        "timeout_s": 120.0,
        "max_retries": 1,
        "max_concurrency": 3,
    }
    fields.update(overrides)
    return OpenAIProvider(Endpoint(**fields))


@pytest.fixture
def provider(server: str) -> Iterator[OpenAIProvider]:
    p = _provider(server)
    yield p
    p.close()


@pytest.fixture(scope="module")
def server_scores(bos_server: str) -> dict[str, Any]:
    """option_logprobs through the BOS server, computed once for the tests below."""
    p = _provider(bos_server)
    try:
        return {
            "plain": p.option_logprobs(PREFIX, OPTIONS),
            # The option's first token (" Paris") spans the prefix's trailing space.
            "merged": p.option_logprobs(PREFIX + " ", ["Paris"]),
        }
    finally:
        p.close()


# -- text ------------------------------------------------------------------------------------
def test_chat_returns_text_and_token_counts(provider: OpenAIProvider) -> None:
    result = provider.chat(
        [Message("user", "What is the capital of France? Answer in one word.")], max_tokens=16
    )
    assert result.text.strip()
    assert "paris" in result.text.lower()  # the same greedy answer the local provider gives
    assert result.prompt_tokens > 0
    assert 0 < result.completion_tokens <= 16
    assert result.finish_reason in ("stop", "length")
    assert result.model == ALIAS
    assert result.data is None


def test_json_schema_falls_back_to_json_object_with_schema(
    provider: OpenAIProvider, monkeypatch: pytest.MonkeyPatch
) -> None:
    sent: list[tuple[str, int | None]] = []
    real_post = provider._http.post

    def spy(path: str, payload: dict[str, Any], *, retries: int | None = None) -> Any:
        sent.append((payload["response_format"]["type"], retries))
        return real_post(path, payload, retries=retries)

    monkeypatch.setattr(provider._http, "post", spy)

    def ask(text: str) -> Any:
        prompt = f"Text: {text}\nWrite a quiz question and its answer as JSON."
        return provider.chat([Message("user", prompt)], max_tokens=200, json_schema=QA_SCHEMA)

    first = ask("Paris is the capital of France.")
    assert isinstance(first.data, dict)
    assert set(first.data) == {"question", "answer"}
    assert all(isinstance(v, str) for v in first.data.values())
    # llama-cpp-python answers "json_schema" with HTTP 500 (a validation error): asked once
    # without retries, then "json_object" + schema, which its server turns into a grammar.
    assert sent == [("json_schema", 0), ("json_object", None)]

    sent.clear()
    second = ask("The Nile flows into the Mediterranean Sea.")
    assert set(second.data) == {"question", "answer"}
    assert sent == [("json_object", None)]  # the fallback is remembered


def test_complete_continues_a_sequence(provider: OpenAIProvider) -> None:
    result = provider.complete("1, 2, 3, 4,", max_tokens=4)
    assert result.text.strip().startswith("5")
    assert result.prompt_tokens > 0
    assert 0 < result.completion_tokens <= 4


def test_chat_many_returns_results_in_request_order(provider: OpenAIProvider) -> None:
    story = [Message("user", "Tell me a long story about a river.")]
    requests = [{"messages": story, "max_tokens": n} for n in (3, 1, 2)]
    results = provider.chat_many(requests)
    assert len(results) == 3
    # Greedy decoding cut at 3, 1 and 2 tokens: each result is identified by its length.
    assert [r.completion_tokens for r in results] == [3, 1, 2]
    assert all(r.finish_reason == "length" for r in results)
    assert results[0].text.startswith(results[2].text) and results[2].text.startswith(
        results[1].text
    )


# -- scoring ---------------------------------------------------------------------------------
def test_stock_server_logprobs_are_refused_as_shifted(provider: OpenAIProvider) -> None:
    with pytest.raises(CapabilityError, match="shifted by one token") as info:
        provider.option_logprobs(PREFIX, OPTIONS)
    assert "add_bos_token" in str(info.value)  # the fix is named


def test_stock_server_shift_is_what_the_check_detects(server: str) -> None:
    """The cause, measured: the stock server's entry for " is" carries the distribution of
    the *next* token, so P(" Paris" | prefix) appears there, and the entry for " Paris"
    holds a different (wrong) number."""
    local = provider_for("smollm2-135m-instruct", Settings())
    (expected,) = local.option_logprobs(PREFIX, [" Paris"])
    body = httpx.post(
        f"{server}/completions",
        json={
            "model": ALIAS,
            "prompt": PREFIX + " Paris",
            "max_tokens": 1,
            "temperature": 0.0,
            "echo": True,
            "logprobs": 1,
        },
        timeout=120.0,
    ).json()
    lp = body["choices"][0]["logprobs"]
    assert lp["tokens"][-2:] == [" is", " Paris"]
    assert body["choices"][0]["text"] != PREFIX + " Paris"  # a token was generated ...
    assert lp["text_offset"][-1] < len(PREFIX + " Paris")  # ... but has no entry
    assert lp["top_logprobs"][-2][" Paris"] == pytest.approx(expected.total, abs=1e-3)
    assert abs(lp["token_logprobs"][-1] - expected.total) > 1.0


def test_option_logprobs_are_sane(server_scores: dict[str, Any]) -> None:
    scores = server_scores["plain"]
    assert [s.option for s in scores] == OPTIONS
    for s in scores:
        assert math.isfinite(s.total) and s.total < 0
        assert s.n_tokens >= 1 and len(s.token_logprobs) == s.n_tokens
        assert s.mean == pytest.approx(s.total / s.n_tokens)
        assert all(math.isfinite(v) and v <= 0 for v in s.token_logprobs)
    by_option = {s.option: s for s in scores}
    assert by_option[" Paris"].mean > by_option[" banana"].mean + 5.0
    assert by_option[" the city of Lyon"].n_tokens > 1


def test_option_logprobs_agree_with_the_local_provider(
    server_scores: dict[str, Any], bos_model: Path
) -> None:
    local = provider_for(str(bos_model), Settings())
    pairs = list(
        zip(server_scores["plain"], local.option_logprobs(PREFIX, OPTIONS), strict=True)
    ) + list(
        zip(server_scores["merged"], local.option_logprobs(PREFIX + " ", ["Paris"]), strict=True)
    )
    worst = 0.0
    for remote, here in pairs:
        assert remote.option == here.option
        assert remote.n_tokens == here.n_tokens, (remote, here)
        for a, b in zip(remote.token_logprobs, here.token_logprobs, strict=True):
            worst = max(worst, abs(a - b))
    # Same GGUF file, same llama.cpp build, same token ids (checked above). What remains is
    # float32 (server) against float64 (local) log-softmax, ~1e-6 nats (measured: 1.2e-6),
    # and llama.cpp's batch-size-dependent CPU kernels: the server evaluates prefix and
    # option in one batch, the local provider in two, which moves K-quant models by up to
    # ~5e-3 nats (see LlamaCppProvider.option_logprobs). A token scored from the wrong
    # position, as on the stock server, is off by whole nats (8.2 for " Paris").
    assert worst < 5e-3, f"largest per-token difference {worst:.2e} nats"


# -- errors ----------------------------------------------------------------------------------
def test_wrong_base_url_gives_a_clear_error(server: str) -> None:
    root = server.removesuffix("/v1")  # a common mistake: the /v1 left out
    p = _provider(root)
    try:
        with pytest.raises(ProviderError) as info:
            p.chat([Message("user", "hi")], max_tokens=4)
    finally:
        p.close()
    err = info.value
    assert isinstance(err, QuizsmithError)
    assert "HTTP 404" in str(err) and f"{root}/chat/completions" in str(err)
    assert "base_url" in err.fix and "/v1" in err.fix
    assert err.__cause__ is None  # no chained httpx traceback


def test_nothing_listening_gives_a_clear_error() -> None:
    p = _provider(f"http://127.0.0.1:{free_port()}/v1", max_retries=0, timeout_s=5.0)
    try:
        with pytest.raises(ProviderError, match="could not be reached") as info:
            p.chat([Message("user", "hi")], max_tokens=4)
    finally:
        p.close()
    assert info.value.__cause__ is None
