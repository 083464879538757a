"""HTTP for API providers: bounded concurrency, retries with backoff, messages with the fix.

Retried: 429, 500, 502, 503, 504, time-outs and dropped connections (exponential backoff with
jitter, honouring Retry-After). Not retried: 401/403 (wrong key), 404 (wrong URL or model),
other 4xx (a request the server will never accept). Keys travel in headers only and never
appear in a message or a log line.
"""

from __future__ import annotations

import logging
import random
import threading
import time
from typing import Any

from quizsmith.errors import AuthError, ProviderError

log = logging.getLogger(__name__)
RETRY_STATUS = frozenset({429, 500, 502, 503, 504})


class JsonHttpClient:
    def __init__(
        self,
        base_url: str,
        *,
        headers: dict[str, str] | None = None,
        timeout_s: float = 60.0,
        max_retries: int = 4,
        max_concurrency: int = 4,
        backoff_base_s: float = 0.5,
        backoff_max_s: float = 30.0,
        key_hint: str = "",
    ) -> None:
        import httpx

        self.base_url = base_url.rstrip("/")
        self.max_retries = max(0, max_retries)
        self.backoff_base_s = backoff_base_s
        self.backoff_max_s = backoff_max_s
        self.key_hint = key_hint  # e.g. "quizsmith key set myserver", for 401 messages
        self._slots = threading.BoundedSemaphore(max(1, max_concurrency))
        self._client = httpx.Client(
            headers=headers or {},
            timeout=httpx.Timeout(timeout_s, connect=min(10.0, timeout_s)),
            limits=httpx.Limits(max_connections=max(1, max_concurrency)),
        )

    def close(self) -> None:
        self._client.close()

    def _delay(self, attempt: int, retry_after: str | None) -> float:
        if retry_after:
            try:
                return min(self.backoff_max_s, max(0.0, float(retry_after)))
            except ValueError:
                pass
        base: float = self.backoff_base_s * (2**attempt)
        return float(min(self.backoff_max_s, base * (0.5 + random.random())))

    def post(self, path: str, payload: dict[str, Any]) -> dict[str, Any]:
        import httpx

        url = f"{self.base_url}/{path.lstrip('/')}"
        last_problem = ""
        for attempt in range(self.max_retries + 1):
            retry_after = None
            try:
                with self._slots:
                    response = self._client.post(url, json=payload)
            except httpx.TimeoutException:
                last_problem = "timed out"
            except httpx.TransportError as exc:
                last_problem = f"could not be reached ({type(exc).__name__})"
            else:
                status = response.status_code
                if status < 400:
                    try:
                        data = response.json()
                    except ValueError:
                        raise ProviderError(
                            f"The server at {self.base_url} answered with something that is not JSON.",
                            "Check that base_url points at an OpenAI-compatible API (often ending in /v1).",
                        ) from None
                    if not isinstance(data, dict):
                        raise ProviderError(f"Unexpected answer from {self.base_url}.", "")
                    return data
                if status in (401, 403):
                    raise AuthError(
                        f"The server at {self.base_url} rejected the API key (HTTP {status}).",
                        f"Check the key{': ' + self.key_hint if self.key_hint else ''}.",
                    )
                if status == 404:
                    raise ProviderError(
                        f"Not found at {url} (HTTP 404): {_server_message(response)}",
                        "Check the endpoint's base_url (usually ending in /v1) and the model name.",
                    )
                if status not in RETRY_STATUS:
                    raise ProviderError(
                        f"The server at {self.base_url} refused the request (HTTP {status}): "
                        f"{_server_message(response)}",
                        "The model or server may not support this request.",
                    )
                last_problem = f"answered HTTP {status}"
                retry_after = response.headers.get("retry-after")
            if attempt < self.max_retries:
                delay = self._delay(attempt, retry_after)
                log.info("%s %s; retry %d in %.1fs", url, last_problem, attempt + 1, delay)
                time.sleep(delay)
        raise ProviderError(
            f"The server at {self.base_url} {last_problem} after {self.max_retries + 1} tries.",
            "Try again later, raise timeout_s, or lower max_concurrency for this endpoint.",
        )


def _server_message(response: Any) -> str:
    try:
        body = response.json()
        error = body.get("error", body) if isinstance(body, dict) else body
        text = error.get("message", str(error)) if isinstance(error, dict) else str(error)
    except ValueError:
        text = response.text
    return str(text)[:300]
