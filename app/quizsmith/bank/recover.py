"""`quizsmith recover BANK`: copy every row that can still be read into a new bank.

The damaged-bank message used to say `sqlite3 X .recover | sqlite3 rescued.qbank`, which
fails on every Quizsmith bank with the sqlite3 3.40 command-line tool (the banks hold
`sqlite_stat1`, which `.recover` writes back as a table it may not create). This is the same
idea done by hand, as `.dump` does it, table by table, and tolerant of damage:

- the schema is taken from the damaged file's `sqlite_master` (so the rescued bank is at the
  same migration; opening it runs any pending ones); SQLite's own tables (`sqlite_stat1`,
  `sqlite_sequence`) and the full-text index's shadow tables are not copied but rebuilt;
- each table is read in key order until the first unreadable page, then backwards from its
  end until the damage, so only the rows on damaged pages are lost; text that is not UTF-8 is
  kept with replacement characters;
- rows that point at rows that were lost (a score whose item is gone) are dropped, or their
  reference cleared where it may be empty (an item whose passage is gone keeps its text);
- indexes, triggers and the search indexes are built after the copy, AUTOINCREMENT counters
  are kept (an id is never reused), and the result must pass SQLite's integrity check.

The damaged file is only read (never written); the new one is built under a temporary name
and renamed into place when complete.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from quizsmith.bank.connection import SQLITE_HEADER, connect, refuse_unreadable_wal
from quizsmith.bank.errors import BankError, rescued_name


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
    partial = target.with_name(target.name + ".partial")
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
    if not source.is_file():
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
        entries = src.execute(
            "SELECT type, name, tbl_name, sql FROM sqlite_master WHERE sql IS NOT NULL"
        ).fetchall()
        kinds = {r[1]: (r[2], r[4]) for r in src.execute("PRAGMA table_list")}
    except (sqlite3.DatabaseError, UnicodeDecodeError) as exc:
        raise BankError(
            f"{path.name} cannot be rescued: its list of tables is unreadable ({exc}).",
            "Restore the bank from a backup or a JSONL export.",
        ) from None
    shadow = {name for name, (kind, _) in kinds.items() if kind == "shadow"}
    virtual = [
        (n, sql)
        for t, n, _, sql in entries
        if t == "table" and n in kinds and kinds[n][0] == "virtual"
    ]
    tables = [
        (name, sql)
        for kind, name, _, sql in entries
        if kind == "table"
        and not name.startswith("sqlite_")
        and name not in shadow
        and kinds.get(name, ("table", 0))[0] == "table"
    ]
    dst.execute("PRAGMA foreign_keys = OFF")
    dst.execute("BEGIN")
    for pragma in ("application_id", "user_version"):
        try:
            value = int(src.execute(f"PRAGMA {pragma}").fetchone()[0])
        except (sqlite3.DatabaseError, UnicodeDecodeError):
            continue
        dst.execute(f"PRAGMA {pragma} = {value}")
    for _, sql in tables:
        dst.execute(sql)
    for name, _ in tables:
        report.tables.append(_copy_table(src, dst, name, without_rowid=bool(kinds[name][1])))
    _keep_sequences(src, dst)
    for kind, name, tbl, sql in entries:
        if kind == "index" and tbl not in shadow and not name.startswith("sqlite_"):
            dst.execute(sql)
    _repair_references(dst, report)
    _rebuild_latest_scores(dst)
    for name, sql in virtual:
        dst.execute(sql)
        _fill_virtual(dst, name, sql)
    for kind, _, tbl, sql in entries:
        if kind == "trigger" and tbl not in shadow:
            dst.execute(sql)
    dst.execute("COMMIT")


def _columns(dst: sqlite3.Connection, table: str) -> tuple[list[str], str | None, list[str]]:
    """(columns to copy, the INTEGER PRIMARY KEY column if any, primary key columns)."""
    info = dst.execute(f'PRAGMA table_info("{table}")').fetchall()
    pk = [r[1] for r in sorted(info, key=lambda r: r[5]) if r[5]]
    types = {r[1]: str(r[2]).upper() for r in info}
    ipk = pk[0] if len(pk) == 1 and types[pk[0]] == "INTEGER" else None
    return [r[1] for r in info], ipk, pk


def _copy_table(
    src: sqlite3.Connection, dst: sqlite3.Connection, table: str, *, without_rowid: bool
) -> TableRescue:
    rescue = TableRescue(table)
    columns, ipk, pk = _columns(dst, table)
    quoted = ", ".join(f'"{c}"' for c in columns)
    if without_rowid:
        select, into = quoted, quoted
        order = ", ".join(f'"{c}"' for c in pk)
    else:
        # rowid first: a table without an INTEGER PRIMARY KEY keeps its row ids too, so the
        # backwards pass below cannot copy a row twice.
        rest = [c for c in columns if c != ipk]
        select = ", ".join(["rowid", *(f'"{c}"' for c in rest)])
        into = ", ".join(["rowid", *(f'"{c}"' for c in rest)])
        order = "rowid"
    marks = ", ".join("?" * len(select.split(", ")))
    insert = f'INSERT OR IGNORE INTO "{table}" ({into}) VALUES ({marks})'
    for direction in ("ASC", "DESC"):
        ordering = order.replace(",", f" {direction},") + f" {direction}"
        query = f'SELECT {select} FROM "{table}" ORDER BY {ordering}'
        try:
            for row in _rows(src, query):
                rescue.kept += dst.execute(insert, row).rowcount
        except (sqlite3.DatabaseError, UnicodeDecodeError) as exc:
            rescue.unreadable = rescue.unreadable or str(exc)
            continue
        break  # read to the end in one direction: nothing was skipped
    if not rescue.unreadable:
        rescue.unreadable = _shortfall(src, table, rescue.kept)
    return rescue


def _shortfall(src: sqlite3.Connection, table: str, kept: int) -> str:
    """Why fewer rows were read than the file says the table holds ("" when not). A damaged
    interior page can make SQLite skip a whole leaf without an error; the table's own count
    (often answered from an intact index) then says more, or failing that the row count
    ANALYZE recorded in sqlite_stat1, which may be older than later deletions."""
    counted = _first_number(src, f'SELECT count(*) FROM "{table}"', ())
    if counted > kept:
        return f"{counted - kept:,} of {counted:,} rows were skipped by a damaged page"
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


def _keep_sequences(src: sqlite3.Connection, dst: sqlite3.Connection) -> None:
    """AUTOINCREMENT counters at least as high as before: an id is never given again, even
    to a row that replaces one lost on a damaged page."""
    try:
        rows = src.execute("SELECT name, seq FROM sqlite_sequence").fetchall()
    except (sqlite3.DatabaseError, UnicodeDecodeError):
        return
    for name, seq in rows:
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
            info = {r[1]: r[3] for r in dst.execute(f'PRAGMA table_info("{rescue.name}")')}
            for fk in dst.execute(f'PRAGMA foreign_key_list("{rescue.name}")').fetchall():
                parent, column, parent_column = fk[2], fk[3], fk[4]
                if parent_column is None:
                    parent_column = "rowid"
                bad = (
                    f'"{column}" IS NOT NULL AND "{column}" NOT IN '
                    f'(SELECT "{parent_column}" FROM "{parent}")'
                )
                if info.get(column):  # NOT NULL: the row means nothing without it
                    n = dst.execute(f'DELETE FROM "{rescue.name}" WHERE {bad}').rowcount
                    rescue.dropped += n
                    rescue.kept -= n
                else:
                    sql = f'UPDATE "{rescue.name}" SET "{column}" = NULL WHERE {bad}'
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


def _fill_virtual(dst: sqlite3.Connection, name: str, sql: str) -> None:
    """Search indexes are rebuilt from the rescued rows, never copied from damaged pages."""
    if "content=" in sql.replace(" ", "").lower():  # an index over a table of the bank
        dst.execute(f'INSERT INTO "{name}" ("{name}") VALUES (\'rebuild\')')
    elif name == "items_fts":  # the items' own index: stem, key and option texts
        from quizsmith.bank.search import reindex_items

        reindex_items(dst, [r[0] for r in dst.execute("SELECT id FROM items")])


def _finish(report: Recovery) -> None:
    """Open the rescued file as a bank (pending migrations run) and list what its checks
    still find."""
    from quizsmith.bank.store import ItemBank

    with ItemBank(report.target, create=False) as bank:
        report.problems = bank.integrity_problems()
