"""Prove that the installed llama.cpp library can run on this computer, before it is used.

A llama.cpp built for another CPU does not fail politely: the first completion dies with a
segmentation fault or an illegal instruction and takes the whole process with it (seen on an
Intel VM whose CPU advertises AMX that the kernel does not grant: a general protection fault
at `ldtilecfg`). So the first real completion runs in a child process; the parent reads how
it ended and turns a crash into a `NativeLibraryError` that names the cause and the fix.

The check runs once per llama.cpp build: its result is kept under the cache folder, keyed by
a digest of the native library files, so a rebuilt or reinstalled library is checked again.
`quizsmith models --prepare` (run by `make install`) checks every bundled GGUF model; the
providers run the check before they load their first model in a process.

`python -m quizsmith.providers.native_check MODEL.gguf` is the child; it prints one JSON line.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import json
import logging
import signal
import subprocess
import sys
import threading
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from quizsmith import paths
from quizsmith.errors import NativeLibraryError, QuizsmithError

log = logging.getLogger(__name__)

__all__ = ["CheckResult", "NativeLibraryError", "check_model", "ensure_native_runs"]

#: Seconds the child may take: import, load and four tokens. A 1.5B model on a busy
#: 2-core laptop loads in a few seconds; the margin is for a cold disk.
CHECK_TIMEOUT_S = 180.0
PROMPT = "The capital of France is"
REBUILD_FIX = (
    "Rebuild llama.cpp for any CPU of this kind: in the Quizsmith folder run "
    "`make clean && make install` (packaging/llama_cpp_build.py builds it without "
    "-march=native and without AMX). Where Quizsmith was installed with pip: "
    'CMAKE_ARGS="$(python3 packaging/llama_cpp_build.py --cmake-args)" '
    "pip install --force-reinstall --no-cache-dir llama-cpp-python"
)

_lock = threading.Lock()
#: Set once this process has seen the library run (checked or recorded): the library it has
#: loaded cannot change under it, so later calls return at once. The live set asks before
#: every re-score, and hashing the library files costs about 30 ms.
_passed = False


@dataclass(frozen=True)
class CheckResult:
    ok: bool
    detail: str  # what the child printed or how it ended, for the message and the log
    returncode: int
    seconds: float
    crashed: bool  # ended by a signal or a native fault, not by a Python error

    def error(self, model: Path) -> NativeLibraryError:
        if self.crashed:
            return NativeLibraryError(
                "The llama.cpp library installed with Quizsmith cannot run on this computer: "
                f"its first completion ({model.name}) crashed ({self.detail}). It was most "
                "likely built for another processor.",
                REBUILD_FIX,
            )
        return NativeLibraryError(
            f"A first test completion with {model.name} failed: {self.detail}.",
            "Check that the model file is complete (`quizsmith models --prepare`). " + REBUILD_FIX,
        )


def library_folder() -> Path | None:
    """llama_cpp's folder of native libraries, found without importing it."""
    spec = importlib.util.find_spec("llama_cpp")
    if spec is None or spec.origin is None:
        return None
    return Path(spec.origin).parent / "lib"


@functools.cache
def build_identity() -> str:
    """A digest of the native library files: a rebuilt library is a new identity. Read once
    per process (the native check and each loaded model's prompt-state key ask for it): a
    library rebuilt under a running process is not the one it has loaded."""
    folder = library_folder()
    digest = hashlib.sha256()
    files = sorted(p for p in folder.iterdir() if p.is_file()) if folder and folder.is_dir() else []
    for path in files:
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    if not files:
        digest.update(b"no-native-files")
    return digest.hexdigest()[:20]


def child_command(model: Path) -> list[str]:
    """How to start the child: the frozen app takes `--native-check` (packaging/)."""
    if getattr(sys, "frozen", False):
        return [sys.executable, "--native-check", str(model)]
    return [sys.executable, "-m", "quizsmith.providers.native_check", str(model)]


def _describe_end(returncode: int) -> tuple[str, bool]:
    if returncode < 0:
        try:
            name = signal.Signals(-returncode).name
        except ValueError:
            name = f"signal {-returncode}"
        return f"{name}, exit {returncode}", True
    if returncode in (132, 134, 135, 139):  # 128 + SIGILL/SIGABRT/SIGBUS/SIGSEGV via a shell
        return f"exit {returncode}", True
    return f"exit {returncode}", False


