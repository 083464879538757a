"""One try of an HTTP request below the retry policy (providers/http.py): a total deadline
for the try, and the answer's body decoded within a size limit; HttpError, what a failed
request raises.

`timeout_s` is a total deadline for one try: connecting, sending and reading the whole answer.
httpx's own timeouts bound each socket operation only, so a server dripping one byte every
half second kept a request alive for minutes; here every socket read and write is clamped to
what is left of the try's deadline (`try_deadline`, `_DeadlineBackend`). The answer is
decompressed here, from the raw bytes, at most one megabyte per step and never past the limit
(`BoundedDecoder`): httpx expands a whole network chunk through every layer of a stacked
`Content-Encoding: gzip, gzip` before anyone can count it (a 3.5 KB answer reached 4.25 GB),
so stacked encodings are refused and the one layer allowed is inflated step by step.
"""

from __future__ import annotations

import threading
import time
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from quizsmith.errors import ProviderError

#: Decompressed bytes produced per step: the most memory one step can take beyond the answer.
INFLATE_STEP = 1024 * 1024
#: The encodings asked for, and so the only ones decoded (br and zstd are not asked for even
#: when their packages are installed, so there is one decoder to bound).
ACCEPT_ENCODING = "gzip, deflate"
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


@contextmanager
def try_deadline(timeout_s: float) -> Iterator[None]:
    """Every socket operation of this thread within the block ends `timeout_s` from now."""
    _deadline.value = time.monotonic() + timeout_s
    try:
        yield
    finally:
        _deadline.value = None


class BoundedDecoder:
    """The body of an answer decoded from its raw bytes, never more than `limit` bytes.

    One content coding (gzip or deflate, the ones asked for) or none. Each step inflates at
    most `INFLATE_STEP` bytes and counts them before the next, so memory stays near the limit
    whatever the compression ratio. Stacked codings (`gzip, gzip`) are refused: a server has
    no reason to send them and each layer multiplies the ratio (about 1,000 per layer).
    """

    def __init__(
        self, header: str, limit: int, too_large: Callable[[], HttpError], base_url: str
    ) -> None:
        codings = [c.strip().lower() for c in header.split(",")]
        codings = [c for c in codings if c and c != "identity"]
        self._limit, self._too_large, self._base_url = limit, too_large, base_url
        self._size = 0
        self._deflate_raw_tried = False
        self._z: Any = None
        if len(codings) > 1:
            raise HttpError(
                f"The server at {base_url} sent an answer compressed {len(codings)} times over "
                f"(Content-Encoding: {header.strip()[:80]}); it was not read.",
                "Check the server and any proxy between you and it: an answer is compressed "
                "once (gzip) or not at all.",
            )
        if codings and codings[0] not in ("gzip", "x-gzip", "deflate"):
            raise HttpError(
                f"The server at {base_url} sent an answer in an encoding that was not asked "
                f"for (Content-Encoding: {header.strip()[:80]}); it was not read.",
                "Check the server and any proxy between you and it.",
            )
        self._coding = codings[0] if codings else ""
        if self._coding in ("gzip", "x-gzip"):
            self._z = zlib.decompressobj(16 + zlib.MAX_WBITS)
        elif self._coding == "deflate":
            self._z = zlib.decompressobj()

    def _damaged(self) -> HttpError:
        return HttpError(
            f"The server at {self._base_url} sent an answer that cannot be decoded "
            "(damaged compression).",
            "Check any proxy between you and the server, and try again.",
        )

    def _count(self, piece: bytes) -> bytes:
        self._size += len(piece)
        if self._size > self._limit:
            raise self._too_large()
        return piece

    def feed(self, data: bytes) -> list[bytes]:
        if self._z is None:
            return [self._count(data)]
        out: list[bytes] = []
        original = data
        try:
            while True:
                step = min(self._limit - self._size + 1, INFLATE_STEP)
                before = len(data)
                piece = self._z.decompress(data, step)
                data = self._z.unconsumed_tail
                out.append(self._count(piece))
                if len(piece) < step and not data:
                    return out
                if not piece and len(data) == before:
                    return out  # no progress possible (a stream that has ended)
        except zlib.error:
            if self._coding == "deflate" and not self._deflate_raw_tried and not self._size:
                # "deflate" is sent both zlib-wrapped (the standard) and raw (old servers).
                self._deflate_raw_tried = True
                self._z = zlib.decompressobj(-zlib.MAX_WBITS)
                return self.feed(original)
            raise self._damaged() from None

    def finish(self) -> list[bytes]:
        if self._z is None:
            return []
        # Whatever zlib still holds comes out in bounded steps too.
        return self.feed(b"")


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


def deadline_transport(limits: Any) -> Any:
    """An httpx transport whose socket operations share one deadline per try.

    httpx exposes no total time-out and its HTTPTransport no network backend argument;
    httpcore's pool takes a network backend (public httpcore API), so the transport's pool
    gets one wrapped in `_DeadlineBackend`. Should a future httpx build its pool differently,
    the check below fails loudly (no client can be built, so every HTTP test fails, and
    tests/reliability/test_http_boundary.py times a dripping server) rather than silently
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
