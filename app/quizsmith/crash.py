"""Crash logs for unexpected errors: the traceback goes to a file, the user gets its path."""

from __future__ import annotations

import logging
import time
import traceback
from pathlib import Path

from quizsmith import paths, secrets


def write_crash_log(exc: BaseException) -> Path:
    """Write the traceback (keys masked) to a new file and return its path. Names are to the
    second, with -2, -3 ... for further crashes in the same second: a file is created only if
    it does not exist, so two crashes never share (and overwrite) one log."""
    text = secrets.mask_secrets("".join(traceback.format_exception(exc)))
    stem = f"crash-{time.strftime('%Y%m%d-%H%M%S')}"
    folder = paths.log_dir()
    for n in range(1, 10_000):
        path = folder / (f"{stem}.log" if n == 1 else f"{stem}-{n}.log")
        try:
            with path.open("x", encoding="utf-8") as fh:
                fh.write(text)
            break
        except FileExistsError:
            continue
    logging.getLogger(__name__).error("unexpected error, see %s", path)
    return path
