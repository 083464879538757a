"""`quizsmith recover BANK`: copy every row that can still be read into a new bank.

Why this module is long: a rescue is one sequence over one damaged file (find the schema it
had reached, copy each table forwards and backwards around damage, count what was skipped,
repair references, rebuild derived tables and search indexes), and each step must tolerate
the damage the others meet; split apart, the pieces would only be called from here.

The damaged-bank message used to say `sqlite3 X .recover | sqlite3 rescued.qbank`, which
fails on every Quizsmith bank with the sqlite3 3.40 command-line tool (the banks hold
`sqlite_stat1`, which `.recover` writes back as a table it may not create). This is the same
idea done by hand, as `.dump` does it, table by table, and tolerant of damage:

- the schema is made by Quizsmith's own migrations, up to the one the damaged file had
  reached (opening the rescued bank runs any later ones), never taken from the file's
  `sqlite_master`: only the tables the schema defines are read, under the schema's names, so
  a trigger or view the file holds is not carried over and a table name in it is never
  pasted into SQL (`foreign.py`); SQLite's own tables (`sqlite_stat1`, `sqlite_sequence`) and
  the full-text index's shadow tables are not copied but rebuilt;
- each table is read in key order until the first unreadable page, then backwards from its
  end until the damage, so only the rows on damaged pages are lost; text that is not UTF-8 is
  kept with replacement characters;
- rows that point at rows that were lost (a score whose item is gone) are dropped, or their
  reference cleared where it may be empty (an item whose passage is gone keeps its text);
- the search indexes are rebuilt after the copy, AUTOINCREMENT counters are kept (an id is
  never reused), and the result must pass SQLite's integrity check.

The damaged file is only read (never written); the new one is built under a temporary name
and renamed into place when complete.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from contextlib import suppress
from dataclasses import dataclass, field
from pathlib import Path

from sqlite_utils import Database

from quizsmith.bank import foreign, schema
from quizsmith.bank.connection import SQLITE_HEADER, connect, refuse_unreadable_wal
from quizsmith.bank.errors import BankError, rescued_name
from quizsmith.paths_guard import PathError, regular_or_absent, temp_sibling


@dataclass
class TableRescue:
    name: str
    kept: int = 0
    #: Why part of the table could not be read ("" when all of it was).
    unreadable: str = ""
    #: Rows left out because what they point at was lost.
    dropped: int = 0
    #: Rows whose reference was cleared (it may be empty) because what it named was lost.
    cleared: int = 0


@dataclass
class Recovery:
    source: Path
    target: Path
    tables: list[TableRescue] = field(default_factory=list)
    #: What the rescued bank's own checks still find (should be empty).
    problems: list[str] = field(default_factory=list)

    @property
    def complete(self) -> bool:
        """Every row was read and kept."""
        return not any(t.unreadable or t.dropped or t.cleared for t in self.tables)

    def table(self, name: str) -> TableRescue:
        for table in self.tables:
            if table.name == name:
                return table
        raise KeyError(name)


def recover_bank(source: Path, target: Path | None = None) -> Recovery:
    """Copy what can be read of the bank at `source` into a new bank (default: beside it,
    named NAME-rescued.qbank). Raises BankError when nothing can be rescued."""
    source = Path(source).expanduser().absolute()
    target = (
        Path(target).expanduser().absolute() if target else source.with_name(rescued_name(source))
    )
    _check_paths(source, target)
    partial = temp_sibling(target)
    partial.unlink(missing_ok=True)
    src = _open_source(source)
    report = Recovery(source, target)
    try:
        dst = sqlite3.connect(partial, isolation_level=None)
        try:
            _copy(src, dst, report, source)
            problems = [r[0] for r in dst.execute("PRAGMA integrity_check") if r[0] != "ok"]
            problems += [
                f"{r[0]} row {r[1]} -> {r[2]}" for r in dst.execute("PRAGMA foreign_key_check")
            ]
            if problems:
                raise BankError(
                    f"The copy of {source.name} is not consistent ({problems[0]}); nothing "
                    "was written.",
                    "Restore the bank from a backup or a JSONL export.",
                )
        finally:
            dst.close()
        os.replace(partial, target)
    finally:
        src.close()
        partial.unlink(missing_ok=True)
    _finish(report)
    return report


def _check_paths(source: Path, target: Path) -> None:
    try:
        # stat, not open: a named pipe would wait for a writer that never comes.
        exists = regular_or_absent(source, "The bank to rescue", "Choose the bank file.")
        regular_or_absent(target, "The rescued bank (--out)")
    except PathError as exc:
        raise BankError(exc.message, exc.fix) from None
    if not exists:
        raise BankError(f"There is no bank at {source}.", "Check the file name.")
    with source.open("rb") as fh:
        if fh.read(len(SQLITE_HEADER)) != SQLITE_HEADER:
            raise BankError(
                f"{source.name} is not an SQLite file, so there is nothing to rescue from it.",
                "Restore the bank from a backup or a JSONL export.",
            )
    if target.exists() or target == source:
        raise BankError(
            f"{target.name} already exists; the rescue never overwrites a file.",
            "Move it away, or name another file with --out.",
        )
    if not target.parent.is_dir():
        raise BankError(f"The folder {target.parent} does not exist.", "Choose another --out.")


def _open_source(path: Path) -> sqlite3.Connection:
    unreadable = "{name} cannot be rescued: its list of tables is unreadable ({exc})."
    try:
        try:
            conn = connect(path, mode="ro")
            conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
        except sqlite3.OperationalError as exc:
            if "unable to open" not in str(exc):
                raise
            # No -shm can be made beside it (a read-only folder): read the main file as it
            # is, unless saved changes wait in its -wal (they would be missing).
            refuse_unreadable_wal(path)
            conn = connect(path, mode="ro", immutable=True)
            conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
    except (sqlite3.DatabaseError, UnicodeDecodeError) as exc:
        raise BankError(
            unreadable.format(name=path.name, exc=exc),
            "Restore the bank from a backup or a JSONL export.",
        ) from None
    # A damaged text cell is kept with replacement characters instead of ending the copy.
    conn.text_factory = lambda raw: raw.decode("utf-8", "replace")
    return conn


def _copy(src: sqlite3.Connection, dst: sqlite3.Connection, report: Recovery, path: Path) -> None:
    try:
        kinds = {name: kind for kind, name in src.execute("SELECT type, name FROM sqlite_master")}
    except (sqlite3.DatabaseError, UnicodeDecodeError) as exc:
        raise BankError(
            f"{path.name} cannot be rescued: its list of tables is unreadable ({exc}).",
            "Restore the bank from a backup or a JSONL export.",
        ) from None
    if kinds.get(schema.MARKER_TABLE) != "table" and kinds.get("items") != "table":
        raise BankError(
            f"{path.name} is an SQLite file, but not a Quizsmith item bank: there is nothing "
            "to rescue from it.",
            "Choose the bank file (.qbank) to rescue.",
        )
    level = _level(src, kinds, path)
    # The new bank gets its schema from our own migrations, up to the one the damaged file
    # had reached, never from the file's CREATE statements: they would carry whatever it
    # holds (a trigger added by hand, a view in a table's place), and a table name read from
    # the file is never pasted into SQL (one named `a" FROM items; --` ended the rescue with
    # a syntax error).
    schema.migrate(Database(dst, execute_plugins=False), stop_before=_next_migration(level))
    intact = _intact(src)
    dst.execute("PRAGMA foreign_keys = OFF")
    dst.execute("BEGIN")
    with suppress(sqlite3.DatabaseError, UnicodeDecodeError, TypeError, ValueError):
        version = int(src.execute("PRAGMA user_version").fetchone()[0])
        dst.execute(f"PRAGMA user_version = {version}")
    for table in level.tables:
        if table.kind != "table" or table.name == schema.MIGRATIONS_TABLE:
            continue  # search indexes are rebuilt below; the migrations are the new bank's
        held = kinds.get(table.name)
        if held != "table":
            why = "missing from the file" if held is None else f"the file holds a {held} instead"
            report.tables.append(TableRescue(table.name, unreadable=why))
            continue
        report.tables.append(_copy_table(src, dst, table, trust_analyze=not intact))
    _keep_sequences(src, dst, {t.name for t in level.tables})
    _repair_references(dst, report)
    _rebuild_latest_scores(dst)
    for table in level.tables:
        if table.kind == "virtual":
            _fill_virtual(dst, table.name)
    dst.execute("COMMIT")


def _level(src: sqlite3.Connection, kinds: dict[str, str], path: Path) -> foreign.Level:
    """The schema the damaged bank had reached: from its record of migrations, or when that
    cannot be read, the last level whose tables and columns it all holds."""
    applied: list[str] = []
    if kinds.get(schema.MIGRATIONS_TABLE) == "table":
        with suppress(sqlite3.DatabaseError, UnicodeDecodeError):
            applied = [
                str(r[0])
                for r in src.execute(
                    f"SELECT name FROM {foreign.quote(schema.MIGRATIONS_TABLE)} "
                    "WHERE migration_set = ?",
                    (schema.MIGRATION_SET,),
                )
            ]
    newer = [name for name in applied if name not in schema.known_names()]
    if newer:
        raise BankError(
            f"{path.name} was saved by a newer version of Quizsmith ({newer[0]}).",
            "Rescue it with that version: this one does not know all of its tables.",
        )
    if applied:
        return foreign.level_of(applied)
    found = foreign.levels()[0]
    for level in foreign.levels()[1:]:
        tables = [t for t in level.tables if t.kind == "table"]
        if not all(_has_columns(src, kinds, t) for t in tables):
            break
        found = level
    return found


def _has_columns(src: sqlite3.Connection, kinds: dict[str, str], table: foreign.Table) -> bool:
    if kinds.get(table.name) != "table":
        return False
    try:
        held = {r[1] for r in src.execute(f"PRAGMA table_info({foreign.quote(table.name)})")}
    except (sqlite3.DatabaseError, UnicodeDecodeError):
        return False
    return set(table.columns) <= held


def _next_migration(level: foreign.Level) -> str | None:
    names = schema.known_names()
    return names[len(level.names)] if len(level.names) < len(names) else None


def _intact(src: sqlite3.Connection) -> bool:
    """Whether SQLite finds every page of the file sound. Then the row counts the last
    ANALYZE left in sqlite_stat1 are no sign of lost rows, only of rows deleted since: an
    intact bank with 24,001 of its 25,000 items deleted was reported as "options: part could
    not be read" (rc 4), since closing a bank runs PRAGMA optimize, which analyses a table
    again only when a query of that session used its statistics."""
    try:
        return [r[0] for r in src.execute("PRAGMA quick_check")] == ["ok"]
    except (sqlite3.DatabaseError, UnicodeDecodeError):
        return False


def _copy_table(
    src: sqlite3.Connection,
    dst: sqlite3.Connection,
    table: foreign.Table,
    *,
    trust_analyze: bool = True,
) -> TableRescue:
    rescue = TableRescue(table.name)
    name = foreign.quote(table.name)
    try:
        held = {r[1] for r in src.execute(f"PRAGMA table_info({name})")}
    except (sqlite3.DatabaseError, UnicodeDecodeError) as exc:
        rescue.unreadable = str(exc)
        return rescue
    # The schema's columns that the file has (one an older bank lacks takes its default).
    columns = [c for c in table.columns if c in held]
    info = dst.execute(f"PRAGMA table_info({name})").fetchall()
    pk = [r[1] for r in sorted(info, key=lambda r: r[5]) if r[5]]
    types = {r[1]: str(r[2]).upper() for r in info}
    ipk = pk[0] if len(pk) == 1 and types[pk[0]] == "INTEGER" else None
    if table.without_rowid:
        names = [foreign.quote(c) for c in columns]
        order = [foreign.quote(c) for c in pk]
    else:
        # rowid first: a table without an INTEGER PRIMARY KEY keeps its row ids too, so the
        # backwards pass below cannot copy a row twice.
        names = ["rowid", *(foreign.quote(c) for c in columns if c != ipk)]
        order = ["rowid"]
    # Rows the migrations wrote (the bank's format and creation date) give way to the
    # file's, and come back only where the file lost them.
    made = dst.execute(f"SELECT {', '.join(names)} FROM {name}").fetchall()
    dst.execute(f"DELETE FROM {name}")
    marks = ", ".join("?" * len(names))
    insert = f"INSERT OR IGNORE INTO {name} ({', '.join(names)}) VALUES ({marks})"
    for direction in ("ASC", "DESC"):
        ordering = ", ".join(f"{c} {direction}" for c in order)
        query = f"SELECT {', '.join(names)} FROM {name} ORDER BY {ordering}"
        try:
            for row in _rows(src, query):
                rescue.kept += dst.execute(insert, row).rowcount
        except (sqlite3.DatabaseError, UnicodeDecodeError) as exc:
            rescue.unreadable = rescue.unreadable or str(exc)
            continue
        break  # read to the end in one direction: nothing was skipped
    dst.executemany(insert, made)
    if not rescue.unreadable:
        rescue.unreadable = _shortfall(src, table.name, rescue.kept, trust_analyze=trust_analyze)
    return rescue


def _shortfall(
    src: sqlite3.Connection, table: str, kept: int, *, trust_analyze: bool = True
) -> str:
    """Why fewer rows were read than the file says the table holds ("" when not). A damaged
    interior page can make SQLite skip a whole leaf without an error; the table's own count
    (often answered from an intact index) then says more, or failing that (`trust_analyze`:
    the file is damaged) the row count ANALYZE recorded in sqlite_stat1, which may be older
    than later deletions."""
    counted = _first_number(src, f"SELECT count(*) FROM {foreign.quote(table)}", ())
    if counted > kept:
        return f"{counted - kept:,} of {counted:,} rows were skipped by a damaged page"
    if not trust_analyze:
        return ""
    analyzed = _first_number(src, "SELECT stat FROM sqlite_stat1 WHERE tbl = ?", (table,))
    if analyzed > kept:
        return (
            f"{kept:,} rows read where the last ANALYZE counted {analyzed:,}: rows on a damaged "
            "page, or deleted since"
        )
    return ""


def _first_number(src: sqlite3.Connection, query: str, params: tuple[str, ...]) -> int:
    """The leading integer of the query's first row (0 when it cannot be read)."""
    try:
        row = src.execute(query, params).fetchone()
    except (sqlite3.DatabaseError, UnicodeDecodeError):
        return 0
    words = str(row[0]).split() if row and row[0] is not None else []
    return int(words[0]) if words and words[0].isdigit() else 0


