"""HTTP for API providers: bounded concurrency, retries with backoff, messages with the fix.

Retried: 408, 429, 500, 502, 503, 504, 529 (Anthropic's "overloaded"), time-outs and dropped
connections (exponential backoff with jitter, honouring Retry-After). Not retried: 401/403
(wrong key), 404 (wrong URL or model), other 4xx (a request the server will never accept).
Keys travel in headers only and never appear in a message or a log line; a key that a server
echoes in its error message is masked.
"""

from __future__ import annotations

import email.utils
import logging
import random
import threading
import time
from typing import Any

from quizsmith.errors import AuthError, ProviderError

log = logging.getLogger(__name__)
RETRY_STATUS = frozenset({408, 429, 500, 502, 503, 504, 529})
#: Default first backoff step in seconds (doubled per retry, with jitter). A module constant
#: so tests can shorten it.
BACKOFF_BASE_S = 0.5
_SECRET_HEADERS = frozenset({"authorization", "x-api-key", "api-key"})


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
    ) -> None:
        import httpx

        self.base_url = base_url.rstrip("/")
        self.max_retries = max(0, max_retries)
        self.backoff_base_s = BACKOFF_BASE_S if backoff_base_s is None else backoff_base_s
        self.backoff_max_s = backoff_max_s
        self.key_hint = key_hint  # e.g. "quizsmith key set myserver", for 401 messages
        # Header values that carry a key, masked should a server echo them in an error body.
        self._secrets = _header_secrets(headers or {})
        self._slots = threading.BoundedSemaphore(max(1, max_concurrency))
        self._client = httpx.Client(
            headers=headers or {},
            timeout=httpx.Timeout(timeout_s, connect=min(10.0, timeout_s)),
            limits=httpx.Limits(max_connections=max(1, max_concurrency)),
        )

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

        url = f"{self.base_url}/{path.lstrip('/')}"
        max_retries = self.max_retries if retries is None else max(0, retries)
        last_problem = ""
        last_status: int | None = None
        last_detail = ""
        for attempt in range(max_retries + 1):
            retry_after = None
            try:
                with self._slots:
                    response = self._client.post(url, json=payload)
            except httpx.TimeoutException:
                last_problem, last_status, last_detail = "timed out", None, ""
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
            else:
                status = response.status_code
                if status < 400:
                    try:
                        data = response.json()
                    except ValueError:
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
                if status in (401, 403):
                    raise AuthError(
                        f"The server at {self.base_url} rejected the API key (HTTP {status}).",
                        f"Check the key{': ' + self.key_hint if self.key_hint else ''}.",
                    )
                detail = self._server_message(response)
                if status == 404:
                    raise HttpError(
                        f"Not found at {url} (HTTP 404): {detail}",
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
                retry_after = response.headers.get("retry-after")
            if attempt < max_retries:
                delay = self._delay(attempt, retry_after)
                log.info("%s %s; retry %d in %.2fs", url, last_problem, attempt + 1, delay)
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

    def _server_message(self, response: Any) -> str:
        """The server's own error message, short, with any key the client sent masked."""
        try:
            body = response.json()
            error = body.get("error", body.get("detail", body)) if isinstance(body, dict) else body
            text = error.get("message", str(error)) if isinstance(error, dict) else str(error)
        except ValueError:
            text = response.text
        text = str(text)
        for secret in self._secrets:
            text = text.replace(secret, "***")
        return text[:300]


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
