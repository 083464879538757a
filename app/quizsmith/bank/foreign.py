"""A bank file is data: the SQL that runs on it is the schema's own, never the file's.

SQLite keeps triggers, views and indexes inside the database file and runs them itself: a
trigger added by hand (`AFTER INSERT ON items BEGIN DELETE FROM items ...`) emptied a bank of
50 items on the next import, one on `items.status` flipped option keys when a review was
saved, and a view standing where the `items` table was answered every query with a recursive
CTE that never ends. So what a file holds is compared with what the migrations make, found by
running them on an empty database in memory (`levels`, once per process):

- a trigger, view or index the schema does not define (by name and SQL: a trigger of ours
  with another body counts as foreign) is removed when the bank is opened for writing,
  before any write, and said so on stderr and in the log; the schema's own missing ones are
  made again. Removed rather than refused: these objects hold no data (the rows stay), a
  bank made through Quizsmith never has them, and refusing would leave the teacher with a
  bank that no command opens until someone runs SQL on it. A read-only open removes
  nothing: no trigger fires on a read, and every query names the schema's tables, which
  are checked to be tables;
- a table of the schema that the file holds as something else (a view, an index) is
  refused: the rows are not where the schema says, and nothing can be kept by dropping it.

Names read from the file are never pasted into SQL except to drop the object they name, and
then quoted as identifiers (`quote`); every other statement uses the schema's own names.
"""

from __future__ import annotations

import functools
import logging
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from sqlite_utils import Database

from quizsmith.bank import schema

#: The messages a teacher must see (the CLI shows this logger's records on stderr).
NOTICES = logging.getLogger("quizsmith.notices.bank")

#: Kinds of schema object that are code SQLite runs (or consults) by itself.
CODE_KINDS = ("trigger", "view", "index")


def quote(name: str) -> str:
    """`name` as an SQL identifier, whatever characters it holds."""
    return '"' + name.replace('"', '""') + '"'


@dataclass(frozen=True)
class Table:
    name: str
    #: "table", "virtual" (FTS5) or "shadow" (an FTS5 table's own storage).
    kind: str
    without_rowid: bool
    columns: tuple[str, ...]


@dataclass(frozen=True)
class Level:
    """The schema after the first `len(names)` migrations."""

    names: tuple[str, ...]
    #: (type, name, sql) of every trigger, view and index.
    code: frozenset[tuple[str, str, str]]
    tables: tuple[Table, ...]

    def table(self, name: str) -> Table | None:
        return next((t for t in self.tables if t.name == name), None)


@functools.cache
def levels() -> tuple[Level, ...]:
    """The schema at each migration: levels()[k] after the first k migrations."""
    conn = sqlite3.connect(":memory:", isolation_level=None)
    try:
        db = Database(conn, execute_plugins=False)
        names = schema.known_names()
        found = [_level(conn, ())]
        for k in range(len(names)):
            schema.migrate(db, stop_before=names[k + 1] if k + 1 < len(names) else None)
            found.append(_level(conn, tuple(names[: k + 1])))
        return tuple(found)
    finally:
        conn.close()


def _level(conn: sqlite3.Connection, names: tuple[str, ...]) -> Level:
    code = frozenset(
        (kind, name, sql)
        for kind, name, sql in conn.execute("SELECT type, name, sql FROM sqlite_master")
        if kind in CODE_KINDS and sql is not None
    )
    listed = {r[1]: (r[2], bool(r[4])) for r in conn.execute("PRAGMA main.table_list")}
    tables = []
    # In the order they were made, which a rescue's report follows.
    for (name,) in conn.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY rowid"
    ):
        if name.startswith("sqlite_") or name not in listed:
            continue
        columns = tuple(r[1] for r in conn.execute(f"PRAGMA table_info({quote(name)})"))
        tables.append(Table(name, listed[name][0], listed[name][1], columns))
    return Level(names, code, tuple(tables))


def latest() -> Level:
    return levels()[-1]


def level_of(applied: Sequence[str]) -> Level:
    """The schema of a bank whose recorded migrations are `applied` (unknown names, a newer
    Quizsmith's, are refused before this is asked)."""
    known = schema.known_names()
    done = [known.index(name) + 1 for name in applied if name in known]
    return levels()[max(done, default=0)]


def _ours() -> frozenset[tuple[str, str, str]]:
    return frozenset().union(*(level.code for level in levels()))


@dataclass(frozen=True)
class Foreign:
    kind: str
    name: str
    table: str

    def describe(self) -> str:
        on = f" on {self.table}" if self.table and self.table != self.name else ""
        return f'the {self.kind} "{self.name}"{on}'


def foreign_objects(conn: sqlite3.Connection) -> list[Foreign]:
    """Triggers, views and indexes in the file that no migration makes."""
    ours = _ours()
    return [
        Foreign(kind, name, table)
        for kind, name, table, sql in conn.execute(
            "SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name"
        )
        if kind in CODE_KINDS and sql is not None and (kind, name, sql) not in ours
    ]


def replaced_tables(conn: sqlite3.Connection) -> list[str]:
    """The schema's tables that the file holds as something else ("items (a view)")."""
    kinds = {
        name: kind
        for kind, name in conn.execute("SELECT type, name FROM sqlite_master")
        if latest().table(name) is not None
    }
    return [f"{name} (a {kind})" for name, kind in sorted(kinds.items()) if kind != "table"]


def describe(found: Sequence[Foreign]) -> str:
    shown = ", ".join(f.describe() for f in found[:5])
    return shown + (f" and {len(found) - 5} more" if len(found) > 5 else "")


def remove_foreign(conn: sqlite3.Connection, path: Path, applied: Sequence[str]) -> list[str]:
    """Drop what `foreign_objects` finds and make the schema's own missing triggers and
    indexes again, in one transaction on the writer `conn` before anything else writes;
    returns the notices said (also logged to NOTICES)."""
    if not foreign_objects(conn) and not _missing(conn, applied):
        return []
    conn.execute("BEGIN IMMEDIATE")
    try:
        # Looked at again inside the transaction: another process may have changed it.
        found = foreign_objects(conn)
        for item in found:
            conn.execute(f"DROP {item.kind.upper()} IF EXISTS {quote(item.name)}")
        for sql in _missing(conn, applied):
            conn.execute(sql)
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    if not found:
        return []
    notice = (
        f"{path.name} held {describe(found)}, which Quizsmith does not define; removed "
        "without running it (a bank holds data, and code stored in the file never runs). "
        "Your items and scores are unchanged."
    )
    NOTICES.warning(notice)
    return [notice]


def note_read_only(path: Path, found: Sequence[Foreign]) -> list[str]:
    """The notice for a bank opened for reading only, which is left as it is."""
    if not found:
        return []
    notice = (
        f"{path.name} holds {describe(found)}, which Quizsmith does not define; it is not run, "
        "and is removed the next time the bank is opened for changes."
    )
    NOTICES.warning(notice)
    return [notice]


def _missing(conn: sqlite3.Connection, applied: Sequence[str]) -> list[str]:
    """The SQL of the schema's triggers and indexes (at the bank's migration) that the file
    lacks by name; a foreign one of the same name is dropped first, so this remakes it."""
    present = {(kind, name) for kind, name in conn.execute("SELECT type, name FROM sqlite_master")}
    foreign = {(f.kind, f.name) for f in foreign_objects(conn)}
    return [
        sql
        for kind, name, sql in sorted(level_of(applied).code)
        if kind != "view" and ((kind, name) not in present or (kind, name) in foreign)
    ]
