"""The sentence-embedding model run with onnxruntime from a one-off ONNX export.

Why: torch was the only reason the model host imported torch, and importing it alone holds
about 210 MiB (measured: a fresh process 8 -> 218 MiB); all-MiniLM-L6-v2 through torch and
transformers added 307-377 MiB to the host on a standard quiz, against a < 3 GB peak that the
whole app missed by about 100 MiB. onnxruntime runs the same network in about 210 MiB in all
(a fresh process: import 55 MiB, session and one batch 219 MiB), and its vectors match torch's
to 1.3e-7 on the bench's sentences.

The export is made by `quizsmith models --prepare` (make install), or on first use, in a child
process, so torch never stays loaded where the models run. The child checks the exported
network against torch on fixed sentences before it keeps the file; where onnx, onnxruntime or
the export is missing or fails, the provider runs torch as before (providers/hf.py).

The word pieces come from the folder's tokenizer.json through `tokenizers` (the Rust
tokenizer transformers itself wraps): transformers' own tokenizer imports torch. On 2,941
texts (the bench passages' lines and sentences, the labelled data's fields, accents, CJK,
zero-width and no-break spaces) its ids equal the ones transformers gave.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import subprocess
import sys
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from quizsmith import paths

log = logging.getLogger(__name__)

#: Bumped when the export's inputs, outputs or checks change: older files are not reused.
EXPORT_VERSION = "1"
#: ONNX operator set: supported by every onnxruntime since 1.14.
OPSET = 17
#: The largest difference allowed between torch's and onnxruntime's hidden states on
#: CHECK_TEXTS; measured 1.3e-7 on the pooled vectors.
TOLERANCE = 1e-4
#: What the child checks the exported network on (varied lengths, so padding is exercised).
CHECK_TEXTS = (
    "The heart pumps blood through the body.",
    "Photosynthesis happens in the chloroplasts of plant cells, where light is captured.",
    "1920s",
    "Who wrote Romeo and Juliet?",
)
#: Export time on two cores: about 5 s (torch's import and the trace).
EXPORT_TIMEOUT_S = 600.0

_exports_lock = threading.Lock()


def keep_hub_offline() -> None:
    """Before transformers is imported (here and in providers/hf.py): nothing may reach a
    model hub; the folder holds everything a model reads."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")


def available() -> bool:
    """Whether onnxruntime and tokenizers can be imported (the `hf` extra installs both)."""
    import importlib.util

    return all(importlib.util.find_spec(n) is not None for n in ("onnxruntime", "tokenizers"))


def export_path(folder: Path) -> Path:
    """Where `folder`'s export lives: Quizsmith's cache, named by the folder and its files'
    sizes and times, so a changed model is exported again."""
    folder = folder.resolve()
    digest = hashlib.sha256(f"{EXPORT_VERSION}|{folder}".encode())
    for file in sorted(folder.iterdir()):
        if file.is_file() and file.suffix in (".json", ".safetensors", ".bin"):
            stat = file.stat()
            digest.update(f"|{file.name}:{stat.st_size}:{stat.st_mtime_ns}".encode())
    return paths.cache_dir() / "models" / "onnx" / f"{folder.name}-{digest.hexdigest()[:16]}.onnx"


def export_command() -> list[str]:
    """How to start the export child: the frozen app takes `--onnx-export` (packaging/)."""
    if getattr(sys, "frozen", False):
        return [sys.executable, "--onnx-export"]
    return [sys.executable, "-m", __name__]


def failure_path(export: Path) -> Path:
    """Where a failed export's reason is kept, so the next start does not try again."""
    return export.with_suffix(".failed")


