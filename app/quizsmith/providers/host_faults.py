"""What the app says and keeps when the model host dies or hangs: the message in the
teacher's words, and a crash report with the tail of the host's own log (host_client.py
decides when; this module only words and writes it)."""

from __future__ import annotations

import logging
import signal
from pathlib import Path

from quizsmith import paths
from quizsmith.errors import ModelHostError

log = logging.getLogger(__name__)

#: The host's own log (its stderr: model loading, faults with their Python stack).
HOST_LOG = "model-host.log"
HOST_LOG_KEEP_BYTES = 2 * 1024 * 1024


def describe_end(returncode: int) -> str:
    if returncode < 0:
        number = -returncode
        try:
            name = signal.Signals(number).name
        except ValueError:
            return f"signal {number}"
        if number == signal.SIGKILL:
            return f"signal {number}, {name}: the system may have run out of memory"
        return f"signal {number}, {name}"
    return f"exit {returncode}"


def host_error(
    how: str, report: Path | None, *, deaths_at_start: int = 0, ended_by_app: bool = False
) -> ModelHostError:
    """The job's message. `deaths_at_start`: how many hosts in a row died before their
    first answer (from DEATHS_BEFORE_FIX on, the fix is named); `ended_by_app`: the app
    ended it (`how` then says why: a hang, a stop it did not answer)."""
    where = f" Details: {report}." if report else ""
    if deaths_at_start:
        return ModelHostError(
            f"The model stopped unexpectedly ({how}) {deaths_at_start} times in a row before "
            "it could answer.",
            "Run `quizsmith models --prepare` to check the models and the llama.cpp build, "
            f"then try again.{where}",
        )
    if ended_by_app:
        return ModelHostError(
            f"The model was stopped because {how}. Your items are saved; the next run starts "
            "it again.",
            f"If it happens again, try a smaller model or a shorter passage.{where}",
        )
    return ModelHostError(
        f"The model stopped unexpectedly ({how}). Your items are saved; the next run starts "
        "it again.",
        where.strip(),
    )


def host_log() -> Path:
    path = paths.log_dir() / HOST_LOG
    try:
        if path.stat().st_size > HOST_LOG_KEEP_BYTES:
            path.unlink()  # only the recent runs matter; a crash report copies its tail
    except OSError:
        pass
    return path


def write_crash_report(how: str, pid: int | None, calls: list[str]) -> Path | None:
    """The end, the calls it was running and the tail of the host's log (which holds the
    Python stack faulthandler printed at a native fault), as `model-host-<time>.log`."""
    from quizsmith.crash import write_report

    try:
        tail = ""
        log_path = paths.log_dir() / HOST_LOG
        if log_path.exists():
            with log_path.open("rb") as fh:
                fh.seek(max(0, log_path.stat().st_size - 8000))
                tail = fh.read().decode("utf-8", "replace")
        return write_report(
            "model-host",
            f"The model host (pid {pid or '?'}) ended: {how}\n"
            f"Calls running: {', '.join(calls) or 'none'}\n\n"
            f"Last lines of {HOST_LOG}:\n{tail}\n",
        )
    except OSError:
        log.exception("could not write the model host's crash report")
    return None