def run_check(model: Path, timeout_s: float = CHECK_TIMEOUT_S) -> CheckResult:
    """One short greedy completion with `model` in a child process."""
    started = time.perf_counter()
    try:
        done = subprocess.run(
            child_command(model), capture_output=True, text=True, timeout=timeout_s, check=False
        )
    except subprocess.TimeoutExpired:
        return CheckResult(False, f"no answer within {timeout_s:.0f} s", -1, timeout_s, False)
    except OSError as exc:
        return CheckResult(False, f"could not start the check ({exc})", -1, 0.0, False)
    seconds = time.perf_counter() - started
    last = (done.stdout.strip().splitlines() or [""])[-1]
    try:
        report = json.loads(last)
    except ValueError:
        report = {}
    if done.returncode == 0 and report.get("ok"):
        return CheckResult(True, f"answered {report.get('text', '')!r}", 0, seconds, False)
    how, crashed = _describe_end(done.returncode)
    why = report.get("error") or (done.stderr.strip().splitlines() or [""])[-1][:300]
    detail = f"{how}: {why}" if why and not crashed else how
    return CheckResult(False, detail, done.returncode, seconds, crashed)


def _record_path(identity: str) -> Path:
    return paths.cache_dir() / "native-check" / f"{identity}.json"


def recorded(identity: str) -> CheckResult | None:
    try:
        data = json.loads(_record_path(identity).read_text(encoding="utf-8"))
        return CheckResult(**data["result"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _record(identity: str, model: Path, result: CheckResult) -> None:
    target = _record_path(identity)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        payload = {"model": str(model), "result": asdict(result), "when": time.time()}
        partial = target.with_suffix(".partial")
        partial.write_text(json.dumps(payload), encoding="utf-8")
        partial.replace(target)
    except OSError as exc:  # a read-only cache only costs a check per process
        log.info("could not record the llama.cpp check: %s", exc)


def check_model(model: Path) -> CheckResult:
    """Run the check with this model now and record a success or a crash for this build
    (a timeout or a Python error may be passing, so it is not recorded)."""
    result = run_check(model)
    if result.ok or result.crashed:
        _record(build_identity(), model, result)
    log.info("llama.cpp check with %s: %s (%.1f s)", model.name, result.detail, result.seconds)
    return result


def passed_in_process() -> bool:
    return _passed


def ensure_native_runs(model: Path) -> None:
    """Raise NativeLibraryError unless this llama.cpp build is known to run here; the first
    call per build runs the child-process check (a few seconds), the first call of a later
    process reads the record, and every call after a pass returns at once."""
    global _passed
    if _passed:
        return
    with _lock:
        if _passed:
            return
        identity = build_identity()
        known = recorded(identity)
        result = known if known is not None and (known.ok or known.crashed) else None
        if result is None:
            result = check_model(model)
        if not result.ok:
            raise result.error(model)
        _passed = True


def reference_model(fallback: Path | None) -> Path | None:
    """The model the check completes with: the smallest bundled one (its crash can only be
    the library's), or the model about to be loaded when none is installed."""
    from quizsmith.providers import catalog

    try:
        for model in sorted(catalog.load_catalog(), key=lambda m: m.size_mb):
            packaged = model.backend == "llamacpp" and model.locate.get("kind") == "file"
            if packaged and catalog.is_installed(model):
                return catalog.locate(model, assemble=False)
    except QuizsmithError:
        pass
    return fallback


def child_main(model_path: str) -> int:
    """Load the model and complete four tokens; any crash ends this process, not the app."""
    try:
        from llama_cpp import Llama

        from quizsmith.providers.chat_formats import gguf_templates_guarded

        # Not the file's chat template: Llama() would compile it unguarded (issue 48).
        with gguf_templates_guarded():
            llm = Llama(model_path=model_path, n_ctx=128, n_threads=1, verbose=False)
        out: Any = llm.create_completion(PROMPT, max_tokens=4, temperature=0.0)
        text = out["choices"][0]["text"]
    except Exception as exc:  # reported to the parent, which words it for the teacher
        print(json.dumps({"ok": False, "error": f"{type(exc).__name__}: {exc}"}), flush=True)
        return 1
    print(json.dumps({"ok": True, "text": text}), flush=True)
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print("usage: python -m quizsmith.providers.native_check MODEL.gguf", file=sys.stderr)
        sys.exit(2)
    sys.exit(child_main(sys.argv[1]))
