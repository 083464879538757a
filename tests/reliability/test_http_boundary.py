"""The provider boundary against a hostile server on 127.0.0.1 (issue 18): a total deadline
per try, a size limit that counts decompressed bytes, Retry-After paid once per run, 200
answers of the wrong shape, impossible log-probabilities, keys echoed in another letter case
or written into base_url, and OPENAI_API_KEY kept from foreign hosts."""

from __future__ import annotations

import gzip
import json
import socket
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from quizsmith.errors import AuthError, ProviderError
from quizsmith.providers import Message, http
from quizsmith.providers.http import JsonHttpClient
from quizsmith.providers.openai_compat import OpenAIProvider
from quizsmith.settings import Endpoint

from .conftest import KEY

#: (request index, request JSON) -> raw bytes to send (None: send them slowly, see Drip).
Respond = Callable[[int, dict[str, Any]], bytes]


def reply(body: Any, status: int = 200, headers: dict[str, str] | None = None) -> bytes:
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    head = (
        f"HTTP/1.1 {status} X\r\ncontent-type: application/json\r\ncontent-length: {len(data)}\r\n"
    )
    for name, value in (headers or {}).items():
        head += f"{name}: {value}\r\n"
    return (head + "connection: close\r\n\r\n").encode() + data


class RawServer:
    """A real TCP server on 127.0.0.1 speaking just enough HTTP/1.1: it reads each request
    and writes what `respond` returns, `drip_s` seconds between bytes when set."""

    def __init__(self, respond: Respond, drip_s: float = 0.0) -> None:
        self.respond, self.drip_s = respond, drip_s
        self.requests: list[dict[str, Any]] = []
        self.headers: list[str] = []
        self._sock = socket.socket()
        self._sock.bind(("127.0.0.1", 0))
        self._sock.listen(16)
        self.base_url = f"http://127.0.0.1:{self._sock.getsockname()[1]}/v1"
        self._closed = False
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while not self._closed:
            try:
                conn, _ = self._sock.accept()
            except OSError:
                return
            threading.Thread(target=self._handle, args=(conn,), daemon=True).start()

    def _handle(self, conn: socket.socket) -> None:
        with conn:
            try:
                data = b""
                while b"\r\n\r\n" not in data:
                    data += conn.recv(65536)
                head, _, body = data.partition(b"\r\n\r\n")
                length = 0
                for line in head.decode("latin-1").split("\r\n")[1:]:
                    name, _, value = line.partition(":")
                    if name.lower() == "content-length":
                        length = int(value)
                while len(body) < length:
                    body += conn.recv(65536)
                index = len(self.requests)
                self.requests.append(json.loads(body or b"{}"))
                self.headers.append(head.decode("latin-1"))
                out = self.respond(index, self.requests[-1])
                if self.drip_s:
                    for i in range(len(out)):
                        if self._closed:
                            return
                        conn.sendall(out[i : i + 1])
                        time.sleep(self.drip_s)
                else:
                    conn.sendall(out)
            except OSError:
                pass

    def close(self) -> None:
        self._closed = True
        self._sock.close()


@pytest.fixture
def serve() -> Iterator[Callable[..., RawServer]]:
    servers: list[RawServer] = []

    def start(respond: Respond, drip_s: float = 0.0) -> RawServer:
        servers.append(RawServer(respond, drip_s))
        return servers[-1]

    yield start
    for server in servers:
        server.close()


def chat_ok(content: Any = "ok", usage: Any = None) -> dict[str, Any]:
    return {
        "model": "m",
        "choices": [
            {"message": {"role": "assistant", "content": content}, "finish_reason": "stop"}
        ],
        "usage": usage if usage is not None else {"prompt_tokens": 3, "completion_tokens": 1},
    }


def provider(base_url: str, **endpoint: Any) -> OpenAIProvider:
    settings = {"timeout_s": 5.0, "max_retries": 1, "key_name": "", **endpoint}
    return OpenAIProvider(Endpoint(name="t", base_url=base_url, model="m", **settings))


def hi(p: OpenAIProvider) -> Any:
    return p.chat([Message("user", "hi")], max_tokens=5)


