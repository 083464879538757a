"""Opening a bank file safely: decide what the file is before anything may write to it.

A file is looked at through a read-only connection first. Only when it is missing, empty, or
a Quizsmith bank this code understands does a read-write connection open, so a teacher's
other files (a different SQLite database, a Word document picked by mistake) are never
touched: the probe cannot write, and every refusal happens before the writer exists.
"""

from __future__ import annotations

import os
import sqlite3
import stat
from dataclasses import dataclass
from enum import Enum
from pathlib import Path

from sqlite_utils import Database

from quizsmith.bank import schema
from quizsmith.bank.errors import BankError, translate

SQLITE_HEADER = b"SQLite format 3\x00"
#: How long a connection waits for another writer (another process, or a checkpoint) before
#: giving up; within one process the bank's own lock serialises writers without waiting here.
BUSY_TIMEOUT_MS = 5000

NOT_A_BANK_FIX = "Open a bank made by Quizsmith (.qbank), or create a new bank under another name."


class FileKind(Enum):
    MISSING = "missing"
    EMPTY = "empty"  # 0 bytes, or an SQLite file with no tables at all: nothing to lose
    BANK = "bank"


@dataclass(frozen=True)
class Probe:
    kind: FileKind
    writable: bool
    pending: tuple[str, ...] = ()


def connect(path: Path, *, mode: str, immutable: bool = False) -> sqlite3.Connection:
    """A connection with the bank's settings; `mode` is SQLite's ro, rw or rwc.

    isolation_level=None: the driver never opens transactions on its own; the bank issues
    BEGIN IMMEDIATE / COMMIT itself, so a user action is exactly one transaction.
    """
    uri = f"{path.resolve().as_uri()}?mode={mode}"
    if immutable:
        uri += "&immutable=1"
    conn = sqlite3.connect(
        uri,
        uri=True,
        timeout=BUSY_TIMEOUT_MS / 1000,
        isolation_level=None,
        check_same_thread=False,  # closed by the bank from whichever thread closes it
    )
    try:
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        conn.execute("PRAGMA foreign_keys = ON")
        if mode == "ro":
            conn.execute("PRAGMA query_only = ON")
    except sqlite3.Error:
        conn.close()
        raise
    return conn


def is_writable(path: Path) -> bool:
    """Whether the bank at `path` may be written.

    A file without any write permission bit counts as read-only even for an administrator
    (who could write it anyway): the teacher marked it so on purpose. WAL mode also needs to
    create `-wal` and `-shm` files beside it, hence the folder check.
    """
    try:
        mode = path.stat().st_mode
    except OSError:
        return False
    if not mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH):
        return False
    return os.access(path, os.W_OK) and os.access(path.parent, os.W_OK)


def probe(path: Path) -> Probe:
    """What `path` is. Raises BankError for anything that must not be opened or overwritten."""
    if path.is_dir():
        raise BankError(f"{path} is a folder, not an item bank.", "Choose a bank file.")
    if not path.exists():
        return Probe(FileKind.MISSING, writable=os.access(path.parent, os.W_OK))
    writable = is_writable(path)
    try:
        with path.open("rb") as fh:
            header = fh.read(len(SQLITE_HEADER))
    except OSError as exc:
        raise BankError(
            f"{path.name} cannot be read ({exc.strerror}).", "Check the file's permissions."
        ) from None
    wal = path.with_name(path.name + "-wal")
    if not header and not wal.exists():
        return Probe(FileKind.EMPTY, writable)
    if header != SQLITE_HEADER:
        raise BankError(f"{path.name} is not a Quizsmith item bank.", NOT_A_BANK_FIX)
    try:
        conn = _probe_connection(path)
    except sqlite3.Error as exc:
        raise translate(exc, path) from exc
    try:
        return _inspect(path, Database(conn, execute_plugins=False), writable)
    except sqlite3.Error as exc:
        raise translate(exc, path) from exc
    finally:
        conn.close()


def _probe_connection(path: Path) -> sqlite3.Connection:
    try:
        conn = connect(path, mode="ro")
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
        return conn
    except sqlite3.OperationalError as exc:
        # A WAL file in a folder we cannot write: SQLite cannot create the -shm index, but
        # immutable=1 lets it read the main file as it is (nobody can be writing it either).
        if "unable to open" not in str(exc):
            raise
        return connect(path, mode="ro", immutable=True)


def _inspect(path: Path, db: Database, writable: bool) -> Probe:
    tables = set(db.table_names())
    app_id = db.execute("PRAGMA application_id").fetchone()[0]
    if not tables and app_id == 0:
        return Probe(FileKind.EMPTY, writable)
    if schema.MARKER_TABLE not in tables or app_id not in (0, schema.APPLICATION_ID):
        raise BankError(
            f"{path.name} is an SQLite database, but not a Quizsmith item bank.", NOT_A_BANK_FIX
        )
    if schema.unknown_names(db):
        raise BankError(
            f"{path.name} was saved by a newer version of Quizsmith.",
            "Update Quizsmith to open it; this version has left the file untouched.",
        )
    # Reading every page would take seconds on a big bank; reading the schema catches a
    # damaged header or catalog, and damage elsewhere surfaces as a BankError when read.
    db.execute("SELECT count(*) FROM items").fetchone()
    return Probe(FileKind.BANK, writable, tuple(schema.pending_names(db)))
