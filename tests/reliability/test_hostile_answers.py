"""Round three (issue 28) at the HTTP boundary, against a real server on 127.0.0.1: stacked
gzip layers, a bomb measured while it is decoded, absurd Retry-After values, and a server
that fails every request (a 429 or 500 storm)."""

from __future__ import annotations

import gzip
import time
import tracemalloc
import zlib
from pathlib import Path
from typing import Any

import pytest

from quizsmith.errors import ProviderError
from quizsmith.providers import http
from quizsmith.providers.http import JsonHttpClient, _parse_retry_after
from quizsmith.settings import Endpoint

from . import test_http_boundary as boundary
from .test_http_boundary import chat_ok, reply

# The real server on 127.0.0.1 and the shortened backoff of the round-two tests.
serve = boundary.serve
fast_backoff = boundary.fast_backoff

MB = 1024 * 1024


def _gzip_of_zeros(size: int) -> bytes:
    """gzip of `size` zero bytes, made in pieces so the test never holds them all."""
    z = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    block = bytes(16 * MB)
    parts = [z.compress(block) for _ in range(size // len(block))]
    return b"".join([*parts, z.flush()])


# -- Content-Encoding ------------------------------------------------------------------------
def test_stacked_gzip_layers_are_refused_without_expanding(
    serve: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Inner: 512 MiB of zeros as gzip (~0.5 MB); outer: gzip of that (a few KB on the wire).
    # httpx expanded both layers of a network chunk at once: 4.25 GB for 2 GiB inside.
    inner = _gzip_of_zeros(512 * MB)
    body = gzip.compress(inner, compresslevel=9)
    assert len(body) < 64 * 1024
    server = serve(lambda i, req: reply(body, headers={"content-encoding": "gzip, gzip"}))
    client = JsonHttpClient(server.base_url, timeout_s=20, max_retries=2)
    tracemalloc.start()
    try:
        with pytest.raises(ProviderError) as caught:
            client.post("chat/completions", {})
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
        client.close()
    assert "compressed 2 times over" in str(caught.value)
    assert "proxy" in caught.value.fix
    assert peak < 8 * MB, peak
    assert len(server.requests) == 1  # not retried: the same request gets the same answer


def test_a_gzip_bomb_is_measured_while_it_is_decoded(
    serve: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(http, "MAX_RESPONSE_BYTES", 1 * MB)
    bomb = _gzip_of_zeros(256 * MB)
    server = serve(lambda i, req: reply(bomb, headers={"content-encoding": "gzip"}))
    client = JsonHttpClient(server.base_url, timeout_s=20, max_retries=0)
    tracemalloc.start()
    try:
        with pytest.raises(ProviderError, match="larger than 1 MB"):
            client.post("chat/completions", {})
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
        client.close()
    # One network chunk of this bomb expands to ~64 MB; decoded step by step the peak stays
    # near the limit (1 MB of answer plus one 1 MB step).
    assert peak < 8 * MB, peak


@pytest.mark.parametrize(
    "encoding,compress",
    [
        ("gzip", gzip.compress),
        ("deflate", zlib.compress),  # zlib-wrapped, as the standard says
        ("deflate", lambda b: zlib.compress(b)[2:-4]),  # raw deflate, as old servers send
        ("identity", lambda b: b),
        ("gzip, identity", gzip.compress),
    ],
)
def test_ordinary_compressed_answers_still_read(serve: Any, encoding: str, compress: Any) -> None:
    body = compress(b'{"choices": [{"message": {"content": "' + b"ok " * 50000 + b'"}}]}')
    server = serve(lambda i, req: reply(body, headers={"content-encoding": encoding}))
    client = JsonHttpClient(server.base_url, timeout_s=5, max_retries=0)
    data = client.post("chat/completions", {})
    client.close()
    assert data["choices"][0]["message"]["content"].startswith("ok ok")
    assert "accept-encoding: gzip, deflate" in server.headers[0].lower()


def test_an_encoding_not_asked_for_is_refused(serve: Any) -> None:
    server = serve(lambda i, req: reply(b"\x00" * 40, headers={"content-encoding": "br"}))
    client = JsonHttpClient(server.base_url, timeout_s=5, max_retries=0)
    with pytest.raises(ProviderError, match="not asked for"):
        client.post("chat/completions", {})
    client.close()


# -- Retry-After -----------------------------------------------------------------------------
@pytest.mark.parametrize(
    "header,seconds",
    [
        ("1e20", http.MAX_RETRY_AFTER_S),
        ("inf", http.MAX_RETRY_AFTER_S),
        ("-inf", None),
        ("nan", None),
        ("-5", None),
        ("7", 7.0),
        ("soon", None),
        ("Fri, 31 Dec 9999 23:59:59 GMT", http.MAX_RETRY_AFTER_S),
        ("Mon, 01 Jan 1990 00:00:00 GMT", 0.0),
    ],
)
def test_retry_after_is_read_within_a_range(header: str, seconds: float | None) -> None:
    assert _parse_retry_after(header) == seconds


@pytest.mark.parametrize("header", ["1e20", "inf", "nan", "-1", "1e308", "99999999999999999999"])
def test_an_absurd_retry_after_never_crashes(serve: Any, header: str) -> None:
    busy = reply({"error": {"message": "slow down"}}, 429, {"retry-after": header})
    server = serve(lambda i, req: busy)
    client = JsonHttpClient(server.base_url, timeout_s=5, max_retries=3, backoff_max_s=0.2)
    started = time.monotonic()
    for _ in range(2):
        with pytest.raises(ProviderError) as caught:
            client.post("chat/completions", {})
        assert "429" in str(caught.value)
    client.close()
    assert time.monotonic() - started < 5
    if header in ("nan", "-1"):  # not a time: the client's own short backoff
        assert "after" in str(caught.value) and "tries" in str(caught.value)
    else:  # "never": a day at most; paid as one short pause, then no more requests
        assert "24.0 hours" in str(caught.value) and "Try again after" in caught.value.fix


def _bank_with_one_item(path: Path) -> None:
    from quizsmith.bank import ItemBank
    from quizsmith.domain import Item, Passage

    with ItemBank(path) as bank:
        passage = Passage(text="The Eiffel Tower was built for the 1889 World's Fair in Paris.")
        passage.id = bank.add_passage(passage)
        for stem in ("In what year was the Eiffel Tower built?", "For what fair was it built?"):
            bank.add_item(
                Item(type="short", stem=stem, key="1889", passage_id=passage.id, passage=passage)
            )


def _qa_endpoint(base_url: str, **options: Any) -> None:
    from quizsmith import settings as settings_mod

    s = settings_mod.Settings(n_threads=1)
    s.roles["qa"] = "endpoint:school"
    s.endpoints["school"] = Endpoint(name="school", base_url=base_url, model="m", **options)
    settings_mod.save(s)


def test_score_with_retry_after_1e20_marks_the_items_not_scored(
    serve: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(http, "BACKOFF_MAX_S", 0.2)  # the one pause, shortened
    from quizsmith.bank import ItemBank
    from quizsmith.cli import main
    from quizsmith.providers import manager

    busy = reply({"error": {"message": "later"}}, 429, {"retry-after": "1e20"})
    server = serve(lambda i, req: busy)
    bank_path = tmp_path / "b.qbank"
    _bank_with_one_item(bank_path)
    _qa_endpoint(server.base_url, max_retries=2, timeout_s=2.0)
    try:
        code = main(["score", "--bank", str(bank_path), "--metrics", "naco"])
    finally:
        manager.close_all()
    out, err = capsys.readouterr()
    assert code == 4, err  # finished; items not scored (before: rc 1, OverflowError)
    assert "Unexpected error" not in err and "2 not scored" in out
    with ItemBank(bank_path, create=False, read_only=True) as bank:
        for item in bank.search(limit=None):
            (result,) = bank.score_history(item.id, "naco")
            assert not result.scored and "wait" in (result.not_scored_reason or "")


# -- storms ----------------------------------------------------------------------------------
@pytest.mark.parametrize("status,retry_after", [(429, "0.3"), (500, None), (503, "0.01")])
def test_a_storm_of_failures_gives_up_on_the_endpoint(
    serve: Any, monkeypatch: pytest.MonkeyPatch, status: int, retry_after: str | None
) -> None:
    headers = {"retry-after": retry_after} if retry_after else {}
    server = serve(lambda i, req: reply({"error": {"message": "busy"}}, status, headers))
    # backoff_max_s 0.4 stands for the default 30 s and Retry-After 0.3 for the reported 29 s:
    # the waits of one request add up to at most the cap (four waits of 29 s cost 116 s).
    client = JsonHttpClient(server.base_url, timeout_s=5, max_retries=4, backoff_max_s=0.4)
    started = time.monotonic()
    messages = []
    for _ in range(10):  # ten items of a run
        with pytest.raises(ProviderError) as caught:
            client.post("chat/completions", {})
        messages.append(caught.value)
    elapsed = time.monotonic() - started
    client.close()
    # Three requests' worth of tries, then nothing more is sent for GIVE_UP_FOR_S.
    assert len(server.requests) <= http.GIVE_UP_AFTER * 5
    assert elapsed < http.GIVE_UP_AFTER * 0.4 + 2.0
    last = messages[-1]
    assert f"failed {http.GIVE_UP_AFTER} requests in a row" in str(last)
    assert f"HTTP {status}" in str(last) and "5 minutes" in str(last)
    assert "rate limit" in last.fix
    if retry_after == "0.3":  # one wait per request fits the cap, a second would not
        assert len(server.requests) == http.GIVE_UP_AFTER * 2


def test_a_success_between_failures_keeps_the_endpoint(serve: Any) -> None:
    def respond(i: int, req: dict[str, Any]) -> bytes:
        # Two requests fail every try, the third gets through, and so on.
        if (i // 2) % 3 == 2:
            return reply(chat_ok("fine"))
        return reply({"error": {"message": "busy"}}, 500)

    server = serve(respond)
    client = JsonHttpClient(server.base_url, timeout_s=5, max_retries=1, backoff_max_s=0.05)
    outcomes = []
    for _ in range(8):
        try:
            client.post("chat/completions", {})
            outcomes.append("ok")
        except ProviderError as exc:
            outcomes.append("in a row" if "in a row" in str(exc) else "failed")
    client.close()
    assert "ok" in outcomes and "in a row" not in outcomes
