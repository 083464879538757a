"""What every command group of the command line uses: its exit statuses, the argument types
for counts and seeds, the check that no output overwrites an input, and the progress display
of a running job."""

from __future__ import annotations

import argparse
import sys
from typing import Any

#: Exit statuses: 0 all done, 1 unexpected error (crash log), 2 refused (bad input, with the
#: fix), 3 `quizsmith gui` without a display (gui.app.NO_DISPLAY_EXIT), 4 finished but some
#: items were not scored or fewer items than asked could be made (the reasons are printed).
EXIT_INCOMPLETE = 4


def positive_int(text: str) -> int:
    """An argparse type: a whole number of at least 1 (`--limit 0` or `-5` ran on nothing and
    ended with status 0, issue 48)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be 1 or more, not {value}")
    return value


#: Seeds reach NumPy and scikit-learn, which take 0 to 2**32 - 1 (a negative one crashed).
MAX_SEED = 2**32 - 1


def seed_int(text: str) -> int:
    """An argparse type: a random seed, a whole number from 0 to MAX_SEED."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if not 0 <= value <= MAX_SEED:
        raise argparse.ArgumentTypeError(f"must be from 0 to {MAX_SEED:,}, not {value}")
    return value


def bank_inputs(bank: str | None) -> list[tuple[str, Any]]:
    from quizsmith.paths_guard import bank_paths

    return [("the bank (--bank)", p) for p in bank_paths(bank)]


def guard_paths(outputs: list[tuple[str, Any]], inputs: list[tuple[str, Any]]) -> None:
    """Refuse, before anything is written, an output that would overwrite an input."""
    from quizsmith.paths_guard import check_outputs

    check_outputs(outputs, inputs)


def drive(job: Any, on_event: Any = None, *, show: bool = True) -> Any:
    """Run a job generator with a one-line progress display on stderr (none when `show` is
    false: `on_event` prints what the command wants); returns its value."""
    while True:
        try:
            event = next(job)
        except StopIteration as stop:
            if sys.stderr.isatty() and show:
                print(file=sys.stderr)
            return stop.value
        if on_event is not None:
            on_event(event)
        if not show:
            continue
        total = f"[{event.done}/{event.total}] " if event.total else ""
        if sys.stderr.isatty():
            print(f"\r\033[K{total}{event.message}", end="", file=sys.stderr, flush=True)
        else:
            print(f"{total}{event.message}", file=sys.stderr, flush=True)
