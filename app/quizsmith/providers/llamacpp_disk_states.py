"""Evaluated prompt heads that are the same for every passage, kept on disk as well.

Why: a quiz's prompts open with fixed instructions and worked examples (the question
prompt's ~200 tokens, the wrong-answer prompt's, the kind check's). Their states are kept in
memory (llamacpp_state.PrefixStates), but that store is bounded and emptied with the process,
so each new quiz, and each start of the app, evaluated them again: ~4.9 s of a standard quiz,
2.9 s of it before the first item (docs/benchmarks.md). A head marked `Fixed` by its caller
is written here once and restored from here after that.

A state is only valid for the model file, the llama.cpp build and CPU features that computed
it and the context settings that shaped its evaluation, so all of these are part of its key;
each file carries a SHA-256 digest of its bytes, and one that does not match is deleted
unread (a torn or damaged file never reaches llama.cpp). Any error reading or writing the
folder only means the head is evaluated, as it was before.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import tempfile
import time
from pathlib import Path

from quizsmith import paths

#: Disk kept for fixed heads' states, all models together; the least recently used go first.
#: One state of the 1.5B model's ~200-token question head is ~6 MB.
DISK_BUDGET_BYTES = 256 * 1024 * 1024
_SUFFIX = ".state"
STALE_PART_SECONDS = 24 * 3600
_DIGEST = 32  # bytes of SHA-256 before the state


def states_folder() -> Path:
    """Where fixed heads' states are kept (QUIZSMITH_CACHE_DIR moves it with the cache)."""
    return paths.cache_dir() / "prompt-states"


class DiskStates:
    """Fixed heads' states of one loaded model (its `identity`), in `folder`."""

    def __init__(self, identity: str, folder: Path | None = None) -> None:
        self.identity = identity
        self._folder = folder

    @property
    def folder(self) -> Path:
        return self._folder if self._folder is not None else states_folder()

    def _path(self, key: tuple[tuple[int, ...], tuple[int, ...]]) -> Path:
        digest = hashlib.sha256(f"{self.identity}|{key[0]}|{key[1]}".encode()).hexdigest()
        return self.folder / f"{digest[:40]}{_SUFFIX}"

    def get(self, key: tuple[tuple[int, ...], tuple[int, ...]]) -> bytes | None:
        try:
            path = self._path(key)  # the cache folder is made here: it may fail too
            data = path.read_bytes()
        except OSError:
            return None
        state = data[_DIGEST:]
        if len(data) <= _DIGEST or hashlib.sha256(state).digest() != data[:_DIGEST]:
            path.unlink(missing_ok=True)
            return None
        with contextlib.suppress(OSError):
            os.utime(path)  # recently used: kept longest when the budget prunes
        return state

    def put(self, key: tuple[tuple[int, ...], tuple[int, ...]], state: bytes) -> None:
        if len(state) + _DIGEST > DISK_BUDGET_BYTES:
            return
        try:
            path = self._path(key)
            path.parent.mkdir(parents=True, exist_ok=True)
            # Written aside and moved in: another process never reads half a state.
            handle, temporary = tempfile.mkstemp(dir=path.parent, suffix=".part")
            try:
                with os.fdopen(handle, "wb") as out:
                    out.write(hashlib.sha256(state).digest())
                    out.write(state)
                os.replace(temporary, path)
            except BaseException:
                Path(temporary).unlink(missing_ok=True)
                raise
            self._prune()
        except OSError:
            return

    def _prune(self) -> None:
        # A write cut off by a killed process leaves its ".part" file: gone after a day.
        for path in self.folder.glob("*.part"):
            with contextlib.suppress(OSError):
                if time.time() - path.stat().st_mtime > STALE_PART_SECONDS:
                    path.unlink()
        files = []
        for path in self.folder.glob(f"*{_SUFFIX}"):
            try:
                stat = path.stat()
            except OSError:
                continue
            files.append((stat.st_mtime, stat.st_size, path))
        total = sum(size for _, size, _ in files)
        for _, size, path in sorted(files):
            if total <= DISK_BUDGET_BYTES:
                break
            path.unlink(missing_ok=True)
            total -= size


def model_identity(model: Path, n_ctx: int, n_threads: int, n_batch: int) -> str:
    """What a state depends on besides its tokens: the model file, the llama.cpp build, the
    CPU features its kernels use, and the settings the evaluation ran with."""
    from llama_cpp import llama_cpp as lib

    from quizsmith.providers.native_check import build_identity

    stat = model.stat()
    features = lib.llama_print_system_info()
    return "|".join(
        [
            str(model.resolve()),
            str(stat.st_size),
            str(stat.st_mtime_ns),
            build_identity(),
            features.decode(errors="replace") if isinstance(features, bytes) else str(features),
            str(n_ctx),
            str(n_threads),
            str(n_batch),
        ]
    )