def ensure_export(folder: Path, *, retry: bool = False) -> tuple[Path | None, str]:
    """The folder's checked export, made in a child process if there is none yet; (None, why)
    where it cannot be made (the caller runs torch instead). A failed export is tried once
    per model files (its reason is kept beside it): every start of the model host would
    otherwise spend the child's seconds on it again. `retry` (`quizsmith models --prepare`)
    tries again."""
    if not available():
        return None, "onnxruntime or tokenizers is not installed"
    try:
        target = export_path(folder)
    except OSError as exc:  # the cache folder cannot be made, or the model folder read
        return None, f"no place for the export ({exc})"
    failed = failure_path(target)
    with _exports_lock:
        if target.exists():
            return target, "exported before"
        if failed.exists() and not retry:
            reason = failed.read_text(encoding="utf-8", errors="replace").strip()
            return None, f"{reason}; `quizsmith models --prepare` tries again"
        command = [*export_command(), str(folder), str(target)]
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            done = subprocess.run(
                command, capture_output=True, text=True, timeout=EXPORT_TIMEOUT_S, check=False
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            return None, _remember_failure(failed, f"the export did not finish: {exc}")
        if done.returncode != 0 or not target.exists():
            tail = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["no output"]
            return None, _remember_failure(failed, f"the export failed ({tail[0]})")
        failed.unlink(missing_ok=True)
        return target, "exported and checked against torch"


def _remember_failure(failed: Path, reason: str) -> str:
    with contextlib.suppress(OSError):
        failed.write_text(reason, encoding="utf-8")
    return reason


def forget_export(path: Path) -> None:
    """Remove an export that onnxruntime could not load (the next use makes it again)."""
    with contextlib.suppress(OSError):
        path.unlink()


def load_encoder(
    folder: Path, max_length: int, *, retry: bool = False
) -> tuple[OnnxEncoder | None, str]:
    """The folder's export loaded (made first where there is none; made again once where
    onnxruntime cannot load it), or (None, why). `retry`: as for `ensure_export`."""
    why = ""
    for _attempt in (1, 2):
        export, why = ensure_export(folder, retry=retry)
        if export is None:
            return None, why
        try:
            return OnnxEncoder(folder, export, max_length), why
        except Exception as exc:  # onnxruntime raises its own classes for a damaged file
            log.warning("The ONNX export %s could not be loaded (%s); made again.", export, exc)
            forget_export(export)
            why = f"its export could not be loaded ({exc})"
    return None, why


class OnnxEncoder:
    """A BERT-style encoder's last hidden state from its ONNX export."""

    def __init__(self, folder: Path, export: Path, max_length: int) -> None:
        import onnxruntime
        from tokenizers import Tokenizer

        self.tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        # The file fixes padding and truncation at 128; transformers' call padded to the
        # longest text and cut at max_length, and so does this.
        self.tokenizer.no_padding()
        pad = self.tokenizer.token_to_id("[PAD]")
        self.tokenizer.enable_padding(pad_id=0 if pad is None else pad, pad_token="[PAD]")
        self.tokenizer.enable_truncation(max_length)
        options = onnxruntime.SessionOptions()
        options.log_severity_level = 3  # warnings about unused initializers are not the user's
        options.inter_op_num_threads = 1
        self.session = onnxruntime.InferenceSession(
            str(export), options, providers=["CPUExecutionProvider"]
        )
        self.inputs = {i.name for i in self.session.get_inputs()}

    def hidden(self, texts: Sequence[str]) -> tuple[Any, Any, Any]:
        """(last hidden state, attention mask, special-token mask) of one batch, as numpy."""
        import numpy as np

        encoded = self.tokenizer.encode_batch(list(texts))
        feeds = {
            "input_ids": np.array([e.ids for e in encoded], dtype=np.int64),
            "attention_mask": np.array([e.attention_mask for e in encoded], dtype=np.int64),
            "token_type_ids": np.array([e.type_ids for e in encoded], dtype=np.int64),
        }
        special = np.array([e.special_tokens_mask for e in encoded], dtype=np.int64)
        hidden = self.session.run(None, {k: v for k, v in feeds.items() if k in self.inputs})[0]
        return hidden, feeds["attention_mask"], special


# -- the child process: export and check -------------------------------------------------------


def _export(folder: Path, target: Path) -> float:
    """Export `folder`'s encoder to `target` and return the largest difference from torch on
    CHECK_TEXTS; the file is kept only within TOLERANCE."""
    import numpy as np
    import torch
    from transformers import AutoModel, AutoTokenizer

    model = AutoModel.from_pretrained(str(folder), local_files_only=True).eval()

    class LastHidden(torch.nn.Module):
        # A plain positional signature: BertModel.forward's keywords cannot be traced as is.
        def __init__(self) -> None:
            super().__init__()
            self.model = model

        def forward(self, ids: Any, mask: Any, types: Any) -> Any:
            return self.model(input_ids=ids, attention_mask=mask, token_type_ids=types)[0]

    tokenizer = AutoTokenizer.from_pretrained(str(folder), local_files_only=True)
    enc = tokenizer(list(CHECK_TEXTS), padding=True, return_tensors="pt")
    args = (enc["input_ids"], enc["attention_mask"], enc["token_type_ids"])
    names = ["input_ids", "attention_mask", "token_type_ids"]
    axes = {n: {0: "batch", 1: "tokens"} for n in [*names, "last_hidden_state"]}
    partial = target.with_name(f"{target.name}.{os.getpid()}.part")
    with torch.inference_mode():
        expected = LastHidden()(*args).numpy()
    torch.onnx.export(
        LastHidden(),
        args,
        str(partial),
        input_names=names,
        output_names=["last_hidden_state"],
        dynamic_axes=axes,
        opset_version=OPSET,
        dynamo=False,  # the TorchScript exporter: no onnxscript needed
    )
    try:
        encoder = OnnxEncoder(folder, partial, max_length=256)
        got, _, _ = encoder.hidden(CHECK_TEXTS)
        diff = float(np.abs(got - expected).max())
        if got.shape != expected.shape or not diff <= TOLERANCE:
            raise SystemExit(f"the export differs from torch by {diff} (allowed {TOLERANCE})")
        os.replace(partial, target)
        return diff
    finally:
        partial.unlink(missing_ok=True)


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) != 2:
        print("usage: python -m quizsmith.providers.onnx_encoder FOLDER TARGET", file=sys.stderr)
        return 2
    keep_hub_offline()
    diff = _export(Path(args[0]), Path(args[1]))
    print(f"exported; largest difference from torch {diff:.2e}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
