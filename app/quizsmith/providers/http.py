"""HTTP for API providers: bounded concurrency, retries with backoff, messages with the fix.

Why this module is long: the retry policy (JsonHttpClient) and the per-try deadline it relies on
(_DeadlineBackend and _DeadlineStream under httpx's transport) are one mechanism that every API
provider uses; the deadline classes are private to it.

Retried: 408, 429, 500, 502, 503, 504, 529 (Anthropic's "overloaded"), time-outs and dropped
connections (exponential backoff with jitter, honouring Retry-After). Not retried: 401/403
(wrong key), 404 (wrong URL or model), other 4xx (a request the server will never accept).
Keys travel in headers only and never appear in a message or a log line; a key that a server
echoes in its error message is masked (in any letter case).

`timeout_s` is a total deadline for one try: connecting, sending and reading the whole answer.
httpx's own timeouts bound each socket operation only, so a server dripping one byte every
half second kept a request alive for minutes; here every socket read and write is clamped to
what is left of the try's deadline (`_DeadlineBackend`). An answer larger than
`max_response_bytes` (after decompression: a gzip bomb counts at its expanded size) is cut off
and refused. A Retry-After longer than the backoff cap pauses the client once; if the server
still says "later", every request of this client fails at once until that time instead of
each one waiting again.
"""

from __future__ import annotations

import email.utils
import logging
import random
import threading
import time
from typing import Any

from quizsmith.errors import AuthError, ProviderError
from quizsmith.secrets import mask_secrets, split_userinfo

log = logging.getLogger(__name__)
RETRY_STATUS = frozenset({408, 429, 500, 502, 503, 504, 529})
#: Default first backoff step in seconds (doubled per retry, with jitter). A module constant
#: so tests can shorten it.
BACKOFF_BASE_S = 0.5
#: The largest answer read (decoded). Chat answers are kilobytes; an echo-logprobs answer
#: for a 4k-token prompt about 300 KB; an embedding batch a few MB.
MAX_RESPONSE_BYTES = 32 * 1024 * 1024
_SECRET_HEADERS = frozenset({"authorization", "x-api-key", "api-key"})
#: The deadline of the try running on this thread (time.monotonic()), read by the socket layer.
_deadline = threading.local()


