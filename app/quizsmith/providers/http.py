"""HTTP for API providers: bounded concurrency, retries with backoff, messages with the fix.

Why this module is long: the retry policy is one mechanism (JsonHttpClient.post, the waits
it pays, the pause when a server says "later" and the stop after failures in a row), and
every failure it ends in gets its own message with the fix; one try below it is
providers/http_transport.py.

Retried: 408, 429, 500, 502, 503, 504, 529 (Anthropic's "overloaded"), time-outs and dropped
connections (exponential backoff with jitter, honouring Retry-After). Not retried: 401/403
(wrong key), 404 (wrong URL or model), other 4xx (a request the server will never accept).
Keys travel in headers only and never appear in a message or a log line; a key that a server
echoes in its error message is masked (in any letter case).

One try is bounded below this policy (providers/http_transport.py): `timeout_s` is a total
deadline for connecting, sending and reading the whole answer, and an answer larger than
`max_response_bytes` (after decompression: a gzip bomb counts at its expanded size) is cut off
and refused.

Waiting: a Retry-After is read as a number of seconds in [0, one day] (1e20, inf, nan or a
negative value is not a time to wait: it is clamped or ignored). A Retry-After longer than the
backoff cap pauses the client once; if the server still says "later", every request of this
client fails at once until that time instead of each one waiting again. The waits of one
request add up to at most `backoff_max_s`, and after `GIVE_UP_AFTER` requests in a row that
failed every try (a 429 or 500 storm, a server that is down) the client sends nothing more
for `GIVE_UP_FOR_S`, so a run over many items ends in seconds with the reason instead of
paying the whole backoff for every item.
"""

from __future__ import annotations

import email.utils
import logging
import math
import random
import threading
import time
from typing import Any

from quizsmith.errors import AuthError
from quizsmith.providers.http_transport import (
    ACCEPT_ENCODING,
    BoundedDecoder,
    HttpError,
    deadline_transport,
    try_deadline,
)
from quizsmith.secrets import mask_secrets, split_userinfo
from quizsmith.settings import plain_http_warning

log = logging.getLogger(__name__)
#: What the teacher should hear about, not only the log file: the CLI prints the records of
#: "quizsmith.notices" loggers on stderr as "warning: ...".
NOTICES = logging.getLogger("quizsmith.notices.http")
#: Addresses already warned about in this process (a run builds a client per model role).
_warned_plain_http: set[str] = set()
RETRY_STATUS = frozenset({408, 429, 500, 502, 503, 504, 529})
#: Default first backoff step in seconds (doubled per retry, with jitter). A module constant
#: so tests can shorten it.
BACKOFF_BASE_S = 0.5
#: The longest single wait, and the most the waits of one request add up to (seconds).
BACKOFF_MAX_S = 30.0
#: The largest answer read (decoded). Chat answers are kilobytes; an echo-logprobs answer
#: for a 4k-token prompt about 300 KB; an embedding batch a few MB.
MAX_RESPONSE_BYTES = 32 * 1024 * 1024
#: The longest Retry-After honoured, in seconds: anything longer (up to 1e20, or inf) is read
#: as "a day", which already means "not in this run".
MAX_RETRY_AFTER_S = 24 * 3600.0
#: Requests in a row that failed every try before the client stops sending for a while.
GIVE_UP_AFTER = 3
#: How long a client that gave up sends nothing (the rest of a CLI run; a GUI session tries
#: again after it).
GIVE_UP_FOR_S = 300.0
_SECRET_HEADERS = frozenset({"authorization", "x-api-key", "api-key"})