def _rows(conn: sqlite3.Connection, query: str) -> Iterator[tuple[object, ...]]:
    # Row by row: a batch (fetchmany) that meets the damaged page loses the rows before it.
    yield from conn.execute(query)


def _keep_sequences(src: sqlite3.Connection, dst: sqlite3.Connection, tables: set[str]) -> None:
    """AUTOINCREMENT counters at least as high as before: an id is never given again, even
    to a row that replaces one lost on a damaged page. Only the schema's `tables`."""
    try:
        rows = src.execute("SELECT name, seq FROM sqlite_sequence").fetchall()
    except (sqlite3.DatabaseError, UnicodeDecodeError):
        return
    for name, seq in rows:
        if name not in tables or not isinstance(seq, int):
            continue
        updated = dst.execute(
            "UPDATE sqlite_sequence SET seq = max(seq, ?) WHERE name = ?", (seq, name)
        ).rowcount
        if not updated:
            dst.execute("INSERT INTO sqlite_sequence (name, seq) VALUES (?, ?)", (name, seq))


def _repair_references(dst: sqlite3.Connection, report: Recovery) -> None:
    """Drop rows that point at lost rows; clear the reference where it may be empty."""
    for _ in range(5):  # a lost score takes its latest_scores row with it on the next pass
        changed = 0
        for rescue in report.tables:
            # Every name here is the new bank's own schema's (foreign.py's quote all the same).
            table = foreign.quote(rescue.name)
            info = {r[1]: r[3] for r in dst.execute(f"PRAGMA table_info({table})")}
            for fk in dst.execute(f"PRAGMA foreign_key_list({table})").fetchall():
                parent, column, parent_column = fk[2], fk[3], fk[4]
                if parent_column is None:
                    parent_column = "rowid"
                col = foreign.quote(column)
                bad = (
                    f"{col} IS NOT NULL AND {col} NOT IN "
                    f"(SELECT {foreign.quote(parent_column)} FROM {foreign.quote(parent)})"
                )
                if info.get(column):  # NOT NULL: the row means nothing without it
                    n = dst.execute(f"DELETE FROM {table} WHERE {bad}").rowcount
                    rescue.dropped += n
                    rescue.kept -= n
                else:
                    sql = f"UPDATE {table} SET {col} = NULL WHERE {bad}"
                    n = dst.execute(sql).rowcount
                    rescue.cleared += n
                changed += n
        if not changed:
            return


