"""The model host's channel: pickled messages, each after its length, over a pipe.

The app writes requests to the host's stdin and reads replies from a dedicated copy of its
stdout (the host points its own stdout at stderr, so nothing a native library prints can
reach the channel). Both ends are this package at the same version, in processes of one
user, so pickle is safe here; nothing else can write to the pipe.

Requests (app -> host):
    ("call", id, ref, settings, method, args, kwargs)   a provider method (or "getattr",
                                                        "setattr"); replies "ok" or "err"
    ("admin", id, name, args)                           a host-wide request (ADMIN in
                                                        host_server.py); replies "ok"/"err"
    ("stop", id)                                        stop call `id`; replies "stopping"
    ("close",)                                          finish and exit
Replies (host -> app): ("ready", pid), ("ok", id, value), ("err", id, error),
("stopping", id).
"""

from __future__ import annotations

import pickle
import struct
from typing import IO, Any

from quizsmith.errors import ProviderError

_LENGTH = struct.Struct("!Q")
#: The channel's environment switch: "0" runs the local models in the calling process.
HOST_ENV = "QUIZSMITH_MODEL_HOST"
#: Libraries only the host imports: the app's process never does (tests check it).
MODEL_LIBRARIES = ("torch", "transformers", "llama_cpp", "sentence_transformers", "onnxruntime")


def send(stream: IO[bytes], message: Any) -> None:
    data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(_LENGTH.pack(len(data)) + data)
    stream.flush()


def receive(stream: IO[bytes]) -> Any:
    """The next message; EOFError when the other end closed (or died)."""
    header = _read_exactly(stream, _LENGTH.size)
    (length,) = _LENGTH.unpack(header)
    return pickle.loads(_read_exactly(stream, length))


def _read_exactly(stream: IO[bytes], n: int) -> bytes:
    chunks: list[bytes] = []
    left = n
    while left:
        chunk = stream.read(left)
        if not chunk:
            raise EOFError("the model host's channel closed")
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def portable_error(exc: BaseException) -> BaseException:
    """`exc` itself where it survives pickling (every QuizsmithError does), else a
    ProviderError that names it: the app must get an error it can show, never a pickling
    failure in its place."""
    try:
        pickle.loads(pickle.dumps(exc, protocol=pickle.HIGHEST_PROTOCOL))
    except Exception:
        return ProviderError(
            f"The model failed: {type(exc).__name__}: {exc}.",
            "Try again; the model host's log (`quizsmith models` names the log folder) has "
            "the details.",
        )
    return exc
