"""API faults against a loopback fault server, seen the way a teacher and a support person
see them: how many requests were sent (bounded retries), the message and its fix, and the
API key in none of the exception text, the log file or a crash log.

tests/providers/test_http_errors.py checks the HTTP client's behaviour per status with a
scripted JSON server. This module adds what that one cannot do (answers cut half-way,
connections closed without an answer, DNS failure), runs every fault with logging on at
DEBUG into the real log file and greps it, and drives faults end to end through
`quizsmith score` with the key in a keyring."""

from __future__ import annotations

import json
import logging
import socket
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from quizsmith.errors import AuthError, ProviderError, QuizsmithError
from quizsmith.providers import Message, http
from quizsmith.providers.openai_compat import OpenAIProvider
from quizsmith.settings import Endpoint

from .conftest import KEY, files_holding_key

MAX_RETRIES = 2
CHAT_OK = {
    "model": "m",
    "choices": [{"message": {"role": "assistant", "content": "ok"}, "finish_reason": "stop"}],
    "usage": {"prompt_tokens": 3, "completion_tokens": 1},
}


# -- the fault server ------------------------------------------------------------------------
@dataclass
class Fault:
    """One answer: a status and JSON body, or raw bytes written as they are before the
    connection is closed (`raw`), optionally after `delay_s`."""

    status: int = 200
    body: Any = field(default_factory=lambda: CHAT_OK)
    headers: dict[str, str] = field(default_factory=dict)
    raw: bytes | None = None
    delay_s: float = 0.0


class FaultServer:
    """A real http.server on 127.0.0.1 that answers request i with `faults[i]` (the last one
    repeats) and counts the requests it received."""

    def __init__(self, faults: list[Fault]) -> None:
        self.faults = faults
        self.requests = 0
        self.seen_headers: list[dict[str, str]] = []
        lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("content-length") or 0))
                with lock:
                    fault = server.faults[min(server.requests, len(server.faults) - 1)]
                    server.requests += 1
                    server.seen_headers.append({k.lower(): v for k, v in self.headers.items()})
                time.sleep(fault.delay_s)
                try:
                    if fault.raw is not None:
                        self.wfile.write(fault.raw)
                        self.wfile.flush()
                        self.close_connection = True
                        return
                    data = json.dumps(fault.body).encode()
                    self.send_response(fault.status)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(data)))
                    for name, value in fault.headers.items():
                        self.send_header(name, value)
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base_url = f"http://127.0.0.1:{self._server.server_address[1]}/v1"
        threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        ).start()

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()


def _cut_body(status: int = 200) -> bytes:
    """Headers promise 2,000 bytes; the connection closes after a few."""
    head = f"HTTP/1.1 {status} OK\r\ncontent-type: application/json\r\ncontent-length: 2000\r\n\r\n"
    return head.encode() + b'{"choices": [{"message": {"content": "o'


def _truncated_json() -> bytes:
    body = b'{"choices": [{"message": {"content": "ok"'
    head = (
        f"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {len(body)}\r\n\r\n"
    )
    return head.encode() + body


def _refused_url() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"  # nothing listens there any more


