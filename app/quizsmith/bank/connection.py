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

from quizsmith.bank import foreign, schema
from quizsmith.bank.errors import BankError, damaged_fix, translate
from quizsmith.paths_guard import PathError, check_length, regular_or_absent

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
    #: Triggers, views and indexes the schema does not define (`foreign.py`).
    foreign: tuple[foreign.Foreign, ...] = ()


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


def file_identity(path: Path) -> tuple[int, int] | None:
    """(device, inode) of the file at `path`; None when there is none."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino


def probe(path: Path) -> Probe:
    """What `path` is. Raises BankError for anything that must not be opened or overwritten."""
    try:
        # Looked at with stat before anything opens it: opening a named pipe waits for a
        # writer that never comes (`--bank f.qbank` hung), and a device is no bank.
        exists = regular_or_absent(path, "The bank", "Choose a bank file (.qbank).")
        # SQLite names its side files after the bank (NAME-journal, NAME-wal).
        check_length(path.with_name(path.name + "-journal"), "The bank's journal")
    except PathError as exc:
        raise BankError(exc.message, exc.fix) from None
    if not exists:
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
        raise _probe_failure(exc, path) from exc
    except UnicodeDecodeError:
        # A damaged schema page: SQLite's own error message quotes its bytes, which are not
        # UTF-8, and the driver fails decoding the message itself.
        raise BankError(f"{path.name} is damaged and cannot be read.", damaged_fix(path)) from None
    try:
        return _inspect(path, Database(conn, execute_plugins=False), writable)
    except sqlite3.Error as exc:
        raise _probe_failure(exc, path) from exc
    except UnicodeDecodeError:
        raise BankError(f"{path.name} is damaged and cannot be read.", damaged_fix(path)) from None
    finally:
        conn.close()


def _probe_failure(exc: sqlite3.Error, path: Path) -> BankError:
    """The probe only reads: apart from the file being busy or out of reach (an
    OperationalError), whatever SQLite reports is damage ("string or blob too big" from a
    random page, not only "malformed")."""
    if isinstance(exc, sqlite3.OperationalError):
        return translate(exc, path)
    return BankError(f"{path.name} is damaged and cannot be read ({exc}).", damaged_fix(path))


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
        refuse_unreadable_wal(path)
        return connect(path, mode="ro", immutable=True)


def refuse_unreadable_wal(path: Path) -> None:
    """Refuse to read `path` as an unchanging file while its -wal holds changes.

    immutable=1 reads the main file only: committed changes still in the -wal (the writer was
    killed, or the bank was copied while open) would be silently missing, so an export would
    hold part of the bank. SQLite can read a -wal only with a -shm index it may write.
    """
    wal = path.with_name(path.name + "-wal")
    try:
        pending = wal.stat().st_size > 0
    except OSError:
        return
    if pending:
        raise BankError(
            f"{path.name} has saved changes in {wal.name} that cannot be read here: the folder "
            f"{path.parent} is read-only, and SQLite must create {path.name}-shm beside it to "
            "read them.",
            f"Copy {path.name} together with {wal.name} to a folder you can write to and open "
            "the copy there.",
        )


def broken_references(conn: sqlite3.Connection) -> str:
    """What points at rows that are not there ("12 scores point at items that are not in
    it"), or "" when every reference holds. Foreign keys are on for every write, so this
    happens only when a file was swapped or patched under a running job (a score run whose
    -wal was read against another bank put 30 scores on missing items). 27 ms for 30,000
    items with 60,000 scores."""
    counts: dict[tuple[str, str], int] = {}
    for table, _rowid, parent, _fk in conn.execute("PRAGMA foreign_key_check"):
        counts[(table, parent)] = counts.get((table, parent), 0) + 1
    parts = [
        f"{n:,} {'row' if n == 1 else 'rows'} of {table} point at {parent} that are not in it"
        for (table, parent), n in sorted(counts.items())
    ]
    return "; ".join(parts[:3]) + ("; ..." if len(parts) > 3 else "")


def _inspect(path: Path, db: Database, writable: bool) -> Probe:
    tables = set(db.table_names())
    app_id = db.execute("PRAGMA application_id").fetchone()[0]
    if not tables and app_id == 0:
        return Probe(FileKind.EMPTY, writable)
    if schema.MARKER_TABLE not in tables or app_id not in (0, schema.APPLICATION_ID):
        raise BankError(
            f"{path.name} is an SQLite database, but not a Quizsmith item bank.", NOT_A_BANK_FIX
        )
    # Before any query reads a table: a view standing in a table's place would answer it
    # (a recursive one never ends), so the migrations table is checked too.
    replaced = foreign.replaced_tables(db.conn)
    if replaced:
        raise BankError(
            f"{path.name} is not a bank Quizsmith can read: where the schema has a table it "
            f"holds something else ({', '.join(replaced)}). Nothing in it was run or changed.",
            "Restore the bank from a backup or a JSONL export; `quizsmith recover` copies "
            "what is still stored in the bank's own tables into a new bank.",
        )
    if schema.unknown_names(db):
        raise BankError(
            f"{path.name} was saved by a newer version of Quizsmith.",
            "Update Quizsmith to open it; this version has left the file untouched.",
        )
    db.execute("SELECT count(*) FROM items").fetchone()
    # A damaged page would otherwise surface only when read (an export silently short of the
    # rows SQLite skips) or be written around. quick_check checks every page's structure but
    # not the indexes' content, so it is linear: 20 ms for 5,000 items (4 MB) and 180 ms for
    # 30,000 (24 MB) with a warm cache (docs/reliability.md).
    problems = [str(r[0]) for r in db.execute("PRAGMA quick_check") if r[0] != "ok"]
    if problems:
        first = problems[0].replace("*** in database main ***", "").strip().splitlines()[0]
        raise BankError(f"{path.name} is damaged ({first}).", damaged_fix(path))
    broken = broken_references(db.conn)
    if broken:
        raise BankError(f"{path.name} is damaged ({broken}).", damaged_fix(path))
    return Probe(
        FileKind.BANK,
        writable,
        tuple(schema.pending_names(db)),
        tuple(foreign.foreign_objects(db.conn)),
    )
