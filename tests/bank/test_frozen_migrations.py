"""Shipped migrations never change, and the domain lists never outgrow the schema.

A bank records the names of the migrations it has run and never runs them again, so editing
a shipped migration splits the world in two: banks made before the edit keep the old tables,
banks made after get the new ones (an item type accepted by one and refused by the other).
Each migration's SQL, as it runs, is compared with a golden copy in `golden_migrations/`.

A new migration needs its golden copy: run this file with `QUIZSMITH_WRITE_NEW_GOLDEN=1`
once; it writes the missing files only and never overwrites one.
"""

from __future__ import annotations

import os
import re
import sqlite3
from pathlib import Path

import pytest
from sqlite_utils import Database

from quizsmith import domain
from quizsmith.bank import ItemBank, schema

GOLDEN = Path(__file__).parent / "golden_migrations"
FROZEN_NOW = "2000-01-01T00:00:00.000000+00:00"

#: (table, column) -> the domain list its CHECK constraint must allow, exactly.
CHECKED_COLUMNS: dict[tuple[str, str], tuple[str, ...]] = {
    ("items", "type"): domain.ITEM_TYPES,
    ("items", "status"): domain.STATUSES,
    ("items", "difficulty"): domain.DIFFICULTIES,
    ("flags", "severity"): domain.SEVERITIES,
    ("reviews", "decision"): tuple(domain.DECISION_STATUS),
}


def migration_sql(monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """Every statement each migration executes, in order, with bound values written out."""
    monkeypatch.setattr(schema, "utc_now", lambda: FROZEN_NOW)
    conn = sqlite3.connect(":memory:", isolation_level=None)
    statements: list[str] = []
    conn.set_trace_callback(statements.append)
    db = Database(conn)
    found: dict[str, str] = {}
    try:
        for name, fn in schema.migration_functions():
            statements.clear()
            fn(db)
            found[name] = "".join(f"{sql.strip()};\n\n" for sql in statements)
    finally:
        conn.close()
    return found


def test_every_shipped_migration_is_unchanged(monkeypatch: pytest.MonkeyPatch) -> None:
    found = migration_sql(monkeypatch)
    assert list(found) == schema.known_names()
    missing = [name for name in found if not (GOLDEN / f"{name}.sql").exists()]
    if missing and os.environ.get("QUIZSMITH_WRITE_NEW_GOLDEN") == "1":
        for name in missing:
            (GOLDEN / f"{name}.sql").write_text(found[name], encoding="utf-8")
        missing = []
    assert not missing, (
        f"No golden copy for migration(s) {', '.join(missing)}: run this test once with "
        "QUIZSMITH_WRITE_NEW_GOLDEN=1 and commit the new file(s) with the migration."
    )
    for name, sql in found.items():
        golden = (GOLDEN / f"{name}.sql").read_text(encoding="utf-8")
        assert sql == golden, (
            f"Migration {name} has changed since it shipped (compare with "
            f"tests/bank/golden_migrations/{name}.sql). Banks that ran it will never run it "
            "again: restore it and add a new migration instead."
        )


def test_no_golden_copy_outlives_its_migration() -> None:
    """A golden file without its migration means a shipped migration was removed or renamed."""
    golden = sorted(p.stem for p in GOLDEN.glob("*.sql"))
    assert set(golden) <= set(schema.known_names()), (
        "A shipped migration was removed or renamed: restore it and add a new migration instead."
    )


def test_migrations_do_not_read_the_live_domain_lists(monkeypatch: pytest.MonkeyPatch) -> None:
    """Growing a domain list changes no shipped migration (it needs a new one)."""
    before = migration_sql(monkeypatch)
    for module in (domain, schema):
        for name in ("ITEM_TYPES", "STATUSES", "DIFFICULTIES", "SEVERITIES"):
            if hasattr(module, name):
                monkeypatch.setattr(module, name, (*getattr(domain, name), "new-value"))
    monkeypatch.setattr(domain, "DECISION_STATUS", {**domain.DECISION_STATUS, "new": "new"})
    assert migration_sql(monkeypatch) == before


def _allowed(create_sql: str, column: str) -> tuple[str, ...]:
    match = re.search(rf"\b{column} IN \(([^)]*)\)", create_sql)
    assert match, f"no CHECK ({column} IN (...)) in {create_sql}"
    return tuple(v.strip().strip("'") for v in match.group(1).split(","))


@pytest.mark.parametrize(("table", "column"), list(CHECKED_COLUMNS))
def test_domain_lists_match_what_the_latest_schema_allows(
    bank_path: Path, table: str, column: str
) -> None:
    """Adding a value to a domain list without a migration that widens the CHECK would make
    every bank refuse it: the schema after all migrations must allow exactly the list."""
    ItemBank(bank_path).close()
    conn = sqlite3.connect(bank_path)
    try:
        (create_sql,) = conn.execute(
            "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?", (table,)
        ).fetchone()
    finally:
        conn.close()
    expected = CHECKED_COLUMNS[(table, column)]
    assert sorted(_allowed(create_sql, column)) == sorted(expected), (
        f"{table}.{column} allows {_allowed(create_sql, column)} but the domain list is "
        f"{expected}: add a migration that rebuilds {table} with the new CHECK (and a test "
        "that an old bank upgrades and then accepts the new value)."
    )
