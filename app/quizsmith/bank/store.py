"""`ItemBank`: the single entry point to stored data (DESIGN.md, house rules).

Every query and write the app makes is a method of ItemBank. This module holds the file and
its connections (opening, transactions, readers, closing) and its upkeep; the rest comes from
one mixin per group: passages and items (items.py), reviews and drafts (reviews.py), search
and statistics (listing.py), quizzes, near-duplicates and JSONL (interchange.py).

Connections and threads. One writer connection per bank, guarded by a re-entrant lock: a
write happens only inside `transaction()`, which takes the lock and runs `BEGIN IMMEDIATE`,
so a background job and the GUI thread never interleave statements of two user actions,
and a second process waits (busy timeout) instead of failing. Each other thread reads
through its own connection (WAL mode: readers see the last commit and never wait for the
writer), and a thread inside a transaction reads through the writer, so it sees its own
uncommitted changes. Multi-query reads run in one read transaction, a consistent snapshot.

The file stays the one that was opened. A job that runs for minutes notices when another
program moves, copies or restores a file onto the bank's name (`cp other.qbank new; mv new
bank.qbank`): before each transaction, before its COMMIT and before a new reader connection,
the path's (device, inode) is compared with the one opened, and a difference is a
`BankReplacedError` (nothing more is written). Before this check a `score` run went on
writing, its `-wal` (which SQLite finds by name) was read against the other file, and scores
ended up on other items.

Read-only files (no write permission, or `read_only=True`) open for reading; any change then
raises BankError saying the file is read-only. An older bank opened with `read_only=True` in
a writable file has its schema upgraded first. Every SQLite failure reaches the caller as a
BankError with a fix, never as a traceback.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

from sqlite_utils import Database

from quizsmith.bank import connection, foreign, schema
from quizsmith.bank.connection import FileKind
from quizsmith.bank.dedupe import EmbedFn
from quizsmith.bank.errors import BankBusyError, BankError, BankReplacedError, translated
from quizsmith.bank.interchange import JsonlMixin
from quizsmith.bank.items import ItemsMixin
from quizsmith.bank.listing import ListingMixin
from quizsmith.bank.quizzes import QuizzesMixin
from quizsmith.bank.reviews import ReviewsMixin


class ItemBank(ItemsMixin, ReviewsMixin, ListingMixin, QuizzesMixin, JsonlMixin):
    """A Quizsmith item bank in one SQLite file.

    `ItemBank(path)` opens the bank at `path`, creating it if there is no file (or an empty
    one) and `create` is true; upgrades an older bank's schema; and refuses, with a
    BankError and without writing a byte, a file that is not a bank, is damaged, or was saved
    by a newer Quizsmith. `embed` (texts -> L2-normalised vectors) is used for near-duplicate
    checks; when None, the configured "embeddings" provider is loaded the first time it is
    needed, since loading a model takes seconds.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        create: bool = True,
        read_only: bool = False,
        embed: EmbedFn | None = None,
        embed_model: str | None = None,
    ) -> None:
        self.path = Path(path).expanduser().absolute()
        self._embed = embed
        self._embed_model = embed_model
        self._lock = threading.RLock()
        self._local = threading.local()
        self._readers: list[sqlite3.Connection] = []
        self._readers_lock = threading.Lock()
        self._writer: sqlite3.Connection | None = None
        self._tx_depth = 0
        self._tx_thread: int | None = None
        self._closed = False
        self._immutable = False
        self._identity: tuple[int, int] | None = None
        #: What the teacher should be told about the file (code it held that was removed).
        self.notices: list[str] = []
        probe = connection.probe(self.path)
        self._check_openable(probe, create, read_only)
        if read_only and probe.kind is FileKind.BANK and probe.writable and probe.pending:
            # Asked for reading only (export, refit), but the file is an older bank we may
            # write: upgrade its schema first (migrations only add), so an export after an
            # update of Quizsmith does not fail with "read-only".
            self._open_writer(probe)
            assert self._writer is not None
            self._writer.close()
            self._writer = None
            probe = connection.probe(self.path)
        self.read_only = read_only or (probe.kind is FileKind.BANK and not probe.writable)
        if self.read_only:
            self._open_read_only(probe)
            self.notices += foreign.note_read_only(self.path, probe.foreign)
        else:
            self._open_writer(probe)

    # --- opening and closing --------------------------------------------------------------

    def _check_openable(self, probe: connection.Probe, create: bool, read_only: bool) -> None:
        name = self.path.name
        if probe.kind is FileKind.MISSING:
            if not create or read_only:
                raise BankError(
                    f"There is no item bank at {self.path}.", "Check the file name or create one."
                )
            if not self.path.parent.is_dir():
                raise BankError(
                    f"The folder {self.path.parent} does not exist.", "Choose an existing folder."
                )
            if not probe.writable:
                raise BankError(
                    f"Cannot create {name}: the folder {self.path.parent} is read-only.",
                    "Choose a folder you can write to.",
                )
        if probe.kind is FileKind.EMPTY and (not create or read_only or not probe.writable):
            raise BankError(
                f"{name} is empty, not an item bank.", "Create a new bank or choose another file."
            )

    def _open_read_only(self, probe: connection.Probe) -> None:
        self._identity = connection.file_identity(self.path)
        if probe.pending:
            raise BankError(
                f"{self.path.name} was made by an older Quizsmith and needs an upgrade, "
                "but it is read-only.",
                "Copy it to a folder you can write to and open the copy.",
            )
        try:
            self._reader()
        except BankError:
            # No -shm can be created beside the file; read it as an unchanging file, unless
            # its -wal holds changes that reading it so would leave out.
            connection.refuse_unreadable_wal(self.path)
            self._immutable = True
            self._reader()

    def _open_writer(self, probe: connection.Probe) -> None:
        mode = "rw" if probe.kind is FileKind.BANK else "rwc"
        with translated(self.path):
            conn = connection.connect(self.path, mode=mode)
            try:
                conn.execute("PRAGMA journal_mode = WAL").fetchone()
                # FULL: a committed action survives a power cut, not only a crash; the cost
                # is one fsync per commit, unnoticeable for a teacher's edits.
                conn.execute("PRAGMA synchronous = FULL")
                # Plugins off: a third-party sqlite-utils plugin must not alter our connection.
                db = Database(conn, execute_plugins=False)
                with self._lock:
                    # Before the first write, migrations included: a trigger stored in the
                    # file would run on it (foreign.py).
                    applied = schema.applied_names(db)
                    self.notices += foreign.remove_foreign(conn, self.path, applied)
                    schema.migrate(db)
            except BaseException:
                conn.close()
                raise
        self._writer = conn
        self._identity = connection.file_identity(self.path)

    def _moved(self) -> bool:
        return self._identity is not None and connection.file_identity(self.path) != self._identity

    def _check_same_file(self, *, abandon: bool = True) -> None:
        """Refuse to go on when the path no longer names the file that was opened; with
        `abandon` (the caller holds the write lock) close the bank first."""
        now = connection.file_identity(self.path)
        if self._identity is None or now == self._identity:
            return
        what = "was removed or renamed" if now is None else "was replaced by another file"
        if abandon:
            self._abandon()
        raise BankReplacedError(
            f"{self.path.name} {what} while it was open here; nothing more is saved to it.",
            "What was saved before went to the file as it was when opened. Check which file "
            "is the bank you want, open it again, and run again (work already saved in it is "
            "not done twice).",
        )

    def _abandon(self) -> None:
        """Close every connection at once, an open transaction rolled back, after moving the
        -wal's committed pages into the file that was opened. SQLite finds a bank's -wal by
        its name and, for a file that has moved, neither checkpoints nor deletes it on close
        (`databaseIsUnmoved`): the file now at the name would be read with this file's pages
        (scores on other items, broken references). The checkpoint writes them through this
        connection's own descriptor into the file it opened (wherever it now is) and leaves
        an empty -wal; the -shm is rebuilt by the next opener."""
        with self._readers_lock:
            readers, self._readers = self._readers, []
        for conn in readers:
            with suppress(sqlite3.Error):
                conn.close()
        writer, self._writer = self._writer, None
        if writer is not None:
            with suppress(sqlite3.Error):
                if writer.in_transaction:
                    writer.execute("ROLLBACK")
                writer.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
            with suppress(sqlite3.Error):
                writer.close()
        self._closed = True

    def close(self) -> None:
        """Close every connection; the bank cannot be used afterwards."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            with self._readers_lock:
                readers, self._readers = self._readers, []
            for conn in readers:
                conn.close()
            if self._writer is not None:
                # An optimisation hint; closing must not fail over it. For a file that was
                # moved or replaced, the -wal is moved into it instead (see `_abandon`).
                with suppress(sqlite3.Error):
                    if self._moved():
                        self._writer.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
                    else:
                        self._writer.execute("PRAGMA optimize")
                self._writer.close()
                self._writer = None

    def __enter__(self) -> ItemBank:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        mode = "read-only" if self.read_only else "read-write"
        return f"ItemBank({str(self.path)!r}, {mode}{', closed' if self._closed else ''})"

    # --- transactions and connections ----------------------------------------------------

    @contextmanager
    def transaction(self, timeout: float | None = None) -> Iterator[sqlite3.Connection]:
        """One user action: everything inside commits together or not at all.

        Nested blocks (a bank method called inside a caller's transaction) become savepoints
        of the outer transaction. Other threads wait for the lock, so there is one writer;
        `timeout` (seconds; default the 5 s busy timeout) bounds that wait, after which a
        BankError says the bank is busy. The GUI thread should pass a short timeout (or
        write from a worker) so that a running import never freezes it.
        """
        if self.read_only:
            raise BankError(
                f"{self.path.name} is open read-only, so changes cannot be saved.",
                "Save a copy in a folder you can write to and open the copy.",
            )
        wait = connection.BUSY_TIMEOUT_MS / 1000 if timeout is None else max(0.0, timeout)
        if not self._lock.acquire(timeout=wait):
            raise BankBusyError(
                f"{self.path.name} is busy: another task (an import or a scoring run) is "
                "saving to it.",
                "Wait for it to finish and try again.",
            )
        try:
            conn = self._writer_conn()
            if self._tx_depth:
                yield from self._savepoint(conn)
                return
            with translated(self.path):
                conn.execute("BEGIN IMMEDIATE")
            self._tx_depth, self._tx_thread = 1, threading.get_ident()
            try:
                self._check_same_file()
                with translated(self.path):
                    yield conn
                    self._check_same_file()
                    conn.execute("COMMIT")
            except BaseException:
                if not self._closed and conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise
            finally:
                self._tx_depth, self._tx_thread = 0, None
        finally:
            self._lock.release()

    def _savepoint(self, conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
        name = f"qs_{self._tx_depth}"
        conn.execute(f"SAVEPOINT {name}")
        self._tx_depth += 1
        try:
            with translated(self.path):
                yield conn
        except BaseException:
            if conn.in_transaction:
                conn.execute(f"ROLLBACK TO {name}")
                conn.execute(f"RELEASE {name}")
            raise
        else:
            conn.execute(f"RELEASE {name}")
        finally:
            self._tx_depth -= 1

    def _writer_conn(self) -> sqlite3.Connection:
        if self._closed or self._writer is None:
            raise BankError(f"{self.path.name} has been closed.", "Open the bank again.")
        return self._writer

    def _reader(self) -> sqlite3.Connection:
        if self._closed:
            raise BankError(f"{self.path.name} has been closed.", "Open the bank again.")
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is None:
            # No write lock here: the next transaction, or close(), deals with the -wal.
            self._check_same_file(abandon=False)
            with translated(self.path):
                conn = connection.connect(
                    self.path, mode="ro" if self.read_only else "rw", immutable=self._immutable
                )
                try:
                    # Readers never write, even by mistake; only the locked writer does.
                    conn.execute("PRAGMA query_only = ON")
                    conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
                except BaseException:
                    conn.close()
                    raise
            with self._readers_lock:
                self._readers.append(conn)
            self._local.conn = conn
            self._local.depth = 0
        return conn

    @contextmanager
    def reading(self) -> Iterator[sqlite3.Connection]:
        """A consistent snapshot for several queries; inside a transaction of this thread it
        is the writer, so the caller sees its own uncommitted changes."""
        if self._tx_thread == threading.get_ident():
            with translated(self.path):
                yield self._writer_conn()
            return
        conn = self._reader()
        depth = self._local.depth
        with translated(self.path):
            if depth == 0:
                conn.execute("BEGIN")
            self._local.depth = depth + 1
            try:
                yield conn
            finally:
                self._local.depth = depth
                if depth == 0 and conn.in_transaction:
                    conn.execute("COMMIT")

    # --- maintenance ----------------------------------------------------------------------

    @property
    def schema_version(self) -> list[str]:
        """Names of the migrations applied to this file, oldest first."""
        with self.reading() as conn:
            return schema.applied_names(Database(conn, execute_plugins=False))

    def integrity_problems(self) -> list[str]:
        """Everything SQLite's own checks and the bank's invariants find wrong; [] is healthy.
        Reads every page, so it takes seconds on a large bank."""
        with self.reading() as conn:
            problems = [r[0] for r in conn.execute("PRAGMA integrity_check") if r[0] != "ok"]
            problems += [
                f"foreign key: {r[0]} row {r[1]} -> {r[2]}"
                for r in conn.execute("PRAGMA foreign_key_check")
            ]
            problems += [
                f"item {r[0]} is a choice item without options"
                for r in conn.execute(
                    "SELECT id FROM items WHERE type IN ('mcq', 'tf') AND NOT EXISTS "
                    "(SELECT 1 FROM options WHERE item_id = items.id)"
                )
            ]
            fts_rows = conn.execute("SELECT count(*) FROM items_fts").fetchone()[0]
            item_rows = conn.execute("SELECT count(*) FROM items").fetchone()[0]
            if fts_rows != item_rows:
                problems.append(f"search index has {fts_rows} rows for {item_rows} items")
        if not self.read_only:
            # FTS5 checks its index against its content by "writing" a command row, which is
            # why it runs on the writer (it changes nothing).
            with self.transaction() as conn:
                for table in ("items_fts", "passages_fts"):
                    try:
                        conn.execute(f"INSERT INTO {table} ({table}) VALUES ('integrity-check')")
                    except sqlite3.DatabaseError as exc:
                        problems.append(f"{table}: {exc}")
        return problems
