"""Retries, time-outs, key handling and error messages of the HTTP providers, against a small
real HTTP server on 127.0.0.1 whose answers each test scripts."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import keyring
import pytest
from keyring.backends import fail

from quizsmith.errors import AuthError, CapabilityError, OutputParseError, ProviderError
from quizsmith.providers import Message, http
from quizsmith.providers.anthropic import AnthropicProvider
from quizsmith.providers.openai_compat import OpenAIProvider
from quizsmith.settings import Endpoint

KEY = "sk-test-7f3a9c1e5b2d4086"
MAX_RETRIES = 2
CHAT_OK = {
    "model": "fake-model",
    "choices": [{"message": {"role": "assistant", "content": "ok"}, "finish_reason": "stop"}],
    "usage": {"prompt_tokens": 7, "completion_tokens": 1},
}


# -- the scripted server ---------------------------------------------------------------------
@dataclass
class Reply:
    status: int = 200
    body: Any = field(default_factory=lambda: CHAT_OK)  # dict/list: JSON; bytes: as is
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0


@dataclass
class Seen:
    path: str
    headers: dict[str, str]  # lower-case names
    body: Any


class FakeServer:
    """`replies[i]` answers request i (the last one answers all later requests); an entry
    may be a function of the request."""

    def __init__(self) -> None:
        self.replies: list[Reply | Callable[[Seen], Reply]] = [Reply()]
        self.seen: list[Seen] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self.providers: list[Any] = []  # closed with the server
        self._lock = threading.Lock()
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("content-length") or 0))
                seen = Seen(
                    self.path,
                    {k.lower(): v for k, v in self.headers.items()},
                    json.loads(raw) if raw else None,
                )
                with fake._lock:
                    index = len(fake.seen)
                    fake.seen.append(seen)
                    fake.in_flight += 1
                    fake.max_in_flight = max(fake.max_in_flight, fake.in_flight)
                    reply = fake.replies[min(index, len(fake.replies) - 1)]
                try:
                    if callable(reply):
                        reply = reply(seen)
                    time.sleep(reply.delay_s)
                finally:
                    # Leave "in flight" before answering: the client cannot send its next
                    # request before it has this answer.
                    with fake._lock:
                        fake.in_flight -= 1
                body = reply.body
                data = body if isinstance(body, bytes) else json.dumps(body).encode()
                try:
                    self.send_response(reply.status)
                    ctype = "text/html" if isinstance(body, bytes) else "application/json"
                    self.send_header("content-type", ctype)
                    self.send_header("content-length", str(len(data)))
                    for name, value in reply.headers.items():
                        self.send_header(name, value)
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (time-out tests)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.root = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )
        self._thread.start()

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def own(self, provider: Any) -> Any:
        self.providers.append(provider)
        return provider


@pytest.fixture
def fake() -> Iterator[FakeServer]:
    server = FakeServer()
    yield server
    server.close()
    for provider in server.providers:
        provider.close()


@pytest.fixture(autouse=True)
def fast_backoff(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(http, "BACKOFF_BASE_S", 0.01)


@pytest.fixture
def no_keyring(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.delenv("PYTHON_KEYRING_BACKEND", raising=False)
    previous = keyring.get_keyring()
    keyring.set_keyring(fail.Keyring())
    yield
    keyring.set_keyring(previous)


def _openai(fake: FakeServer, **overrides: Any) -> OpenAIProvider:
    fields: dict[str, Any] = {
        "name": "fake",
        "base_url": f"{fake.root}/v1",
        "model": "fake-model",
        "key_name": "school-server",
        "max_retries": MAX_RETRIES,
        "timeout_s": 0.5,
    }
    api_key = overrides.pop("api_key", KEY)
    fields.update(overrides)
    return fake.own(OpenAIProvider(Endpoint(**fields), api_key=api_key))


def _anthropic(fake: FakeServer, **overrides: Any) -> AnthropicProvider:
    fields: dict[str, Any] = {
        "name": "claude",
        "provider": "anthropic",
        "base_url": fake.root,
        "model": "claude-test",
        "max_retries": MAX_RETRIES,
        "timeout_s": 0.5,
    }
    api_key = overrides.pop("api_key", KEY)
    fields.update(overrides)
    return fake.own(AnthropicProvider(Endpoint(**fields), api_key=api_key))


def _hi(provider: Any) -> Any:
    return provider.chat([Message("user", "hi")], max_tokens=5)


def _raises(kind: type[Exception], fn: Callable[[], Any]) -> Any:
    """Run fn, expect `kind`, and check that the key is nowhere in what a user would see."""
    with pytest.raises(kind) as info:
        fn()
    err = info.value
    for shown in (str(err), repr(err), *map(str, err.args)):
        assert KEY not in shown
    return err


def _error_body(message: str) -> dict[str, Any]:
    return {"error": {"message": message, "type": "test"}}


# -- retries ---------------------------------------------------------------------------------
@pytest.mark.parametrize("retry_after", [None, "0"])
def test_429_is_retried_until_it_succeeds(fake: FakeServer, retry_after: str | None) -> None:
    headers = {} if retry_after is None else {"retry-after": retry_after}
    busy = Reply(429, _error_body("rate limited"), headers)
    fake.replies = [busy, busy, Reply()]
    result = _hi(_openai(fake))
    assert result.text == "ok" and result.prompt_tokens == 7 and result.completion_tokens == 1
    assert len(fake.seen) == MAX_RETRIES + 1
    assert all(s.path == "/v1/chat/completions" for s in fake.seen)
    assert all(s.headers["authorization"] == f"Bearer {KEY}" for s in fake.seen)


def test_retry_after_is_honoured(fake: FakeServer) -> None:
    fake.replies = [Reply(429, _error_body("slow down"), {"retry-after": "1"}), Reply()]
    started = time.monotonic()
    assert _hi(_openai(fake)).text == "ok"
    # The backoff alone would wait ~0.01 s here; Retry-After asked for a whole second.
    assert time.monotonic() - started >= 0.95
    assert len(fake.seen) == 2


def test_retry_after_as_an_http_date() -> None:
    soon = format_datetime(datetime.now(UTC) + timedelta(seconds=20), usegmt=True)
    assert 18 <= http._parse_retry_after(soon) <= 20  # type: ignore[operator]
    assert http._parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT") == 0.0
    assert http._parse_retry_after("soon") is None


@pytest.mark.parametrize("status", [500, 503])
def test_server_errors_give_up_after_max_retries(fake: FakeServer, status: int) -> None:
    fake.replies = [Reply(status, _error_body("overloaded"))]
    err = _raises(ProviderError, lambda: _hi(_openai(fake)))
    assert not isinstance(err, AuthError)
    assert len(fake.seen) == MAX_RETRIES + 1
    assert f"HTTP {status}" in str(err) and f"after {MAX_RETRIES + 1} tries" in str(err)
    assert "overloaded" in str(err)  # the server's own words
    assert "Try again later" in err.fix


def test_a_slow_server_times_out_after_retries(fake: FakeServer) -> None:
    fake.replies = [Reply(delay_s=1.0)]  # longer than timeout_s=0.5
    started = time.monotonic()
    err = _raises(ProviderError, lambda: _hi(_openai(fake)))
    assert "timed out" in str(err) and f"after {MAX_RETRIES + 1} tries" in str(err)
    assert "timeout_s" in err.fix
    assert len(fake.seen) == MAX_RETRIES + 1
    assert time.monotonic() - started < 5.0


def test_connection_refused_is_a_provider_error(fake: FakeServer) -> None:
    provider = _openai(fake)
    fake.close()  # nothing listens on the port any more
    err = _raises(ProviderError, lambda: _hi(provider))
    assert "could not be reached" in str(err) and f"after {MAX_RETRIES + 1} tries" in str(err)
    assert err.__cause__ is None


# -- errors that are not retried -------------------------------------------------------------
@pytest.mark.parametrize("status", [401, 403])
def test_rejected_key_is_an_auth_error_without_retry(fake: FakeServer, status: int) -> None:
    # Real servers quote (part of) the key they rejected; it must not reach the message.
    fake.replies = [Reply(status, _error_body(f"Incorrect API key provided: {KEY}"))]
    err = _raises(AuthError, lambda: _hi(_openai(fake)))
    assert len(fake.seen) == 1
    assert fake.seen[0].headers["authorization"] == f"Bearer {KEY}"
    assert f"HTTP {status}" in str(err)
    assert "quizsmith key set school-server" in str(err)


def test_not_found_names_the_url_and_the_fix(fake: FakeServer) -> None:
    fake.replies = [Reply(404, _error_body("The model `fake-model` does not exist"))]
    err = _raises(ProviderError, lambda: _hi(_openai(fake)))
    assert len(fake.seen) == 1
    assert f"{fake.root}/v1/chat/completions" in str(err)
    assert "does not exist" in str(err)
    assert "base_url" in err.fix and "model name" in err.fix


def test_other_4xx_is_not_retried_and_an_echoed_key_is_masked(fake: FakeServer) -> None:
    fake.replies = [Reply(400, _error_body(f"Bad header Authorization: Bearer {KEY}"))]
    err = _raises(ProviderError, lambda: _hi(_openai(fake)))
    assert len(fake.seen) == 1
    assert "HTTP 400" in str(err) and "Bad header Authorization: ***" in str(err)


def test_non_json_answer_is_a_provider_error(fake: FakeServer) -> None:
    fake.replies = [Reply(200, b"<html><body>Welcome to nginx!</body></html>")]
    err = _raises(ProviderError, lambda: _hi(_openai(fake)))
    assert "not JSON" in str(err) and "base_url" in err.fix
    assert len(fake.seen) == 1


# -- keys ------------------------------------------------------------------------------------
def test_missing_key_fails_before_any_request(
    fake: FakeServer, no_keyring: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("QUIZSMITH_API_KEY_SCHOOL_SERVER", raising=False)
    monkeypatch.delenv("QUIZSMITH_API_KEY_CLAUDE", raising=False)
    err = _raises(AuthError, lambda: _openai(fake, api_key=None))
    assert "quizsmith key set school-server" in str(err)
    assert "QUIZSMITH_API_KEY_SCHOOL_SERVER" in str(err)
    err = _raises(AuthError, lambda: _anthropic(fake, api_key=None))
    assert "quizsmith key set claude" in str(err) and "QUIZSMITH_API_KEY_CLAUDE" in str(err)
    assert fake.seen == []


def test_key_from_the_environment_reaches_the_server(
    fake: FakeServer, no_keyring: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("QUIZSMITH_API_KEY_SCHOOL_SERVER", KEY)
    assert _hi(_openai(fake, api_key=None)).text == "ok"
    assert fake.seen[0].headers["authorization"] == f"Bearer {KEY}"


def test_endpoint_without_key_name_sends_no_authorization(fake: FakeServer) -> None:
    assert _hi(_openai(fake, key_name="", api_key=None)).text == "ok"
    assert "authorization" not in fake.seen[0].headers


# -- concurrency -----------------------------------------------------------------------------
def _echo_user_message(seen: Seen) -> Reply:
    content = seen.body["messages"][-1]["content"]
    return Reply(
        body={**CHAT_OK, "choices": [{"message": {"content": content}, "finish_reason": "stop"}]},
        delay_s=0.2,
    )


def test_chat_many_keeps_order_and_at_most_max_concurrency_in_flight(fake: FakeServer) -> None:
    fake.replies = [_echo_user_message]
    # A generous deadline: a reply held 0.2 s could pass 0.5 s on a loaded machine, and a
    # retried call leaves the abandoned one in flight on the server (a third at once).
    provider = _openai(fake, max_concurrency=2, timeout_s=5.0)
    requests = [{"messages": [Message("user", f"q{i}")], "max_tokens": 5} for i in range(6)]
    started = time.monotonic()
    results = provider.chat_many(requests)
    assert [r.text for r in results] == [f"q{i}" for i in range(6)]
    assert len(fake.seen) == 6
    assert fake.max_in_flight == 2  # bounded, and really concurrent
    assert time.monotonic() - started < 6 * 0.2  # faster than one at a time


def test_the_client_bounds_concurrency_for_any_number_of_threads(fake: FakeServer) -> None:
    fake.replies = [_echo_user_message]
    # A generous deadline: a reply held 0.2 s could pass 0.5 s on a loaded machine, and a
    # retried call leaves the abandoned one in flight on the server (a third at once).
    provider = _openai(fake, max_concurrency=2, timeout_s=5.0)
    with ThreadPoolExecutor(max_workers=6) as pool:
        texts = list(pool.map(lambda i: provider.chat([Message("user", f"t{i}")]).text, range(6)))
    assert texts == [f"t{i}" for i in range(6)]
    assert fake.max_in_flight == 2


# -- json_schema fallback --------------------------------------------------------------------
def test_json_schema_rejected_with_400_falls_back_to_json_object(fake: FakeServer) -> None:
    schema = {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]}
    answer = {
        **CHAT_OK,
        "choices": [{"message": {"content": '{"a": "x"}'}, "finish_reason": "stop"}],
    }
    fake.replies = [
        Reply(400, _error_body("response_format json_schema not supported")),
        Reply(body=answer),
    ]
    provider = _openai(fake)
    result = provider.chat([Message("user", "json please")], json_schema=schema)
    assert result.data == {"a": "x"}
    sent = [s.body["response_format"] for s in fake.seen]
    assert [f["type"] for f in sent] == ["json_schema", "json_object"]
    assert sent[0]["json_schema"]["schema"] == schema and sent[1]["schema"] == schema


def test_json_schema_transient_error_is_retried_not_taken_for_a_rejection(
    fake: FakeServer,
) -> None:
    schema = {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]}
    answer = {
        **CHAT_OK,
        "choices": [{"message": {"content": '{"a": "y"}'}, "finish_reason": "stop"}],
    }
    fake.replies = [Reply(503, _error_body("busy")), Reply(body=answer)]
    result = _openai(fake).chat([Message("user", "json please")], json_schema=schema)
    assert result.data == {"a": "y"}
    assert [s.body["response_format"]["type"] for s in fake.seen] == ["json_schema"] * 2


def test_json_answer_cut_off_is_an_output_parse_error(fake: FakeServer) -> None:
    cut = {**CHAT_OK, "choices": [{"message": {"content": '{"a": "x'}, "finish_reason": "length"}]}
    fake.replies = [Reply(body=cut)]
    schema = {"type": "object", "properties": {"a": {"type": "string"}}}
    with pytest.raises(OutputParseError, match="cut off"):
        _openai(fake).chat([Message("user", "json")], json_schema=schema)


# -- prompt log-probabilities ----------------------------------------------------------------
PREFIX = "The capital of France is "
TOKENS = ["The", " capital", " of", " France", " is", " Paris", "."]
OFFSETS = [0, 3, 11, 14, 21, 24, 30]
VALUES = [None, -9.5, -0.7, -4.1, -1.5, -0.25, -0.5]


def _echo_answer(n_entries: int, text: str = "The capital of France is Paris.") -> dict[str, Any]:
    lp = {
        "tokens": TOKENS[:n_entries],
        "text_offset": OFFSETS[:n_entries],
        "token_logprobs": VALUES[:n_entries],
        "top_logprobs": [None] * n_entries,
    }
    return {"choices": [{"text": text, "logprobs": lp, "finish_reason": "length"}]}


def test_option_logprobs_take_the_token_that_spans_the_boundary(fake: FakeServer) -> None:
    fake.replies = [Reply(body=_echo_answer(7))]
    (score,) = _openai(fake).option_logprobs(PREFIX, ["Paris"])
    # " Paris" starts in the prefix's trailing space; the generated "." is not the option's.
    assert score.token_logprobs == (-0.25,) and score.total == -0.25 and score.n_tokens == 1
    sent = fake.seen[0].body
    assert sent["prompt"] == PREFIX + "Paris" and sent["echo"] is True and sent["logprobs"] >= 1


def test_option_logprobs_refuse_a_shifted_answer(fake: FakeServer) -> None:
    # llama-cpp-python's shape for models without BOS: the generated token has no entry.
    fake.replies = [Reply(body=_echo_answer(6))]
    with pytest.raises(CapabilityError, match="shifted by one token"):
        _openai(fake).option_logprobs(PREFIX, ["Paris"])


def test_option_logprobs_without_echo_are_a_capability_error(fake: FakeServer) -> None:
    lp = {"tokens": ["."], "text_offset": [30], "token_logprobs": [-0.5], "top_logprobs": [None]}
    fake.replies = [Reply(body={"choices": [{"text": ".", "logprobs": lp}]})]
    with pytest.raises(CapabilityError, match="no prompt log-probabilities"):
        _openai(fake).option_logprobs(PREFIX, ["Paris"])


# -- Anthropic -------------------------------------------------------------------------------
def _messages_answer(text: str, stop_reason: str = "end_turn") -> dict[str, Any]:
    return {
        "id": "msg_test",
        "type": "message",
        "role": "assistant",
        "model": "claude-test",
        "content": [{"type": "text", "text": text}],
        "stop_reason": stop_reason,
        "usage": {"input_tokens": 12, "output_tokens": 3},
    }


def test_anthropic_system_prompt_headers_and_usage(fake: FakeServer) -> None:
    fake.replies = [Reply(body=_messages_answer("Paris."))]
    result = _anthropic(fake).chat(
        [
            Message("system", "You write quizzes."),
            {"role": "user", "content": "Capital of France?"},
            Message("system", "Be brief."),
        ],
        max_tokens=20,
        stop=["\n\n"],
    )
    assert result.text == "Paris." and result.finish_reason == "end_turn"
    assert (result.prompt_tokens, result.completion_tokens) == (12, 3)
    (seen,) = fake.seen
    assert seen.path == "/v1/messages"
    assert seen.headers["x-api-key"] == KEY and seen.headers["anthropic-version"] == "2023-06-01"
    assert "authorization" not in seen.headers
    assert seen.body["system"] == "You write quizzes.\n\nBe brief."
    assert seen.body["messages"] == [{"role": "user", "content": "Capital of France?"}]
    assert seen.body["model"] == "claude-test" and seen.body["max_tokens"] == 20
    assert seen.body["stop_sequences"] == ["\n\n"]


def test_anthropic_without_system_sends_none(fake: FakeServer) -> None:
    fake.replies = [Reply(body=_messages_answer("hello"))]
    _hi(_anthropic(fake))
    assert "system" not in fake.seen[0].body


def test_anthropic_json_schema_goes_into_the_system_prompt_and_is_parsed(
    fake: FakeServer,
) -> None:
    schema = {
        "type": "object",
        "properties": {"question": {"type": "string"}, "answer": {"type": "string"}},
        "required": ["question", "answer"],
    }
    fenced = '```json\n{"question": "Capital of France?", "answer": "Paris"}\n```'
    fake.replies = [Reply(body=_messages_answer(fenced))]
    result = _anthropic(fake).chat(
        [Message("system", "You write quizzes."), Message("user", "One question.")],
        json_schema=schema,
    )
    assert result.data == {"question": "Capital of France?", "answer": "Paris"}
    system = fake.seen[0].body["system"]
    assert system.startswith("You write quizzes.\n\n")
    assert json.dumps(schema) in system
    assert "response_format" not in fake.seen[0].body


def test_anthropic_json_cut_off_is_an_output_parse_error(fake: FakeServer) -> None:
    fake.replies = [Reply(body=_messages_answer('{"question": "Capi', "max_tokens"))]
    with pytest.raises(OutputParseError, match="cut off"):
        _anthropic(fake).chat([Message("user", "q")], json_schema={"type": "object"})


def test_anthropic_overloaded_is_retried(fake: FakeServer) -> None:
    overloaded = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    fake.replies = [Reply(529, overloaded), Reply(body=_messages_answer("ok"))]
    assert _hi(_anthropic(fake)).text == "ok"
    assert len(fake.seen) == 2


def test_anthropic_rejected_key(fake: FakeServer) -> None:
    fake.replies = [Reply(401, {"type": "error", "error": {"message": "invalid x-api-key"}})]
    err = _raises(AuthError, lambda: _hi(_anthropic(fake)))
    assert "quizsmith key set claude" in str(err)
    assert len(fake.seen) == 1