def _rebuild_latest_scores(dst: sqlite3.Connection) -> None:
    """The latest score per (item, metric) is derived from the score history (migration
    0002 fills it the same way), so it is rebuilt rather than trusted."""
    names = {r[0] for r in dst.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if {"latest_scores", "scores"} <= names:
        dst.execute("DELETE FROM latest_scores")
        dst.execute(
            "INSERT INTO latest_scores (item_id, metric, score_id, value) "
            "SELECT item_id, metric, max(id), value FROM scores GROUP BY item_id, metric"
        )


def _fill_virtual(dst: sqlite3.Connection, name: str) -> None:
    """Search indexes are rebuilt from the rescued rows, never copied from damaged pages."""
    if name == "items_fts":  # the items' own index: stem, key and option texts
        from quizsmith.bank.search import reindex_items

        reindex_items(dst, [r[0] for r in dst.execute("SELECT id FROM items")])
    else:  # an index over a table of the bank (passages_fts): FTS5 rebuilds it from there
        dst.execute(f"INSERT INTO {foreign.quote(name)} ({foreign.quote(name)}) VALUES ('rebuild')")


def _finish(report: Recovery) -> None:
    """Open the rescued file as a bank (pending migrations run) and list what its checks
    still find."""
    from quizsmith.bank.store import ItemBank

    with ItemBank(report.target, create=False) as bank:
        report.problems = bank.integrity_problems()