# -- fixtures ---------------------------------------------------------------------------------
@pytest.fixture(autouse=True)
def fast_backoff(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(http, "BACKOFF_BASE_S", 0.01)


def _provider(base_url: str, **overrides: Any) -> OpenAIProvider:
    fields: dict[str, Any] = {
        "name": "school",
        "base_url": base_url,
        "model": "m",
        "key_name": "school-server",
        "max_retries": MAX_RETRIES,
        "timeout_s": 0.5,
    }
    fields.update(overrides)
    return OpenAIProvider(Endpoint(**fields))


def _no_key_anywhere(*texts: str, folders: tuple[Path, ...] = ()) -> None:
    for text in texts:
        assert KEY not in text
    assert files_holding_key(*folders) == []


# -- the fault matrix -------------------------------------------------------------------------
@dataclass(frozen=True)
class Case:
    faults: list[Fault]
    error: type[QuizsmithError] | None  # None: the call succeeds in the end
    requests: int | None  # what the server must have received (None: no server)
    says: str = ""
    fix: str = ""


TRIES = MAX_RETRIES + 1
CASES: dict[str, Case] = {
    "timeout": Case([Fault(delay_s=1.0)], ProviderError, TRIES, "timed out", "timeout_s"),
    "401": Case(
        [Fault(401, {"error": {"message": f"bad key {KEY}"}})],
        AuthError,
        1,
        "rejected the API key",
        "quizsmith key set school-server",
    ),
    "404 model": Case(
        [Fault(404, {"error": {"message": "The model `m` does not exist"}})],
        ProviderError,
        1,
        "does not exist",
        "model name",
    ),
    "429 Retry-After": Case(
        [Fault(429, {"error": {"message": "rate limited"}}, {"retry-after": "0"})],
        ProviderError,
        TRIES,
        "HTTP 429",
        "Try again later",
    ),
    "429 then ok": Case(
        [Fault(429, {"error": {"message": "slow down"}}, {"retry-after": "0"}), Fault()],
        None,
        2,
    ),
    "500": Case(
        [Fault(500, {"error": {"message": "boom"}})], ProviderError, TRIES, "HTTP 500", "Try"
    ),
    "body cut half-way": Case(
        [Fault(raw=_cut_body())], ProviderError, TRIES, "dropped the connection", "Try again"
    ),
    "body cut, then ok": Case([Fault(raw=_cut_body()), Fault()], None, 2),
    "closed without an answer": Case(
        [Fault(raw=b"")], ProviderError, TRIES, "dropped the connection", "Try again"
    ),
    "truncated JSON, full length": Case(
        [Fault(raw=_truncated_json())], ProviderError, 1, "not JSON", "base_url"
    ),
}


@pytest.mark.parametrize("name", list(CASES))
def test_fault(name: str, key_in_keyring: Path, log_file: Path, caplog: Any) -> None:
    case = CASES[name]
    server = FaultServer(case.faults)
    provider = _provider(server.base_url)
    try:
        if case.error is None:
            assert provider.chat([Message("user", "hi")], max_tokens=3).text == "ok"
            shown = ""
        else:
            with pytest.raises(case.error) as caught:
                provider.chat([Message("user", "hi")], max_tokens=3)
            err = caught.value
            shown = "\n".join([str(err), repr(err), *map(str, err.args), err.fix])
            assert case.says in str(err) and case.fix in str(err)
            assert err.fix, "every fault names its fix"
        assert server.requests == case.requests
        # The key travelled where it should (the header) and nowhere else.
        assert all(h["authorization"] == f"Bearer {KEY}" for h in server.seen_headers)
    finally:
        provider.close()
        server.close()
    for handler in logging.getLogger().handlers:
        handler.flush()
    _no_key_anywhere(shown, caplog.text, folders=(log_file.parent,))


@pytest.mark.parametrize(
    ("name", "base_url"),
    [
        ("connection refused", _refused_url()),
        # RFC 2606 reserves .invalid: the name can never resolve.
        ("DNS failure", "http://quizsmith-fault-test.invalid/v1"),
    ],
)
def test_unreachable_server(
    name: str, base_url: str, key_in_keyring: Path, log_file: Path, caplog: Any
) -> None:
    provider = _provider(base_url, timeout_s=3.0)
    started = time.monotonic()
    try:
        with pytest.raises(ProviderError) as caught:
            provider.chat([Message("user", "hi")], max_tokens=3)
    finally:
        provider.close()
    err = caught.value
    assert "could not be reached" in str(err) and f"after {TRIES} tries" in str(err)
    assert base_url.rsplit("/v1", 1)[0] in str(err)  # names the server that failed
    assert err.fix
    assert time.monotonic() - started < 30
    _no_key_anywhere(str(err), repr(err), caplog.text, folders=(log_file.parent,))


# -- end to end: `quizsmith score` with an API qa model that fails ----------------------------
def _bank_with_one_item(path: Path) -> None:
    from quizsmith.bank import ItemBank
    from quizsmith.domain import Item, Passage

    with ItemBank(path) as bank:
        passage = Passage(text="The Eiffel Tower was built for the 1889 World's Fair in Paris.")
        passage.id = bank.add_passage(passage)
        bank.add_item(
            Item(
                type="short",
                stem="In what year was the Eiffel Tower built?",
                key="1889",
                passage_id=passage.id,
                passage=passage,
            )
        )


def _settings_with_endpoint(base_url: str) -> None:
    from quizsmith import settings as settings_mod

    s = settings_mod.Settings(n_threads=1)
    s.roles["qa"] = "endpoint:school"
    s.endpoints["school"] = Endpoint(
        name="school",
        base_url=base_url,
        model="m",
        key_name="school-server",
        max_retries=MAX_RETRIES,
        timeout_s=0.5,
    )
    settings_mod.save(s)


@pytest.mark.parametrize(
    "fault",
    [Fault(500, {"error": {"message": f"upstream said {KEY}"}}), Fault(401), Fault(raw=b"")],
    ids=["500 echoing the key", "401", "closed"],
)
def test_score_cli_with_a_failing_api_says_not_scored_and_keeps_the_key_out(
    fault: Fault,
    key_in_keyring: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    log_file: Path,
) -> None:
    from quizsmith.bank import ItemBank
    from quizsmith.cli import main
    from quizsmith.providers import manager

    server = FaultServer([fault])
    bank_path = tmp_path / "b.qbank"
    _bank_with_one_item(bank_path)
    _settings_with_endpoint(server.base_url)
    try:
        code = main(["score", "--bank", str(bank_path), "--metrics", "naco"])
    finally:
        server.close()
        manager.close_all()
    out, err = capsys.readouterr()
    assert code == 4, err  # finished, but an item was not scored (cli.EXIT_INCOMPLETE)
    assert "0 scores written" in out and "1 not scored" in out
    assert server.requests <= MAX_RETRIES + 1
    with ItemBank(bank_path, create=False, read_only=True) as bank:
        (item,) = bank.search(limit=None)
        (result,) = bank.score_history(item.id, "naco")
        assert not result.scored and result.not_scored_reason
        assert bank.integrity_problems() == []
    # Everything this run wrote: settings, logs, crash logs, the bank and its WAL (the
    # keyring's own file, where the key belongs, is the one exception).
    written = [p for p in tmp_path.iterdir() if p != key_in_keyring]
    _no_key_anywhere(out, err, folders=tuple(written))
