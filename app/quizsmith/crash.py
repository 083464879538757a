"""Crash logs for unexpected errors: the traceback goes to a file, the user gets its path."""

from __future__ import annotations

import logging
import time
import traceback
from pathlib import Path

from quizsmith import paths, secrets


def write_crash_log(exc: BaseException) -> Path:
    text = secrets.mask_secrets("".join(traceback.format_exception(exc)))
    path = paths.log_dir() / f"crash-{time.strftime('%Y%m%d-%H%M%S')}.log"
    path.write_text(text, encoding="utf-8")
    logging.getLogger(__name__).error("unexpected error, see %s", path)
    return path
