"""The one error type the item bank raises, and the translation of SQLite's errors into it."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from quizsmith.errors import QuizsmithError


class BankError(QuizsmithError):
    """The item bank cannot do what was asked; the message names the file and the fix."""


class BankBusyError(BankError):
    """Another writer held the bank for longer than the busy timeout: trying again later may
    succeed, which is why callers that must not lose work tell it apart."""


class BankReplacedError(BankError):
    """The bank's file was replaced, moved or removed while it was open: nothing more may be
    written, or the writes (and the -wal named after the file) would land in another bank."""


def damaged_fix(path: Path) -> str:
    """What to do about a damaged bank: a backup first, else `quizsmith recover`, which
    copies every row it can still read into a new file (the damaged one stays as it was).
    (SQLite's own `.recover` fails on every Quizsmith bank with the 3.40 command-line tool:
    banks hold sqlite_stat1.)"""
    return (
        "Restore it from a backup or from a JSONL export, or rescue what can still be read with "
        f"`quizsmith recover {path.name}` (it writes {rescued_name(path)}, a new bank); "
        "Quizsmith has not changed it."
    )


def rescued_name(path: Path) -> str:
    """The default name of the bank `quizsmith recover` makes from `path`."""
    return f"{path.stem}-rescued{path.suffix or '.qbank'}"


def translate(exc: sqlite3.Error, path: Path) -> BankError:
    """A teacher-readable BankError for an SQLite failure on the bank at `path`."""
    text = str(exc).lower()
    name = path.name
    if "readonly" in text or "read-only" in text:
        return BankError(
            f"{name} is read-only, so changes cannot be saved.",
            "Save a copy in a folder you can write to, or change the file's permissions.",
        )
    if "locked" in text or "busy" in text:
        return BankBusyError(
            f"{name} is busy: another program has been writing to it for several seconds.",
            "Wait for it to finish (or close the other Quizsmith window) and try again.",
        )
    # Python's driver reports a text value whose bytes are not UTF-8 as "Could not decode":
    # the bank only ever stores UTF-8, so such bytes mean a damaged page.
    if any(w in text for w in ("malformed", "not a database", "corrupt", "could not decode")):
        return BankError(f"{name} is damaged and cannot be read.", damaged_fix(path))
    if "full" in text:
        return BankError(f"The disk holding {name} is full.", "Free some space and try again.")
    if "disk i/o" in text or "unable to open" in text:
        return BankError(
            f"{name} could not be read or written ({exc}).",
            "Check that the drive is connected and the file still exists.",
        )
    if isinstance(exc, sqlite3.IntegrityError):
        return BankError(
            f"The change was refused because it would make {name} inconsistent ({exc}).",
            "Check that the items, passages and quizzes it refers to still exist.",
        )
    return BankError(f"{name}: the item bank reported an error ({exc}).", "")


@contextmanager
def translated(path: Path) -> Iterator[None]:
    """Turn SQLite errors raised inside the block into BankError.

    Programming errors (wrong SQL bindings, a closed connection) are bugs, not conditions a
    teacher can fix, so they pass through to the crash log unchanged.
    """
    try:
        yield
    except (sqlite3.ProgrammingError, sqlite3.InterfaceError):
        raise
    except sqlite3.Error as exc:
        raise translate(exc, path) from exc
    except UnicodeDecodeError:
        # Text (or an error message quoting a damaged page) that is not UTF-8: the bank only
        # ever stores UTF-8, so the page is damaged.
        raise BankError(f"{path.name} is damaged and cannot be read.", damaged_fix(path)) from None
