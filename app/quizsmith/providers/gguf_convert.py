"""Re-encode a GGUF file into a tensor type llama.cpp's CPU kernels run faster.

Why: the bundled SmolLM2-135M ships as Q4_1, a type llama.cpp has no repacked CPU kernels
for; the same weights as Q8_0 read prompts 2.1x faster on the 2-core test machine (843 vs
405 tokens/s, bench/results/metrics.md) at 1.6x the file size. Q8_0 holds each Q4_1 weight
to within 1/254 of its block's largest weight, well under Q4_1's own step (1/15 of the
block's range), so the model is the same to within a small fraction of its existing
quantization error. The conversion is llama.cpp's own quantizer, offline, about a second.
"""

from __future__ import annotations

import ctypes
from pathlib import Path

from quizsmith.errors import ProviderError

#: Names accepted in models/catalog.toml `run_as.type`, and llama.cpp's file types for them.
FILE_TYPES = {"q8_0": "LLAMA_FTYPE_MOSTLY_Q8_0", "f16": "LLAMA_FTYPE_MOSTLY_F16"}


def requantize(source: Path, target: Path, type_name: str) -> None:
    """Write `source` re-encoded as `type_name` to `target` (replaced only when complete)."""
    if type_name not in FILE_TYPES:
        raise ProviderError(f"Unknown tensor type {type_name!r}.", f"Use one of {FILE_TYPES}.")
    try:
        from llama_cpp import llama_cpp as lib
        from llama_cpp._utils import suppress_stdout_stderr
    except ImportError:
        raise ProviderError(
            "llama-cpp-python is not installed.", "Run `make install` (extra: local)."
        ) from None
    params = lib.llama_model_quantize_default_params()
    params.ftype = getattr(lib, FILE_TYPES[type_name])
    params.allow_requantize = True  # the source is already quantized
    params.nthread = 0  # all cores
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(target.name + ".partial")
    with suppress_stdout_stderr(disable=False):  # the quantizer prints every tensor
        status = lib.llama_model_quantize(
            str(source).encode(), str(partial).encode(), ctypes.byref(params)
        )
    if status != 0 or not partial.exists():
        partial.unlink(missing_ok=True)
        raise ProviderError(f"llama.cpp could not convert {source.name} to {type_name}.", "")
    partial.replace(target)