class HttpError(ProviderError):
    """A request that failed at the HTTP level, with what is known about why.

    `status` is the last HTTP status (None for a time-out or a connection that failed),
    `detail` the server's own message (keys masked), `retryable` whether the failure was of
    a kind that is retried (so that a caller which asked for no retries may try again).
    """

    def __init__(
        self,
        message: str,
        fix: str = "",
        *,
        status: int | None = None,
        detail: str = "",
        retryable: bool = False,
    ) -> None:
        super().__init__(message, fix)
        self.status = status
        self.detail = detail
        self.retryable = retryable


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
        backoff_max_s: float = 30.0,
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
        self.backoff_max_s = backoff_max_s
        self.key_hint = key_hint  # e.g. "quizsmith key set myserver", for 401 messages
        self.max_response_bytes = max_response_bytes or MAX_RESPONSE_BYTES
        # Header values that carry a key, masked should a server echo them anywhere.
        self._secrets = _header_secrets(headers or {}) + ([userinfo] if userinfo else [])
        self._slots = threading.BoundedSemaphore(max(1, max_concurrency))
        # "Later" from the server: no request before this time (monotonic), and why.
        self._later_lock = threading.Lock()
        self._paused_once = False
        self._later_until = 0.0
        self._later_error: HttpError | None = None
        limits = httpx.Limits(max_connections=max(1, max_concurrency))
        self._client = httpx.Client(
            headers=headers or {},
            timeout=httpx.Timeout(timeout_s, connect=min(10.0, timeout_s)),
            limits=limits,
            transport=_deadline_transport(limits),
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
        for attempt in range(max_retries + 1):
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
                if status < 400:
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
                log.info("%s %s; retry %d in %.2fs", shown_url, last_problem, attempt + 1, delay)
                time.sleep(delay)
        tries = max_retries + 1
        raise HttpError(
            f"The server at {self.base_url} {last_problem} after {tries} "
            f"{'try' if tries == 1 else 'tries'}" + (f": {last_detail}" if last_detail else "."),
            "Try again later, raise timeout_s, or lower max_concurrency for this endpoint.",
            status=last_status,
            detail=last_detail,
            retryable=True,
        )

    def _one_try(self, url: str, payload: dict[str, Any]) -> tuple[int, Any, bytes]:
        """(status, headers, body) of one request, the whole of it within timeout_s."""
        _deadline.value = time.monotonic() + self.timeout_s
        try:
            with self._client.stream("POST", url, json=payload) as response:
                declared = response.headers.get("content-length", "")
                if declared.isdigit() and int(declared) > self.max_response_bytes:
                    raise self._too_large()
                chunks: list[bytes] = []
                size = 0
                # Decoded bytes are counted: a small gzip body that expands to a gigabyte
                # is stopped at the limit, not after it has filled the memory.
                for chunk in response.iter_bytes():
                    size += len(chunk)
                    if size > self.max_response_bytes:
                        raise self._too_large()
                    chunks.append(chunk)
                return response.status_code, response.headers, b"".join(chunks)
        finally:
            _deadline.value = None

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
            resume = time.strftime("%H:%M", time.localtime(time.time() + wait))
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
    """Seconds to wait from a Retry-After header: delta-seconds or an HTTP date."""
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        return None
    return max(0.0, when.timestamp() - time.time())


def _duration(seconds: float) -> str:
    if seconds >= 5400:
        return f"{seconds / 3600:.1f} hours"
    if seconds >= 90:
        return f"{seconds / 60:.0f} minutes"
    return f"{seconds:.0f} s"


def _remaining(timeout: float | None, expired: type[Exception]) -> float | None:
    """`timeout` clamped to what is left of this thread's deadline; `expired` is raised (a
    httpcore time-out, which httpx maps to its own) once nothing is left."""
    deadline = getattr(_deadline, "value", None)
    if deadline is None:
        return timeout
    left = deadline - time.monotonic()
    if left <= 0:
        raise expired("the answer did not arrive in full within timeout_s")
    return left if timeout is None else min(timeout, left)


def _deadline_transport(limits: Any) -> Any:
    """An httpx transport whose socket operations share one deadline per try.

    httpx exposes no total time-out and its HTTPTransport no network backend argument;
    httpcore's pool takes a network backend (public httpcore API), so the transport's pool
    gets one wrapped in `_DeadlineBackend`. Should a future httpx build its pool differently,
    the check below fails loudly in tests/reliability/test_deadlines.py rather than silently
    dropping the deadline.
    """
    import httpcore
    import httpx

    transport = httpx.HTTPTransport(limits=limits)
    pool = getattr(transport, "_pool", None)
    backend = getattr(pool, "_network_backend", None)
    if backend is None:
        raise RuntimeError("httpx's transport has changed; the HTTP deadline cannot be set")
    pool._network_backend = _DeadlineBackend(backend)  # type: ignore[union-attr]
    assert isinstance(pool, httpcore.ConnectionPool)
    return transport


class _DeadlineStream:
    """A httpcore network stream whose reads and writes end at the try's deadline."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        import httpcore

        data: bytes = self._stream.read(max_bytes, _remaining(timeout, httpcore.ReadTimeout))
        return data

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        import httpcore

        self._stream.write(buffer, _remaining(timeout, httpcore.WriteTimeout))

    def close(self) -> None:
        self._stream.close()

    def start_tls(
        self, ssl_context: Any, server_hostname: str | None = None, timeout: float | None = None
    ) -> _DeadlineStream:
        import httpcore

        left = _remaining(timeout, httpcore.ConnectTimeout)
        return _DeadlineStream(self._stream.start_tls(ssl_context, server_hostname, left))

    def get_extra_info(self, info: str) -> Any:
        return self._stream.get_extra_info(info)


class _DeadlineBackend:
    def __init__(self, backend: Any) -> None:
        self._backend = backend

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Any = None,
    ) -> _DeadlineStream:
        import httpcore

        return _DeadlineStream(
            self._backend.connect_tcp(
                host,
                port,
                timeout=_remaining(timeout, httpcore.ConnectTimeout),
                local_address=local_address,
                socket_options=socket_options,
            )
        )

    def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: Any = None
    ) -> _DeadlineStream:
        import httpcore

        return _DeadlineStream(
            self._backend.connect_unix_socket(
                path,
                timeout=_remaining(timeout, httpcore.ConnectTimeout),
                socket_options=socket_options,
            )
        )

    def sleep(self, seconds: float) -> None:
        self._backend.sleep(seconds)
