"""`ItemBank`: the single entry point to stored data (DESIGN.md, house rules).

Why this module is long: ItemBank is the single entry point to stored data (house rule,
DESIGN.md), so every query and write the app makes is a method on it: connections and
transactions, passages, items, scores, reviews, drafts, search, quizzes, near-duplicates and
JSONL. Most methods are a few lines around a transaction that call records.py, search.py,
stats.py, dedupe.py or jsonl.py.

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

import json
import os
import sqlite3
import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path

import numpy as np
from sqlite_utils import Database

from quizsmith.bank import connection, foreign, jsonl, records, schema, search, stats
from quizsmith.bank import dedupe as neardup
from quizsmith.bank.connection import FileKind
from quizsmith.bank.dedupe import DEFAULT_THRESHOLD, DuplicateMatch, EmbedFn
from quizsmith.bank.errors import BankBusyError, BankError, BankReplacedError, translated
from quizsmith.domain import Flag, Item, Passage, Quiz, Review, ScoreResult, utc_now
from quizsmith.jobs import CancelToken, Job, Progress, run_to_end


class ItemBank:
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
        self._identity = _file_identity(self.path)
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
        self._identity = _file_identity(self.path)

    def _moved(self) -> bool:
        return self._identity is not None and _file_identity(self.path) != self._identity

    def _check_same_file(self, *, abandon: bool = True) -> None:
        """Refuse to go on when the path no longer names the file that was opened; with
        `abandon` (the caller holds the write lock) close the bank first."""
        now = _file_identity(self.path)
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

    # --- passages ---------------------------------------------------------------------------

    def add_passage(self, passage: Passage) -> int:
        """Store a passage and return its id; a passage with the same text, title, subject and
        source already stored is reused (its id is returned), so texts are never duplicated."""
        if not passage.text.strip():
            raise BankError("The passage is empty.", "Paste or import the passage text.")
        with self.transaction() as conn:
            return records.ensure_passage(conn, passage)

    def get_passage(self, passage_id: int) -> Passage:
        with self.reading() as conn:
            found = records.load_passages(conn, [passage_id])
        if passage_id not in found:
            raise BankError(f"Passage {passage_id} is not in the bank.", "Refresh the list.")
        return found[passage_id]

    def passages(self, subject: str | None = None) -> list[Passage]:
        sql, params = f"{records.PASSAGE_SELECT} ORDER BY p.id", []
        if subject is not None:
            sql = f"{records.PASSAGE_SELECT} WHERE s.name = ? ORDER BY p.id"
            params = [" ".join(subject.split())]
        with self.reading() as conn:
            return [
                Passage(id=r[0], title=r[1], subject=r[2], text=r[3], source_file=r[4])
                for r in conn.execute(sql, params)
            ]

    def items_of_passage(self, passage_id: int) -> list[Item]:
        """Every item written about a passage, oldest first (a re-run of a batch generation
        uses them to continue where it stopped)."""
        with self.reading() as conn:
            ids = [
                r[0]
                for r in conn.execute(
                    "SELECT id FROM items WHERE passage_id = ? ORDER BY id", (passage_id,)
                )
            ]
            return records.load_items(conn, ids, with_passages=False)

    def update_passage(self, passage: Passage) -> None:
        if passage.id is None:
            raise BankError("The passage has no id, so it is not in the bank.", "Add it instead.")
        with self.transaction() as conn:
            cur = conn.execute(
                "UPDATE passages SET title = ?, subject_id = ?, text = ?, hash = ?, "
                "source_file = ? WHERE id = ?",
                (
                    passage.title,
                    records.name_id(conn, "subjects", passage.subject, create=True),
                    passage.text,
                    passage.hash,
                    passage.source_file,
                    passage.id,
                ),
            )
            if cur.rowcount == 0:
                raise BankError(f"Passage {passage.id} is not in the bank.", "Refresh the list.")

    def delete_passage(self, passage_id: int) -> None:
        with self.transaction() as conn:
            used = conn.execute(
                "SELECT count(*) FROM items WHERE passage_id = ?", (passage_id,)
            ).fetchone()[0]
            if used:
                raise BankError(
                    f"Passage {passage_id} is used by {used} item(s).",
                    "Delete those items or attach them to another passage first.",
                )
            conn.execute("DELETE FROM passages WHERE id = ?", (passage_id,))

    # --- items ------------------------------------------------------------------------------

    def add_item(
        self, item: Item, *, dedupe: bool = False, threshold: float = DEFAULT_THRESHOLD
    ) -> int:
        """Store a new item (always under a new id) and return the id. With `dedupe`, items
        already in the bank at or above `threshold` similarity are recorded as a
        "near-duplicate" flag on the new item (see `near_duplicates`)."""
        return self.add_items([item], dedupe=dedupe, threshold=threshold)[0]

    def add_items(
        self, items: Sequence[Item], *, dedupe: bool = False, threshold: float = DEFAULT_THRESHOLD
    ) -> list[int]:
        """Store several items in one transaction (all or none); returns their ids in order."""
        for item in items:
            records.check_item(item)
        texts = [dedupe_text(item) for item in items]
        if dedupe and items:
            # Embedding takes model time: done before the write lock is taken.
            model, vectors, matches = self._near(texts, [set() for _ in items], threshold, 3)
        with self.transaction() as conn:
            ids = [records.insert_item(conn, item) for item in items]
            search.reindex_items(conn, ids)
            if dedupe and items:
                neardup.store(conn, model, ids, texts, vectors)
                for item_id, found in zip(ids, matches, strict=True):
                    if found:
                        records.write_flags(
                            conn, item_id, [duplicate_flag(found)], metric=neardup.FLAG_METRIC
                        )
        return ids

    def get_item(self, item_id: int) -> Item:
        """The item with its options, tags, flags, latest scores and passage."""
        found = self.get_items([item_id])
        if not found:
            raise records.missing_item(item_id)
        return found[0]

    def get_items(self, item_ids: Sequence[int], *, with_passages: bool = True) -> list[Item]:
        """Items in the given order; ids not in the bank are left out."""
        with self.reading() as conn:
            return records.load_items(conn, list(item_ids), with_passages=with_passages)

    def same_items(self, items: Sequence[Item]) -> list[int | None]:
        """For each item, the id of a bank item with the same type, question and answer (an
        import of a file already imported), else None."""
        with self.reading() as conn:
            return records.same_item_ids(conn, items)

    def update_item(self, item: Item) -> None:
        """Save an edited item's content. Scores, flags and reviews keep their own history
        and are changed through `add_score`, `set_flags` and `review`."""
        with self.transaction() as conn:
            records.update_item(conn, item)
            search.reindex_items(conn, [int(item.id or 0)])

    def delete_items(self, item_ids: Sequence[int]) -> int:
        """Delete items with their options, scores, reviews, flags and quiz places; returns
        how many existed."""
        with self.transaction() as conn:
            cur = conn.execute(
                "DELETE FROM items WHERE id IN (SELECT value FROM json_each(?))",
                (records.id_list(item_ids),),
            )
            return cur.rowcount

    def delete_item(self, item_id: int) -> None:
        if not self.delete_items([item_id]):
            raise records.missing_item(item_id)

    def set_tags(self, item_id: int, tags: Sequence[str]) -> None:
        with self.transaction() as conn:
            self._require_item(conn, item_id)
            records.write_tags(conn, item_id, tags)

    def add_score(self, item_id: int, score: ScoreResult) -> int:
        """Record a metric's result; earlier results stay in the history."""
        with self.transaction() as conn:
            self._require_item(conn, item_id)
            return records.insert_score(conn, item_id, score)

    def score_history(self, item_id: int, metric: str | None = None) -> list[ScoreResult]:
        """Every score of the item (of one metric, if given), oldest first."""
        with self.reading() as conn:
            return records.score_history(conn, [item_id], metric)[item_id]

    def set_flags(self, item_id: int, flags: Sequence[Flag], metric: str | None = None) -> None:
        """Replace the item's flags: only those of `metric` when given (a metric re-run
        replaces its own flags and leaves the others' alone), else all of them."""
        with self.transaction() as conn:
            self._require_item(conn, item_id)
            records.write_flags(conn, item_id, flags, metric)

    def save_score(self, item_id: int, score: ScoreResult, flags: Sequence[Flag]) -> int:
        """Record a metric's result and replace that metric's flags with `flags`, in one
        transaction: a failure between the two writes must not leave a new score beside
        flags that describe the previous one. Returns the score's id."""
        with self.transaction() as conn:
            self._require_item(conn, item_id)
            score_id = records.insert_score(conn, item_id, score)
            records.write_flags(conn, item_id, flags, score.metric)
            return score_id

    def review(self, item_id: int, decision: str, reason: str = "", note: str = "") -> Review:
        """Record a teacher's decision (accept, reject, needs-review) and set the item's
        status accordingly, in one transaction."""
        try:
            review = Review(item_id=item_id, decision=decision, reason=reason, note=note)
        except ValueError as exc:
            raise BankError(str(exc), "Accept, reject or mark as needing review.") from None
        with self.transaction() as conn:
            self._require_item(conn, item_id)
            return records.insert_review(conn, review, set_status=True)

    def reviews(self, item_id: int) -> list[Review]:
        with self.reading() as conn:
            return records.load_reviews(conn, [item_id])[item_id]

    def last_reviews(self, item_ids: Sequence[int]) -> dict[int, Review]:
        """The latest decision on each item that has one (one query; for lists that show
        why an item was rejected)."""
        with self.reading() as conn:
            found = records.load_reviews(conn, list(item_ids))
        return {item_id: reviews[-1] for item_id, reviews in found.items() if reviews}

    # --- editor drafts ------------------------------------------------------------------

    def save_draft(self, item_id: int, fields: Mapping[str, object]) -> str:
        """Keep an editor's unsaved edits of an item (JSON-able field values), replacing the
        previous draft; returns the time stored. The item itself is not changed."""
        saved = utc_now()
        text = json.dumps(dict(fields), ensure_ascii=False, sort_keys=True)
        with self.transaction() as conn:
            self._require_item(conn, item_id)
            conn.execute(
                "INSERT OR REPLACE INTO item_drafts (item_id, fields, saved) VALUES (?, ?, ?)",
                (item_id, text, saved),
            )
        return saved

    def get_draft(self, item_id: int) -> tuple[dict[str, object], str] | None:
        """The unsaved edits kept for an item and when they were stored, or None."""
        with self.reading() as conn:
            row = conn.execute(
                "SELECT fields, saved FROM item_drafts WHERE item_id = ?", (item_id,)
            ).fetchone()
        return (dict(json.loads(row[0])), str(row[1])) if row else None

    def delete_draft(self, item_id: int) -> None:
        """Forget an item's unsaved edits (after a save, or when the teacher discards them)."""
        with self.transaction() as conn:
            conn.execute("DELETE FROM item_drafts WHERE item_id = ?", (item_id,))

    def _require_item(self, conn: sqlite3.Connection, item_id: int) -> None:
        if conn.execute("SELECT 1 FROM items WHERE id = ?", (item_id,)).fetchone() is None:
            raise records.missing_item(item_id)

    # --- search and listing -------------------------------------------------------------

    def search(
        self,
        query: str = "",
        *,
        status: str | Sequence[str] | None = None,
        subject: str | None = None,
        tag: str | None = None,
        min_scores: Mapping[str, float] | None = None,
        max_scores: Mapping[str, float] | None = None,
        flagged: bool | None = None,
        sort_by: str = "created",
        descending: bool = True,
        limit: int | None = 200,
        offset: int = 0,
        with_passages: bool = False,
    ) -> list[Item]:
        """Items matching the full-text `query` (any text; see `search.fts_query`) and every
        filter given, sorted by "created", "updated", "id" or a metric's latest value
        (unscored items last). Score thresholds are inclusive. Passages are loaded only when
        asked, since a listing does not show them."""
        filters = search.Filters(
            query, status, subject, tag, min_scores or {}, max_scores or {}, flagged
        )
        with self.reading() as conn:
            ids = search.search_ids(
                conn, filters, sort_by=sort_by, descending=descending, limit=limit, offset=offset
            )
            return records.load_items(conn, ids, with_passages=with_passages)

    def count(
        self,
        query: str = "",
        *,
        status: str | Sequence[str] | None = None,
        subject: str | None = None,
        tag: str | None = None,
        min_scores: Mapping[str, float] | None = None,
        max_scores: Mapping[str, float] | None = None,
        flagged: bool | None = None,
    ) -> int:
        """How many items `search` with the same arguments would find without a limit."""
        filters = search.Filters(
            query, status, subject, tag, min_scores or {}, max_scores or {}, flagged
        )
        with self.reading() as conn:
            return search.count(conn, filters)

    def status_counts(self) -> dict[str, int]:
        with self.reading() as conn:
            return dict(conn.execute("SELECT status, count(*) FROM items GROUP BY status"))

    def subjects(self) -> list[str]:
        with self.reading() as conn:
            return [r[0] for r in conn.execute("SELECT name FROM subjects ORDER BY name")]

    def tags(self) -> list[str]:
        with self.reading() as conn:
            return [r[0] for r in conn.execute("SELECT name FROM tags ORDER BY name")]

    # --- statistics for the metrics -----------------------------------------------------

    def expected_complexity(
        self,
        subject: str | None,
        min_items: int = stats.MIN_ITEMS,
        default: int = stats.DEFAULT_EXPECTED_STEPS,
    ) -> int:
        """NACo's expected reasoning-step count E for `subject` (None: the whole bank): the
        mode over accepted items' latest NACo "steps" when at least `min_items` have one,
        else `default`. Ties go to the smaller count."""
        return stats.expected_steps(self.complexity_histogram(subject), min_items, default)

    def complexity_histogram(self, subject: str | None) -> dict[int, int]:
        with self.reading() as conn:
            return stats.step_histogram(conn, subject)

    # --- quizzes ------------------------------------------------------------------------

    def create_quiz(self, name: str, item_ids: Sequence[int] = ()) -> int:
        clean = self._quiz_name(name)
        with self.transaction() as conn:
            if conn.execute("SELECT 1 FROM quizzes WHERE name = ?", (clean,)).fetchone():
                raise BankError(f"A quiz named {clean!r} already exists.", "Choose another name.")
            quiz_id = int(
                conn.execute(
                    "INSERT INTO quizzes (name, created) VALUES (?, ?)", (clean, utc_now())
                ).lastrowid
                or 0
            )
            self._write_quiz_order(conn, quiz_id, list(item_ids))
            return quiz_id

    def rename_quiz(self, quiz_id: int, name: str) -> None:
        clean = self._quiz_name(name)
        with self.transaction() as conn:
            other = conn.execute("SELECT id FROM quizzes WHERE name = ?", (clean,)).fetchone()
            if other is not None and other[0] != quiz_id:
                raise BankError(f"A quiz named {clean!r} already exists.", "Choose another name.")
            if (
                conn.execute("UPDATE quizzes SET name = ? WHERE id = ?", (clean, quiz_id)).rowcount
                == 0
            ):
                raise _missing_quiz(quiz_id)

    def delete_quiz(self, quiz_id: int) -> None:
        """Delete the quiz; its items stay in the bank."""
        with self.transaction() as conn:
            if conn.execute("DELETE FROM quizzes WHERE id = ?", (quiz_id,)).rowcount == 0:
                raise _missing_quiz(quiz_id)

    def get_quiz(self, quiz_id: int) -> Quiz:
        with self.reading() as conn:
            found = records.load_quizzes(conn, quiz_id)
        if not found:
            raise _missing_quiz(quiz_id)
        return found[0]

    def quizzes(self) -> list[Quiz]:
        with self.reading() as conn:
            return records.load_quizzes(conn)

    def add_to_quiz(
        self, quiz_id: int, item_ids: Sequence[int], position: int | None = None
    ) -> None:
        """Insert items at `position` (default: the end); items already in the quiz move."""
        with self.transaction() as conn:
            order = self._quiz_order(conn, quiz_id)
            adding = list(dict.fromkeys(item_ids))
            rest = [i for i in order if i not in set(adding)]
            at = len(rest) if position is None else max(0, min(position, len(rest)))
            self._write_quiz_order(conn, quiz_id, rest[:at] + adding + rest[at:])

    def remove_from_quiz(self, quiz_id: int, item_ids: Sequence[int]) -> None:
        with self.transaction() as conn:
            drop = set(item_ids)
            order = self._quiz_order(conn, quiz_id)
            self._write_quiz_order(conn, quiz_id, [i for i in order if i not in drop])

    def reorder_quiz(self, quiz_id: int, item_ids: Sequence[int]) -> None:
        """Set the quiz's order; `item_ids` must be exactly the quiz's items."""
        with self.transaction() as conn:
            order = self._quiz_order(conn, quiz_id)
            if sorted(order) != sorted(item_ids):
                raise BankError(
                    "The new order must list exactly the quiz's items, each once.",
                    "Refresh the quiz and try again.",
                )
            self._write_quiz_order(conn, quiz_id, list(item_ids))

    @staticmethod
    def _quiz_name(name: str) -> str:
        clean = records.clean_name(name)
        if clean is None:
            raise BankError("A quiz needs a name.", "Type a name for the quiz.")
        return clean

    def _quiz_order(self, conn: sqlite3.Connection, quiz_id: int) -> list[int]:
        if conn.execute("SELECT 1 FROM quizzes WHERE id = ?", (quiz_id,)).fetchone() is None:
            raise _missing_quiz(quiz_id)
        return [
            r[0]
            for r in conn.execute(
                "SELECT item_id FROM quiz_items WHERE quiz_id = ? ORDER BY position, item_id",
                (quiz_id,),
            )
        ]

    def _write_quiz_order(self, conn: sqlite3.Connection, quiz_id: int, order: list[int]) -> None:
        order = list(dict.fromkeys(order))
        present = {
            r[0]
            for r in conn.execute(
                "SELECT id FROM items WHERE id IN (SELECT value FROM json_each(?))",
                (records.id_list(order),),
            )
        }
        absent = [i for i in order if i not in present]
        if absent:
            raise BankError(
                f"Item(s) {', '.join(map(str, absent))} are not in the bank.", "Refresh the list."
            )
        conn.execute("DELETE FROM quiz_items WHERE quiz_id = ?", (quiz_id,))
        conn.executemany(
            "INSERT INTO quiz_items (quiz_id, item_id, position) VALUES (?, ?, ?)",
            [(quiz_id, item_id, pos) for pos, item_id in enumerate(order)],
        )

    # --- near-duplicates ----------------------------------------------------------------

    def near_duplicates(
        self,
        item: Item | str,
        *,
        threshold: float = DEFAULT_THRESHOLD,
        limit: int = 5,
    ) -> list[DuplicateMatch]:
        """Items in the bank whose question and answer are at least `threshold` cosine-close
        to `item`'s (or to a text), closest first; the item itself is never its own match."""
        return self.find_near_duplicates([item], threshold=threshold, limit=limit)[0]

    def find_near_duplicates(
        self,
        items: Sequence[Item | str],
        *,
        threshold: float = DEFAULT_THRESHOLD,
        limit: int = 5,
    ) -> list[list[DuplicateMatch]]:
        """`near_duplicates` for several items at once (one model call, one matrix load).
        Items of the bank without a vector are embedded and stored first (see
        `embed_missing`); a read-only bank compares with the vectors it already holds."""
        if not items:
            return []
        texts = [t if isinstance(t, str) else dedupe_text(t) for t in items]
        exclude = [{t.id} if isinstance(t, Item) and t.id is not None else set() for t in items]
        return self._near(texts, exclude, threshold, limit)[2]

    def _near(
        self, texts: Sequence[str], exclude: list[set[int]], threshold: float, limit: int
    ) -> tuple[str, np.ndarray, list[list[DuplicateMatch]]]:
        if not self.read_only:
            run_to_end(self.embed_missing())
        model, embed = self._embedder()
        vectors = neardup.as_matrix(embed(list(texts)), len(texts))
        with self.reading() as conn:
            ids, matrix = neardup.load(conn, model, int(vectors.shape[1]))
            found = neardup.nearest(
                ids, matrix, vectors, threshold=threshold, limit=limit, exclude=exclude
            )
            stems = {
                r[0]: r[1]
                for r in conn.execute(
                    "SELECT id, stem FROM items WHERE id IN (SELECT value FROM json_each(?))",
                    (records.id_list({i for row in found for i, _ in row}),),
                )
            }
        matches = [[DuplicateMatch(i, sim, stems.get(i, "")) for i, sim in row] for row in found]
        return model, vectors, matches

    def embed_missing(self, cancel: CancelToken | None = None, batch: int = 64) -> Job[int]:
        """Job: compute and store vectors for items that have none from the current model.
        Each batch is its own transaction, so cancelling keeps what was done."""
        token = cancel or CancelToken()
        model, embed = self._embedder()
        with self.reading() as conn:
            total = neardup.count_missing(conn, model)
        done = 0
        while done < total:
            token.raise_if_cancelled()
            with self.reading() as conn:
                todo = neardup.missing(conn, model, limit=batch)
            if not todo:
                break
            ids, texts = [t[0] for t in todo], [t[1] for t in todo]
            vectors = neardup.as_matrix(embed(texts), len(texts))
            with self.transaction() as conn:
                neardup.store(conn, model, ids, texts, vectors)
            done += len(todo)
            yield Progress("Embedding items for duplicate checks", min(done, total), total)
        return done

    def _embedder(self) -> tuple[str, EmbedFn]:
        if self._embed is None:
            from quizsmith.providers import provider_for_role

            provider = provider_for_role("embeddings")
            self._embed = provider.embed
            self._embed_model = self._embed_model or provider.info.label()
        model = self._embed_model or str(getattr(self._embed, "__qualname__", "custom"))
        return model, self._embed

    # --- JSONL interchange ----------------------------------------------------------------

    def export_jsonl(self, path: str | os.PathLike[str], *, status: str | None = None) -> int:
        """Write the bank as JSONL (DESIGN.md interchange format); returns the item count.
        Without `status` the file holds the whole bank (see `quizsmith.bank.jsonl`)."""
        return run_to_end(self.export_jsonl_job(path, status=status))[1]

    def export_jsonl_job(
        self,
        path: str | os.PathLike[str],
        *,
        status: str | None = None,
        cancel: CancelToken | None = None,
    ) -> Job[int]:
        with self.reading() as conn:
            return (yield from jsonl.export_job(conn, Path(path), status, cancel or CancelToken()))

    def import_jsonl(self, path: str | os.PathLike[str]) -> jsonl.ImportResult:
        """Add every record of a JSONL file in one transaction: a bad line (reported by
        number) or a cancel imports nothing."""
        return run_to_end(self.import_jsonl_job(path))[1]

    def import_jsonl_job(
        self, path: str | os.PathLike[str], *, cancel: CancelToken | None = None
    ) -> Job[jsonl.ImportResult]:
        return (yield from self.import_parsed_job(jsonl.read_file(Path(path)), cancel=cancel))

    def import_parsed_job(
        self, parsed: jsonl.ParsedFile, *, cancel: CancelToken | None = None
    ) -> Job[jsonl.ImportResult]:
        """Add a JSONL file already read and checked with `bank.jsonl.read_file` (so a caller
        can refuse a bad or empty file before it opens, or creates, the bank)."""
        with self.transaction() as conn:
            return (yield from jsonl.import_job(conn, parsed, cancel or CancelToken()))

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


def dedupe_text(item: Item) -> str:
    return neardup.embedding_text(item.stem, item.key)


def duplicate_flag(matches: Sequence[DuplicateMatch]) -> Flag:
    closest = ", ".join(f"#{m.item_id} ({m.similarity:.2f})" for m in matches)
    return Flag(
        neardup.FLAG_CODE,
        f"Very similar to item(s) already in the bank: {closest}.",
        neardup.FLAG_METRIC,
        "warning",
    )


def _missing_quiz(quiz_id: int) -> BankError:
    return BankError(f"Quiz {quiz_id} is not in the bank.", "Refresh the list of quizzes.")


def _file_identity(path: Path) -> tuple[int, int] | None:
    """(device, inode) of the file at `path`; None when there is none."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino
