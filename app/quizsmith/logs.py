"""Logging to a file under the platform log dir, with API keys masked."""

from __future__ import annotations

import logging
from pathlib import Path

from quizsmith import paths, secrets

LOG_FILE = "quizsmith.log"


class RedactSecrets(logging.Filter):
    """Masks every API key Quizsmith has handed out, wherever it appears in a record."""

    def filter(self, record: logging.LogRecord) -> bool:
        if not secrets.known_secrets():
            return True
        text = record.getMessage()
        masked = secrets.mask_secrets(text)
        if masked != text:
            record.msg, record.args = masked, None
        return True


def setup_logging(level: int = logging.INFO) -> Path:
    path = paths.log_dir() / LOG_FILE
    root = logging.getLogger()
    # The log folder can change within one process (settings moved, tests' isolated dirs):
    # a handler left on the old file would log where nobody looks, so it is replaced.
    for old in [h for h in root.handlers if getattr(h, "_quizsmith", False)]:
        if Path(getattr(old, "baseFilename", "")) != path.resolve():
            root.removeHandler(old)
            old.close()
    if not any(getattr(h, "_quizsmith", False) for h in root.handlers):
        handler = logging.FileHandler(path, encoding="utf-8")
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
        handler.addFilter(RedactSecrets())
        handler._quizsmith = True  # type: ignore[attr-defined]
        root.addHandler(handler)
    root.setLevel(level)
    # httpx logs every request URL at INFO; URLs never carry keys here, but headers might in
    # debug output of some versions, so keep it quiet.
    logging.getLogger("httpx").setLevel(logging.WARNING)
    logging.getLogger("httpcore").setLevel(logging.WARNING)
    return path
