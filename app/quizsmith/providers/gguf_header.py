"""Read the general.* metadata at the start of a GGUF file without loading the model.

Used to list user models quickly and to tell a teacher "this is not a GGUF file" before
llama.cpp tries (and fails less politely). Stops at the first tokenizer key, so the large
vocabulary arrays are never read.
"""

from __future__ import annotations

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


def _read(f: BinaryIO, fmt: str) -> Any:
    size = struct.calcsize(fmt)
    raw = f.read(size)
    if len(raw) != size:
        raise EOFError
    return struct.unpack(fmt, raw)[0]


def _read_string(f: BinaryIO) -> str:
    length = _read(f, "<Q")
    if length > 1 << 24:
        raise ValueError("implausible string length")
    return f.read(length).decode("utf-8", errors="replace")


def _read_value(f: BinaryIO, vtype: int) -> Any:
    if vtype in _SCALARS:
        return _read(f, _SCALARS[vtype])
    if vtype == _STRING:
        return _read_string(f)
    if vtype == _ARRAY:
        item_type, count = _read(f, "<I"), _read(f, "<Q")
        if count > 1 << 16:  # a big array this early is not worth reading for a listing
            raise ValueError("large array")
        return [_read_value(f, item_type) for _ in range(count)]
    raise ValueError(f"unknown GGUF value type {vtype}")


def read_general_metadata(path: Path) -> dict[str, Any]:
    """general.* and <arch>.context_length keys; raises ModelNotFoundError if not GGUF."""
    meta: dict[str, Any] = {}
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
                key = _read_string(f)
                if key.startswith("tokenizer."):
                    break
                value = _read_value(f, _read(f, "<I"))
                if key.startswith("general.") or key.endswith(".context_length"):
                    meta[key] = value
    except (EOFError, ValueError, struct.error, OSError) as exc:
        if not meta:
            raise ModelNotFoundError(
                f"{path.name} could not be read as a GGUF file ({exc}).",
                "The file may be truncated; download or copy it again.",
            ) from exc
    return meta
