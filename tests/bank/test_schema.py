"""Schema creation and upgrades by migrations, and the connection settings the bank relies on."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from sqlite_utils import Database

from quizsmith.bank import ItemBank, schema

from .helpers import fake_embed


def test_a_new_bank_has_every_migration_and_its_marks(bank: ItemBank, bank_path: Path) -> None:
    assert bank.schema_version == schema.known_names()
    raw = sqlite3.connect(bank_path)
    try:
        assert raw.execute("PRAGMA application_id").fetchone()[0] == schema.APPLICATION_ID
        assert raw.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        marker = dict(raw.execute(f"SELECT key, value FROM {schema.MARKER_TABLE}"))
        assert marker["format"] == schema.FORMAT_NAME
        tables = {r[0] for r in raw.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    finally:
        raw.close()
    for table in (
        "passages",
        "items",
        "options",
        "scores",
        "reviews",
        "quizzes",
        "quiz_items",
        "tags",
        "item_tags",
        "subjects",
        "flags",
        "items_fts",
        "passages_fts",
        "latest_scores",
        "item_embeddings",
    ):
        assert table in tables


def test_bank_connections_enforce_foreign_keys(bank: ItemBank) -> None:
    with bank.transaction() as conn:
        assert conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
        assert conn.execute("PRAGMA busy_timeout").fetchone()[0] >= 5000
    with bank.reading() as conn:
        assert conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1


def test_reopening_applies_nothing_twice(bank_path: Path) -> None:
    ItemBank(bank_path).close()
    with ItemBank(bank_path) as again:
        assert again.schema_version == schema.known_names()


def test_upgrade_of_a_bank_made_by_the_first_migration(bank_path: Path) -> None:
    """A file as the first release wrote it (only 0001_core, with data in it) opens, is
    upgraded in place, and its old items become searchable and sortable by score."""
    conn = sqlite3.connect(bank_path, isolation_level=None)
    db = Database(conn)
    schema.migrate(db, stop_before=schema.known_names()[1])
    assert schema.applied_names(db) == ["0001_core"]
    now = "2023-05-01T10:00:00.000000+00:00"
    conn.execute("INSERT INTO subjects (name) VALUES ('Biology')")
    conn.execute(
        "INSERT INTO passages (title, subject_id, text, hash, created) "
        "VALUES ('Leaves', 1, 'Plants make their food in green leaves.', 'h', ?)",
        (now,),
    )
    for n, (stem, key) in enumerate(
        [("Which pigment absorbs light?", "Chlorophyll"), ("What do roots absorb?", "Water")],
        start=1,
    ):
        conn.execute(
            "INSERT INTO items (type, stem, key, passage_id, subject_id, status, provenance, "
            "created, updated) VALUES ('mcq', ?, ?, 1, 1, 'accepted', '{}', ?, ?)",
            (stem, key, now, now),
        )
        conn.executemany(
            "INSERT INTO options (item_id, position, text, is_key) VALUES (?, ?, ?, ?)",
            [(n, 0, key, 1), (n, 1, "Xylem", 0)],
        )
        conn.execute(
            "INSERT INTO scores (item_id, metric, value, created) VALUES (?, 'naco', ?, ?)",
            (n, 0.1 * n, now),
        )
        conn.execute(
            "INSERT INTO scores (item_id, metric, value, created) VALUES (?, 'naco', ?, ?)",
            (n, 0.5 * n, now),
        )
    conn.close()

    with ItemBank(bank_path, embed=fake_embed) as bank:
        assert bank.schema_version == schema.known_names()
        assert [i.key for i in bank.search("chlorophyll")] == ["Chlorophyll"]
        assert [i.key for i in bank.search("xylem")] == ["Water", "Chlorophyll"]
        # passage text indexed by the upgrade: both items share the passage
        assert len(bank.search("green leaves")) == 2
        ranked = bank.search(sort_by="naco")
        assert [i.scores["naco"].value for i in ranked] == [1.0, 0.5]
        assert bank.integrity_problems() == []


def test_upgrade_to_the_same_item_index_finds_old_items_by_index(bank_path: Path) -> None:
    """0007 adds the index import's duplicate check uses; a bank made before it upgrades,
    its items are found as "already in the bank", and the lookup is an index search."""
    from quizsmith.bank import records
    from quizsmith.domain import Item

    conn = sqlite3.connect(bank_path, isolation_level=None)
    db = Database(conn)
    schema.migrate(db, stop_before="0007_same_item_index")
    now = "2024-05-01T10:00:00.000000+00:00"
    conn.execute(
        "INSERT INTO items (type, stem, key, provenance, created, updated) "
        "VALUES ('short', 'What do roots absorb?', 'Water', '{}', ?, ?)",
        (now, now),
    )
    conn.close()
    with ItemBank(bank_path) as bank:
        assert bank.schema_version == schema.known_names()
        same = Item(type="short", stem="What do roots absorb?", key="Water")
        other = Item(type="short", stem="What do roots absorb?", key="Minerals")
        assert bank.same_items([same, other]) == [1, None]
        with bank.reading() as read:
            plan = read.execute(
                "EXPLAIN QUERY PLAN SELECT id FROM items WHERE substr(stem, 1, 64) = ? "
                "AND type = ? AND substr(key, 1, 32) = ? AND +stem = ? AND +key = ?",
                ("a", "short", "b", "a", "b"),
            ).fetchall()
        assert "USING INDEX items_same_text" in str(plan)
        assert records.same_item_ids(read, [same]) == [1]


def test_a_failing_migration_leaves_the_file_as_it_was(
    bank_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    conn = sqlite3.connect(bank_path, isolation_level=None)
    schema.migrate(Database(conn), stop_before=schema.known_names()[1])
    conn.close()
    before = set(_tables(bank_path))

    def broken(db: Database) -> None:
        db.execute("CREATE TABLE half_done (x)")
        raise RuntimeError("migration bug")

    monkeypatch.setattr(schema.migrations._migrations[1], "fn", broken)
    with pytest.raises(RuntimeError, match="migration bug"):
        ItemBank(bank_path)
    assert set(_tables(bank_path)) == before


def _tables(path: Path) -> list[str]:
    conn = sqlite3.connect(path)
    try:
        return [r[0] for r in conn.execute("SELECT name FROM sqlite_master")]
    finally:
        conn.close()
