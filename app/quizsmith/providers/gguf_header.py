"""Read the general.* metadata at the start of a GGUF file without loading the model.

Used to list user models quickly and to tell a teacher "this is not a GGUF file" before
llama.cpp tries (and fails less politely). Stops at the first tokenizer key, so the large
vocabulary arrays are never read.

Everything a header declares is bounded while it is read, since any file dropped into a
models folder is read by every model command: arrays nest at most `_MAX_DEPTH` deep (a
5,000-deep `general.name` ended `quizsmith models`, `score` and `generate` in a
RecursionError), at most `_MAX_VALUES` values and `_MAX_STRING_BYTES` bytes of strings are
read in all, and no loop recurses. A file that breaks a bound is reported as unreadable,
with its name, and skipped; the other models are still listed and used.
"""

from __future__ import annotations

import stat
import struct
from pathlib import Path
from typing import Any, BinaryIO

from quizsmith.errors import ModelNotFoundError

_SCALARS = {
    0: "<B",
    1: "<b",
    2: "<H",
    3: "<h",
    4: "<I",
    5: "<i",
    6: "<f",
    7: "<?",
    10: "<Q",
    11: "<q",
    12: "<d",
}
_STRING, _ARRAY = 8, 9
_MAX_KEYS = 4096
#: Real headers nest arrays at most once (a list of strings); a little room beyond that.
_MAX_DEPTH = 4
#: Values (array elements included) and string bytes read before the first tokenizer key.
#: The general.* keys of real models hold a few hundred values and a few kilobytes.
_MAX_VALUES = 1 << 16
_MAX_STRING_BYTES = 4 << 20
#: One array's length; a big array this early is not worth reading for a listing.
_MAX_ARRAY = 1 << 16


class _Budget:
    """What is left to read: values and string bytes, counted over the whole header."""

    def __init__(self) -> None:
        self.values = _MAX_VALUES
        self.string_bytes = _MAX_STRING_BYTES

    def take(self, values: int = 0, string_bytes: int = 0) -> None:
        self.values -= values
        self.string_bytes -= string_bytes
        if self.values < 0:
            raise ValueError(f"more than {_MAX_VALUES:,} values in its header")
        if self.string_bytes < 0:
            raise ValueError(f"more than {_MAX_STRING_BYTES >> 20} MB of text in its header")


def _read(f: BinaryIO, fmt: str) -> Any:
    size = struct.calcsize(fmt)
    raw = f.read(size)
    if len(raw) != size:
        raise EOFError
    return struct.unpack(fmt, raw)[0]


def _read_string(f: BinaryIO, budget: _Budget) -> str:
    length = _read(f, "<Q")
    if length > 1 << 24:
        raise ValueError("implausible string length")
    budget.take(values=1, string_bytes=length)
    raw = f.read(length)
    if len(raw) != length:
        raise EOFError
    return raw.decode("utf-8", errors="replace")


def _read_value(f: BinaryIO, vtype: int, budget: _Budget) -> Any:
    """One value, nested arrays read with an explicit stack (no recursion) to _MAX_DEPTH."""
    if vtype != _ARRAY:
        return _read_scalar(f, vtype, budget)
    root: list[Any] = []
    # (the list being filled, its item type, how many items are still to read)
    stack: list[tuple[list[Any], int, int]] = [(root, *_array_head(f, budget))]
    while stack:
        target, item_type, left = stack[-1]
        if left == 0:
            stack.pop()
            continue
        stack[-1] = (target, item_type, left - 1)
        if item_type == _ARRAY:
            if len(stack) >= _MAX_DEPTH:
                raise ValueError(f"arrays nested more than {_MAX_DEPTH} deep in its header")
            inner: list[Any] = []
            target.append(inner)
            stack.append((inner, *_array_head(f, budget)))
        else:
            target.append(_read_scalar(f, item_type, budget))
    return root


def _array_head(f: BinaryIO, budget: _Budget) -> tuple[int, int]:
    item_type, count = _read(f, "<I"), _read(f, "<Q")
    if count > _MAX_ARRAY:
        raise ValueError("large array")
    budget.take(values=1)
    return item_type, count


def _read_scalar(f: BinaryIO, vtype: int, budget: _Budget) -> Any:
    if vtype in _SCALARS:
        budget.take(values=1)
        return _read(f, _SCALARS[vtype])
    if vtype == _STRING:
        return _read_string(f, budget)
    raise ValueError(f"unknown GGUF value type {vtype}")


def not_a_regular_file(path: Path) -> str:
    """Why `path` is not read as a model ("pipe.gguf is a named pipe ..."), or "" for a
    regular file (a link to one included). Asked with `stat`, which never blocks: opening a
    named pipe waits for a writer, forever (issue 48)."""
    try:
        mode = path.stat().st_mode
    except OSError:
        return ""  # gone or unreadable: the open that follows says so
    if stat.S_ISREG(mode):
        return ""
    kinds = (
        (stat.S_ISFIFO, "a named pipe"),
        (stat.S_ISDIR, "a folder"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISCHR, "a device"),
        (stat.S_ISBLK, "a device"),
    )
    kind = next((name for test, name in kinds if test(mode)), "not a regular file")
    return f"{path.name} is {kind}, not a regular file; only regular files are read as models."


def read_general_metadata(path: Path) -> dict[str, Any]:
    """general.* and <arch>.context_length keys; raises ModelNotFoundError if not GGUF."""
    meta: dict[str, Any] = {}
    budget = _Budget()
    problem = not_a_regular_file(path)
    if problem:
        raise ModelNotFoundError(problem, "Remove it from the models folder.")
    try:
        with path.open("rb") as f:
            if f.read(4) != b"GGUF":
                raise ModelNotFoundError(
                    f"{path.name} is not a GGUF model file.",
                    "Remove it from the models folder or replace it with a .gguf file.",
                )
            version = _read(f, "<I")
            meta["gguf.version"] = version
            _read(f, "<Q")  # tensor count
            n_kv = _read(f, "<Q") if version >= 2 else _read(f, "<I")
            for _ in range(min(n_kv, _MAX_KEYS)):
                key = _read_string(f, budget)
                if key.startswith("tokenizer."):
                    break
                value = _read_value(f, _read(f, "<I"), budget)
                if key.startswith("general.") or key.endswith(".context_length"):
                    meta[key] = value
    except (ValueError, RecursionError, MemoryError) as exc:
        # A header built to exhaust the reader (nesting, counts, sizes): unreadable, named.
        if isinstance(exc, ValueError) and str(exc) == "large array" and len(meta) > 1:
            return meta  # a big but plausible array: the keys read so far are enough
        raise ModelNotFoundError(
            f"{path.name} could not be read as a GGUF model file ({_reason(exc)}).",
            "Remove it from the models folder, or download or copy it again.",
        ) from None
    except (EOFError, struct.error, OSError) as exc:
        if not meta:
            raise ModelNotFoundError(
                f"{path.name} could not be read as a GGUF file ({exc}).",
                "The file may be truncated; download or copy it again.",
            ) from exc
    return meta


def _reason(exc: BaseException) -> str:
    if isinstance(exc, RecursionError | MemoryError):
        return "its header is built to exhaust the reader"
    return str(exc) or type(exc).__name__