class JsonHttpClient:
    def __init__(
        self,
        base_url: str,
        *,
        headers: dict[str, str] | None = None,
        timeout_s: float = 60.0,
        max_retries: int = 4,
        max_concurrency: int = 4,
        backoff_base_s: float | None = None,
        backoff_max_s: float | None = None,
        key_hint: str = "",
        max_response_bytes: int | None = None,
    ) -> None:
        import httpx

        self._url = base_url.rstrip("/")
        # What messages, logs and the bank show: a key in user:key@ is masked.
        self.base_url, userinfo = split_userinfo(self._url)
        self.timeout_s = timeout_s
        self.max_retries = max(0, max_retries)
        self.backoff_base_s = BACKOFF_BASE_S if backoff_base_s is None else backoff_base_s
        self.backoff_max_s = BACKOFF_MAX_S if backoff_max_s is None else backoff_max_s
        self.key_hint = key_hint  # e.g. "quizsmith key set myserver", for 401 messages
        self.max_response_bytes = max_response_bytes or MAX_RESPONSE_BYTES
        # Header values that carry a key, masked should a server echo them anywhere.
        self._secrets = _header_secrets(headers or {}) + ([userinfo] if userinfo else [])
        warning = plain_http_warning(self._url) if self._secrets else None
        if warning and self.base_url not in _warned_plain_http:
            _warned_plain_http.add(self.base_url)
            NOTICES.warning("The endpoint at %s %s", self.base_url, warning)
        self._slots = threading.BoundedSemaphore(max(1, max_concurrency))
        # "Later" from the server: no request before this time (monotonic), and why.
        self._later_lock = threading.Lock()
        self._paused_once = False
        self._later_until = 0.0
        self._later_error: HttpError | None = None
        self._failed_in_row = 0
        limits = httpx.Limits(max_connections=max(1, max_concurrency))
        self._client = httpx.Client(
            headers={"accept-encoding": ACCEPT_ENCODING, **(headers or {})},
            timeout=httpx.Timeout(timeout_s, connect=min(10.0, timeout_s)),
            limits=limits,
            transport=deadline_transport(limits),
        )

    def mask(self, text: str) -> str:
        """`text` with the keys this client sends (and every known key) masked."""
        return mask_secrets(text, self._secrets)

    def close(self) -> None:
        self._client.close()

    def _delay(self, attempt: int, retry_after: str | None) -> float:
        wait = _parse_retry_after(retry_after)
        if wait is not None:
            return min(self.backoff_max_s, wait)
        base: float = self.backoff_base_s * (2**attempt)
        return float(min(self.backoff_max_s, base * (0.5 + random.random())))

    def post(
        self, path: str, payload: dict[str, Any], *, retries: int | None = None
    ) -> dict[str, Any]:
        """POST `payload` as JSON and return the JSON answer.

        `retries` overrides the client's `max_retries` for this one request (0: one try).
        """
        import httpx

        url = f"{self._url}/{path.lstrip('/')}"
        shown_url = f"{self.base_url}/{path.lstrip('/')}"
        max_retries = self.max_retries if retries is None else max(0, retries)
        last_problem = ""
        last_status: int | None = None
        last_detail = ""
        waited = 0.0
        tries = 0
        for attempt in range(max_retries + 1):
            tries = attempt + 1
            self._refuse_if_told_to_wait()
            retry_after = None
            try:
                with self._slots:
                    status, headers, body = self._one_try(url, payload)
            except httpx.TimeoutException:
                last_problem = f"timed out (no complete answer within {self.timeout_s:g} s)"
                last_status, last_detail = None, ""
            except (httpx.RemoteProtocolError, httpx.ReadError) as exc:
                # The server was reached but the answer broke off: a different fix from a
                # wrong address, so it gets its own words.
                last_problem = (
                    f"dropped the connection before its answer was complete ({type(exc).__name__})"
                )
                last_status, last_detail = None, ""
            except httpx.TransportError as exc:
                last_problem = f"could not be reached ({type(exc).__name__})"
                last_status, last_detail = None, ""
            except httpx.DecodingError:
                raise HttpError(
                    f"The server at {self.base_url} sent an answer that cannot be decoded "
                    "(damaged compression).",
                    "Check any proxy between you and the server, and try again.",
                ) from None
            else:
                if 300 <= status < 400:
                    raise self._redirected(url, path, status, headers.get("location"))
                if status < 400:
                    with self._later_lock:
                        self._failed_in_row = 0
                    return self._json_answer(status, body)
                if status in (401, 403):
                    raise AuthError(
                        f"The server at {self.base_url} rejected the API key (HTTP {status}).",
                        f"Check the key{': ' + self.key_hint if self.key_hint else ''}.",
                    )
                detail = self._server_message(body)
                if status == 404:
                    raise HttpError(
                        f"Not found at {shown_url} (HTTP 404): {detail}",
                        "Check the endpoint's base_url (usually ending in /v1) and the model name.",
                        status=status,
                        detail=detail,
                    )
                if status not in RETRY_STATUS:
                    raise HttpError(
                        f"The server at {self.base_url} refused the request (HTTP {status}): "
                        f"{detail}",
                        "The model or server may not support this request.",
                        status=status,
                        detail=detail,
                    )
                last_problem = f"answered HTTP {status}"
                last_status, last_detail = status, detail
                retry_after = headers.get("retry-after")
            if attempt < max_retries:
                delay = self._delay_or_give_up(attempt, retry_after, last_status, last_detail)
                if waited + delay > self.backoff_max_s and waited > 0:
                    # The waits of one request never add up to more than the cap: four
                    # Retry-After: 29 cost 116 s per item before.
                    break
                log.info("%s %s; retry %d in %.2fs", shown_url, last_problem, attempt + 1, delay)
                time.sleep(delay)
                waited += delay
        error = HttpError(
            f"The server at {self.base_url} {last_problem} after {tries} "
            f"{'try' if tries == 1 else 'tries'}" + (f": {last_detail}" if last_detail else "."),
            "Try again later, raise timeout_s, or lower max_concurrency for this endpoint.",
            status=last_status,
            detail=last_detail,
            retryable=True,
        )
        self._count_failure(error)
        raise error

    def _count_failure(self, error: HttpError) -> None:
        """After GIVE_UP_AFTER requests in a row failed every try, send nothing for a while."""
        with self._later_lock:
            self._failed_in_row += 1
            if self._failed_in_row < GIVE_UP_AFTER:
                return
            self._failed_in_row = 0
            self._later_until = time.monotonic() + GIVE_UP_FOR_S
            self._later_error = HttpError(
                f"The server at {self.base_url} failed {GIVE_UP_AFTER} requests in a row "
                f"(the last: {error.message.removeprefix(f'The server at {self.base_url} ')}); "
                f"no more requests are sent to it for {_duration(GIVE_UP_FOR_S)}.",
                "Check that the server is running and not over its rate limit, then run again "
                f"(after {time.strftime('%H:%M', time.localtime(time.time() + GIVE_UP_FOR_S))}"
                " in the desktop app).",
                status=error.status,
                detail=error.detail,
            )
            log.warning("%s", self._later_error.message)

    def _one_try(self, url: str, payload: dict[str, Any]) -> tuple[int, Any, bytes]:
        """(status, headers, body) of one request, the whole of it within timeout_s."""
        with (
            try_deadline(self.timeout_s),
            self._client.stream("POST", url, json=payload) as response,
        ):
            declared = response.headers.get("content-length", "")
            if declared.isdigit() and int(declared) > self.max_response_bytes:
                raise self._too_large()
            decoder = BoundedDecoder(
                response.headers.get("content-encoding", ""),
                self.max_response_bytes,
                self._too_large,
                self.base_url,
            )
            chunks: list[bytes] = []
            raw_size = 0
            # Raw bytes are decoded here, so every decoded byte is counted as it is made:
            # a small gzip body that expands to a gigabyte is stopped at the limit.
            for raw in response.iter_raw():
                raw_size += len(raw)
                if raw_size > self.max_response_bytes:
                    raise self._too_large()
                chunks.extend(decoder.feed(raw))
            chunks.extend(decoder.finish())
            return response.status_code, response.headers, b"".join(chunks)

    def _redirected(self, url: str, path: str, status: int, location: str | None) -> HttpError:
        """A redirect is reported, never followed: the key would go along to an address the
        teacher did not configure (and an answer read as "not JSON" named no redirect)."""
        from urllib.parse import urljoin

        target = split_userinfo(urljoin(url, location))[0] if location else ""
        target = self.mask(target)
        shown = target if len(target) <= 200 else target[:200] + "…"
        suffix = "/" + path.lstrip("/")
        new_base = target[: -len(suffix)] if target.endswith(suffix) and len(target) <= 200 else ""
        fix = (
            f"If that is the server's new address and you trust it, set the endpoint's base_url "
            f'to "{new_base}".'
            if new_base
            else "Check the endpoint's base_url: use the address the server answers at "
            "itself (often https:// rather than http://, or ending in /v1)."
        )
        return HttpError(
            f"The server at {self.base_url} redirected the request (HTTP {status}) "
            + (f"to {shown}" if shown else "without saying where")
            + "; Quizsmith does not follow redirects, so that the API key goes only to the "
            "address in the settings.",
            fix,
            status=status,
        )

    def _too_large(self) -> HttpError:
        return HttpError(
            f"The server at {self.base_url} sent an answer larger than "
            f"{self.max_response_bytes // (1024 * 1024)} MB; it was not read.",
            "Check the endpoint's base_url and model; ask for shorter answers (max_tokens).",
        )

    def _json_answer(self, status: int, body: bytes) -> dict[str, Any]:
        import json

        try:
            data = json.loads(body)
        except (ValueError, RecursionError):
            raise HttpError(
                f"The server at {self.base_url} answered with something that is "
                "not JSON (a web page, or an answer cut off on the way).",
                "Check the endpoint's base_url (for OpenAI-compatible servers it "
                "usually ends in /v1); if it is right, try again, and check any "
                "proxy between you and the server.",
                status=status,
            ) from None
        if not isinstance(data, dict):
            raise HttpError(
                f"Unexpected answer from {self.base_url}.",
                "Check the endpoint's base_url.",
                status=status,
            )
        return data

    def _refuse_if_told_to_wait(self) -> None:
        with self._later_lock:
            error = self._later_error
            if error is not None and time.monotonic() < self._later_until:
                raise HttpError(str(error.message), error.fix, status=error.status)

    def _delay_or_give_up(
        self, attempt: int, retry_after: str | None, status: int | None, detail: str
    ) -> float:
        """Seconds to wait before the next try; raises when the server said "much later".

        A Retry-After beyond the backoff cap (Retry-After: 3600) is paid once per client, as
        one pause of backoff_max_s with a message; asked again, the client stops sending
        until the server's time has come, so a run does not wait again for every item.
        """
        wait = _parse_retry_after(retry_after)
        if wait is None or wait <= self.backoff_max_s:
            return self._delay(attempt, retry_after)
        resume_format = "%H:%M" if wait < 12 * 3600 else "%a %H:%M"
        with self._later_lock:
            if not self._paused_once:
                self._paused_once = True
                log.warning(
                    "The server at %s asks to wait %.0f s (HTTP %s); pausing %g s once.",
                    self.base_url,
                    wait,
                    status,
                    self.backoff_max_s,
                )
                return self.backoff_max_s
            resume = time.strftime(resume_format, time.localtime(time.time() + wait))
            self._later_until = time.monotonic() + wait
            self._later_error = HttpError(
                f"The server at {self.base_url} asks to wait {_duration(wait)} before the "
                f"next request (HTTP {status}" + (f": {detail})." if detail else ")."),
                f"Try again after {resume}; no more requests are sent to it until then.",
                status=status,
                detail=detail,
            )
            log.warning("%s", self._later_error.message)
            raise self._later_error

    def _server_message(self, raw: bytes) -> str:
        """The server's own error message, short, with any key the client sent masked."""
        import json

        try:
            body = json.loads(raw)
            error = body.get("error", body.get("detail", body)) if isinstance(body, dict) else body
            text = error.get("message", str(error)) if isinstance(error, dict) else str(error)
        except (ValueError, RecursionError):
            text = raw[:2000].decode("utf-8", "replace")
        return self.mask(str(text))[:300]