@pytest.fixture(autouse=True)
def fast_backoff(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(http, "BACKOFF_BASE_S", 0.01)


# -- total deadline --------------------------------------------------------------------------
def test_a_dripping_server_is_cut_off_at_the_total_deadline(serve: Any) -> None:
    # 1 byte every 0.1 s: ~50 s for the whole answer; each gap is far below timeout_s.
    server = serve(lambda i, req: reply(chat_ok("x" * 300)), drip_s=0.1)
    p = provider(server.base_url, timeout_s=1.0, max_retries=1)
    started = time.monotonic()
    with pytest.raises(ProviderError) as caught:
        hi(p)
    elapsed = time.monotonic() - started
    p.close()
    assert elapsed < 4.0, elapsed  # 2 tries x 1 s, plus backoff
    assert "timed out" in str(caught.value) and "after 2 tries" in str(caught.value)
    assert "timeout_s" in caught.value.fix
    assert len(server.requests) == 2


def test_a_fast_answer_is_unaffected_by_the_deadline(serve: Any) -> None:
    server = serve(lambda i, req: reply(chat_ok("fine")))
    p = provider(server.base_url, timeout_s=1.0)
    assert hi(p).text == "fine" and hi(p).text == "fine"
    p.close()


# -- size limit ------------------------------------------------------------------------------
def test_an_oversized_answer_is_refused(serve: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(http, "MAX_RESPONSE_BYTES", 1024 * 1024)
    server = serve(lambda i, req: reply(chat_ok("x" * (3 * 1024 * 1024))))
    p = provider(server.base_url)
    with pytest.raises(ProviderError, match="larger than 1 MB"):
        hi(p)
    p.close()
    assert len(server.requests) == 1  # not retried: the same request gets the same answer


def test_a_gzip_bomb_is_stopped_at_the_limit_not_expanded(
    serve: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(http, "MAX_RESPONSE_BYTES", 1024 * 1024)
    bomb = gzip.compress(b'{"a": "' + b"0" * (256 * 1024 * 1024), compresslevel=9)
    assert len(bomb) < 1024 * 1024  # small on the wire

    def respond(i: int, req: dict[str, Any]) -> bytes:
        return reply(bomb, headers={"content-encoding": "gzip"})

    server = serve(respond)
    client = JsonHttpClient(server.base_url, timeout_s=20, max_retries=0)
    started = time.monotonic()
    with pytest.raises(ProviderError, match="larger than 1 MB"):
        client.post("chat/completions", {})
    client.close()
    assert time.monotonic() - started < 10


# -- Retry-After -----------------------------------------------------------------------------
def test_a_long_retry_after_pauses_once_then_fails_fast(
    serve: Any, caplog: pytest.LogCaptureFixture
) -> None:
    busy = reply({"error": {"message": "quota"}}, 429, {"retry-after": "3600"})
    server = serve(lambda i, req: busy)
    client = JsonHttpClient(server.base_url, timeout_s=5, max_retries=3, backoff_max_s=0.3)
    started = time.monotonic()
    with pytest.raises(ProviderError) as first:
        client.post("chat/completions", {})
    assert time.monotonic() - started < 2.0  # one pause of backoff_max_s, not 3600 s
    assert len(server.requests) == 2
    assert "asks to wait 60 minutes" in str(first.value) and "Try again after" in first.value.fix
    assert "pausing" in caplog.text
    started = time.monotonic()
    for _ in range(5):  # the next items of the run: no request, no wait
        with pytest.raises(ProviderError, match="asks to wait"):
            client.post("chat/completions", {})
    assert time.monotonic() - started < 0.5
    assert len(server.requests) == 2
    client.close()


# -- answers of the wrong shape --------------------------------------------------------------
def test_usage_of_the_wrong_type_is_ignored(serve: Any) -> None:
    server = serve(lambda i, req: reply(chat_ok("ok", usage={"prompt_tokens": "lots"})))
    result = hi(provider(server.base_url))
    assert result.text == "ok" and result.prompt_tokens == 0
    server2 = serve(lambda i, req: reply(chat_ok("ok", usage="lots")))
    assert hi(provider(server2.base_url)).completion_tokens == 0


@pytest.mark.parametrize("content", [5, ["a"], {"text": "x"}, True])
def test_content_that_is_not_text_is_a_provider_error(serve: Any, content: Any) -> None:
    server = serve(lambda i, req: reply(chat_ok(content)))
    with pytest.raises(ProviderError, match="where the text of the answer belongs"):
        hi(provider(server.base_url))


def _logprob_answer(value: Any) -> Respond:
    def respond(i: int, req: dict[str, Any]) -> bytes:
        prompt = req["prompt"]  # one token per character, the first without a logprob
        lp = {"tokens": list(prompt), "token_logprobs": [None] + [value] * (len(prompt) - 1)}
        lp["text_offset"] = list(range(len(prompt)))
        # json.dumps writes NaN and Infinity as the bare words some servers send.
        return reply({"choices": [{"text": prompt, "logprobs": lp}]})

    return respond


@pytest.mark.parametrize("value", [float("nan"), float("inf"), float("-inf"), 3.5, "x", True])
def test_impossible_logprobs_are_refused_at_the_boundary(serve: Any, value: Any) -> None:
    server = serve(_logprob_answer(value))
    p = provider(server.base_url)
    with pytest.raises(ProviderError) as caught:
        p.option_logprobs("Q: which? A:", [" yes", " no"])
    assert "log-probability" in str(caught.value)
    p.close()


def test_a_normal_logprob_still_scores(serve: Any) -> None:
    server = serve(_logprob_answer(-0.25))
    scores = provider(server.base_url).option_logprobs("Q: which? A:", [" yes", " no"])
    assert [s.total for s in scores] == [-1.0, -0.75]  # 4 and 3 characters


# -- keys ------------------------------------------------------------------------------------
def test_a_key_echoed_in_another_case_is_masked_in_the_answer(serve: Any) -> None:
    server = serve(lambda i, req: reply(chat_ok(f"your key is {KEY.lower()} / {KEY.upper()}")))
    p = OpenAIProvider(
        Endpoint(name="t", base_url=server.base_url, model="m", key_name="t"), api_key=KEY
    )
    text = hi(p).text
    assert KEY.lower() not in text.lower() and text == "your key is *** / ***"
    assert f"Bearer {KEY}" in server.headers[0]


def test_a_key_in_base_url_userinfo_is_used_but_never_shown(serve: Any) -> None:
    from quizsmith.modelreport import models_report
    from quizsmith.settings import Settings, save

    secret = "userinfo-SECRET-9876"
    busy = reply({"error": {"message": "down"}}, 500)
    server = serve(lambda i, req: busy)
    url = server.base_url.replace("http://", f"http://teacher:{secret}@")
    p = provider(url, max_retries=0)
    assert secret not in json.dumps(p.info.details)
    with pytest.raises(ProviderError) as caught:
        hi(p)
    assert secret not in str(caught.value) and "***@127.0.0.1" in str(caught.value)
    assert "authorization: basic " in server.headers[0].lower()  # httpx sends it as Basic auth
    s = Settings()
    s.endpoints["school"] = Endpoint(name="school", base_url=url, model="m")
    save(s)
    report = models_report()
    assert secret not in report and "***@127.0.0.1" in report


def test_openai_api_key_is_not_sent_to_another_host(
    serve: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from quizsmith.modelreport import models_report
    from quizsmith.settings import Settings, save

    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.delenv("PYTHON_KEYRING_BACKEND", raising=False)
    monkeypatch.delenv("QUIZSMITH_API_KEY_FAKE", raising=False)
    server = serve(lambda i, req: reply(chat_ok()))
    with pytest.raises(AuthError, match="No API key for 'fake'"):
        provider(server.base_url, key_name="fake")
    assert server.requests == []
    s = Settings()
    s.endpoints["fake"] = Endpoint(
        name="fake", base_url=server.base_url, model="m", key_name="fake"
    )
    save(s)
    assert "key 'fake': MISSING" in models_report()
    # Naming the variable as the key is a deliberate choice: then it is sent.
    p = provider(server.base_url, key_name="OPENAI_API_KEY")
    assert hi(p).text == "ok" and f"Bearer {KEY}" in server.headers[0]
    # And api.openai.com, the key's own host, still gets it (no request made here).
    own = Endpoint(name="o", base_url="https://api.openai.com/v1", model="m", key_name="o")
    assert OpenAIProvider(own)._http._secrets[0] == f"Bearer {KEY}"
