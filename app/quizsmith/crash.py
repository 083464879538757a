"""Crash logs for unexpected errors: the traceback goes to a file, the user gets its path."""

from __future__ import annotations

import logging
import time
import traceback
from pathlib import Path

from quizsmith import paths, secrets


def write_crash_log(exc: BaseException) -> Path:
    """Write the traceback (keys masked) to a new file and return its path."""
    path = write_report("crash", secrets.mask_secrets("".join(traceback.format_exception(exc))))
    logging.getLogger(__name__).error("unexpected error, see %s", path)
    return path


def write_report(prefix: str, text: str) -> Path:
    """A new file `<prefix>-<time>.log` in the log folder holding `text`. Names are to the
    second, with -2, -3 ... for further reports in the same second: a file is created only if
    it does not exist, so two reports never share (and overwrite) one file."""
    stem = f"{prefix}-{time.strftime('%Y%m%d-%H%M%S')}"
    folder = paths.log_dir()
    for n in range(1, 10_000):
        path = folder / (f"{stem}.log" if n == 1 else f"{stem}-{n}.log")
        try:
            with path.open("x", encoding="utf-8") as fh:
                fh.write(text)
            return path
        except FileExistsError:
            continue
    raise OSError(f"no free report name for {stem} in {folder}")