def _header_secrets(headers: dict[str, str]) -> list[str]:
    secrets = []
    for name, value in headers.items():
        if name.lower() in _SECRET_HEADERS and value:
            secrets.append(value)
            scheme, _, token = value.partition(" ")
            if token and scheme.lower() == "bearer":
                secrets.append(token)
    # Longest first, so "Bearer KEY" is masked as a whole before KEY alone.
    return sorted(set(secrets), key=len, reverse=True)


def _parse_retry_after(value: str | None) -> float | None:
    """Seconds to wait from a Retry-After header: delta-seconds or an HTTP date, in
    [0, MAX_RETRY_AFTER_S]. None (use the client's own backoff) for what is not a time to
    wait: nan, a negative number, text. 1e20 and inf are "a day": the server means "not now"."""
    if not value:
        return None
    try:
        seconds = float(value)
    except ValueError:
        seconds = math.nan
        try:
            when = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError, OverflowError, IndexError):
            return None
        if when.tzinfo is None:
            return None
        return min(MAX_RETRY_AFTER_S, max(0.0, when.timestamp() - time.time()))
    if math.isnan(seconds) or seconds < 0:
        return None
    return min(MAX_RETRY_AFTER_S, seconds)


def _duration(seconds: float) -> str:
    if seconds >= 5400:
        return f"{seconds / 3600:.1f} hours"
    if seconds >= 90:
        return f"{seconds / 60:.0f} minutes"
    return f"{seconds:.0f} s"
