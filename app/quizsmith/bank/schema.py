"""The bank's schema, built by named migrations (sqlite-utils `Migrations`).

Rules: a migration is only ever added, never edited or reordered, because banks made by
earlier versions have recorded its name in `_sqlite_migrations` and will not run it again.
A bank whose table lists a name this code does not know was made by a newer Quizsmith.

A migration is literal SQL: it never reads a constant that lives on (the domain lists in
`quizsmith.domain`, the module constants below), or growing `ITEM_TYPES` would give new banks a
CHECK that old banks lack. A new item type, status, difficulty or severity needs a new
migration that rebuilds the table. `tests/bank/test_frozen_migrations.py` compares each
migration's SQL with its golden copy and each domain list with the latest schema's CHECK.

The schema is written as SQL rather than through sqlite-utils' `create()` because it needs
CHECK constraints, AUTOINCREMENT, WITHOUT ROWID tables, FTS5 and triggers, which read more
clearly as the DDL they are.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from sqlite_utils import Database
from sqlite_utils.migrations import Migrations

from quizsmith.domain import utc_now

_Fn = Callable[[Database], None]

MIGRATION_SET = "quizsmith"
MIGRATIONS_TABLE = Migrations.migrations_table
#: Written into the SQLite header (PRAGMA application_id) so that `file` and other tools can
#: tell a bank from other SQLite files: the ASCII bytes "QSMB".
APPLICATION_ID = 0x51534D42
#: The marker table: a file without it is not a Quizsmith bank, whatever else it holds.
MARKER_TABLE = "quizsmith_bank"
FORMAT_NAME = "quizsmith-item-bank"

migrations = Migrations(MIGRATION_SET)
_names: list[str] = []


def _migration(name: str) -> Callable[[_Fn], _Fn]:
    """Register a migration under a fixed name (the function name may be refactored)."""

    def register(fn: _Fn) -> _Fn:
        _names.append(name)
        return migrations(name=name)(fn)

    return register


def _run(db: Database, statements: Iterable[str]) -> None:
    # One statement at a time: sqlite3's executescript() would COMMIT the open transaction
    # first, breaking the all-or-nothing promise of a migration.
    for sql in statements:
        db.execute(sql)


@_migration("0001_core")
def _core(db: Database) -> None:
    _run(
        db,
        [
            "CREATE TABLE quizsmith_bank (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
            "PRAGMA application_id = 1364413762",  # APPLICATION_ID
            # NOCASE: "biology" and "Biology" are one subject; the first spelling is kept.
            "CREATE TABLE subjects (id INTEGER PRIMARY KEY, "
            "name TEXT NOT NULL UNIQUE COLLATE NOCASE)",
            "CREATE TABLE tags (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE COLLATE NOCASE)",
            """CREATE TABLE passages (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                title TEXT NOT NULL DEFAULT '',
                subject_id INTEGER REFERENCES subjects(id),
                text TEXT NOT NULL,
                hash TEXT NOT NULL,
                source_file TEXT,
                created TEXT NOT NULL
            )""",
            "CREATE INDEX passages_hash ON passages(hash)",
            # AUTOINCREMENT: an id is never reused, so a stale reference (an open editor, an
            # exported report) can never silently point at a different item.
            """CREATE TABLE items (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                type TEXT NOT NULL CHECK (type IN ('mcq', 'tf', 'short', 'cloze')),
                stem TEXT NOT NULL,
                key TEXT NOT NULL,
                target_fact TEXT NOT NULL DEFAULT '',
                passage_id INTEGER REFERENCES passages(id),
                subject_id INTEGER REFERENCES subjects(id),
                status TEXT NOT NULL DEFAULT 'draft' CHECK (status IN ('draft', 'accepted', 'rejected', 'needs-review')),
                difficulty TEXT CHECK (difficulty IS NULL OR difficulty IN ('recall', 'understanding', 'application')),
                reference TEXT,
                provenance TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(provenance)),
                created TEXT NOT NULL,
                updated TEXT NOT NULL
            )""",  # noqa: E501
            "CREATE INDEX items_status_subject ON items(status, subject_id)",
            "CREATE INDEX items_subject_status ON items(subject_id, status)",
            "CREATE INDEX items_created ON items(created)",
            "CREATE INDEX items_passage ON items(passage_id)",
            """CREATE TABLE options (
                item_id INTEGER NOT NULL REFERENCES items(id) ON DELETE CASCADE,
                position INTEGER NOT NULL,
                text TEXT NOT NULL,
                is_key INTEGER NOT NULL CHECK (is_key IN (0, 1)),
                PRIMARY KEY (item_id, position)
            ) WITHOUT ROWID""",
            """CREATE TABLE item_tags (
                item_id INTEGER NOT NULL REFERENCES items(id) ON DELETE CASCADE,
                tag_id INTEGER NOT NULL REFERENCES tags(id) ON DELETE CASCADE,
                PRIMARY KEY (item_id, tag_id)
            ) WITHOUT ROWID""",
            "CREATE INDEX item_tags_tag ON item_tags(tag_id, item_id)",
            # Every score ever computed is kept (history); the latest per metric is shown.
            """CREATE TABLE scores (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                item_id INTEGER NOT NULL REFERENCES items(id) ON DELETE CASCADE,
                metric TEXT NOT NULL,
                value REAL,
                values_json TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(values_json)),
                evidence TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(evidence)),
                model_config TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(model_config)),
                seconds REAL NOT NULL DEFAULT 0,
                not_scored_reason TEXT,
                created TEXT NOT NULL,
                CHECK (not_scored_reason IS NULL OR value IS NULL)
            )""",
            "CREATE INDEX scores_item_metric ON scores(item_id, metric, id)",
            """CREATE TABLE flags (
                id INTEGER PRIMARY KEY,
                item_id INTEGER NOT NULL REFERENCES items(id) ON DELETE CASCADE,
                code TEXT NOT NULL,
                message TEXT NOT NULL DEFAULT '',
                metric TEXT NOT NULL DEFAULT '',
                severity TEXT NOT NULL CHECK (severity IN ('info', 'warning', 'error'))
            )""",
            "CREATE INDEX flags_item ON flags(item_id, metric)",
            """CREATE TABLE reviews (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                item_id INTEGER NOT NULL REFERENCES items(id) ON DELETE CASCADE,
                decision TEXT NOT NULL CHECK (decision IN ('accept', 'reject', 'needs-review')),
                reason TEXT NOT NULL DEFAULT '',
                note TEXT NOT NULL DEFAULT '',
                created TEXT NOT NULL
            )""",
            "CREATE INDEX reviews_item ON reviews(item_id, id)",
            """CREATE TABLE quizzes (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                name TEXT NOT NULL UNIQUE COLLATE NOCASE,
                created TEXT NOT NULL
            )""",
            """CREATE TABLE quiz_items (
                quiz_id INTEGER NOT NULL REFERENCES quizzes(id) ON DELETE CASCADE,
                item_id INTEGER NOT NULL REFERENCES items(id) ON DELETE CASCADE,
                position INTEGER NOT NULL,
                PRIMARY KEY (quiz_id, item_id)
            ) WITHOUT ROWID""",
            "CREATE INDEX quiz_items_item ON quiz_items(item_id)",
        ],
    )
    db.execute(
        "INSERT INTO quizsmith_bank (key, value) VALUES ('format', ?), ('created', ?)",
        ["quizsmith-item-bank", utc_now()],
    )


@_migration("0002_search")
def _search(db: Database) -> None:
    _run(
        db,
        [
            # The tokenizer is Unicode-aware and ignores accents, so "resume" finds "résumé".
            # Items' own text. The options column is the option texts joined; it is rebuilt
            # by `search.reindex_items` in the same transaction as every item write (one
            # FTS write per item instead of one per option row, which a trigger would cost).
            """CREATE VIRTUAL TABLE items_fts USING fts5(
                stem, key, options, tokenize = 'unicode61 remove_diacritics 2', prefix = '2 3'
            )""",
            """CREATE TRIGGER items_fts_delete AFTER DELETE ON items BEGIN
                DELETE FROM items_fts WHERE rowid = OLD.id;
            END""",
            """INSERT INTO items_fts (rowid, stem, key, options)
                SELECT i.id, i.stem, i.key, coalesce((
                    SELECT group_concat(text, ' ') FROM (
                        SELECT text FROM options o WHERE o.item_id = i.id ORDER BY position
                    )), '')
                FROM items i""",
            # Passages are long and shared by many items, so they are indexed once, as an
            # external-content table over `passages` kept in sync by the standard triggers.
            """CREATE VIRTUAL TABLE passages_fts USING fts5(
                title, text, content = 'passages', content_rowid = 'id',
                tokenize = 'unicode61 remove_diacritics 2', prefix = '2 3'
            )""",
            """CREATE TRIGGER passages_fts_insert AFTER INSERT ON passages BEGIN
                INSERT INTO passages_fts (rowid, title, text) VALUES (NEW.id, NEW.title, NEW.text);
            END""",
            """CREATE TRIGGER passages_fts_delete AFTER DELETE ON passages BEGIN
                INSERT INTO passages_fts (passages_fts, rowid, title, text)
                VALUES ('delete', OLD.id, OLD.title, OLD.text);
            END""",
            """CREATE TRIGGER passages_fts_update AFTER UPDATE OF title, text ON passages BEGIN
                INSERT INTO passages_fts (passages_fts, rowid, title, text)
                VALUES ('delete', OLD.id, OLD.title, OLD.text);
                INSERT INTO passages_fts (rowid, title, text) VALUES (NEW.id, NEW.title, NEW.text);
            END""",
            "INSERT INTO passages_fts (passages_fts) VALUES ('rebuild')",
            # The latest score per (item, metric), kept by a trigger, so that filtering and
            # sorting 100k items by a score is an index walk instead of a window over history.
            """CREATE TABLE latest_scores (
                item_id INTEGER NOT NULL REFERENCES items(id) ON DELETE CASCADE,
                metric TEXT NOT NULL,
                score_id INTEGER NOT NULL REFERENCES scores(id) ON DELETE CASCADE,
                value REAL,
                PRIMARY KEY (item_id, metric)
            ) WITHOUT ROWID""",
            "CREATE INDEX latest_scores_metric_value ON latest_scores(metric, value)",
            "CREATE INDEX latest_scores_score ON latest_scores(score_id)",
            """CREATE TRIGGER scores_latest AFTER INSERT ON scores BEGIN
                INSERT OR REPLACE INTO latest_scores (item_id, metric, score_id, value)
                VALUES (NEW.item_id, NEW.metric, NEW.id, NEW.value);
            END""",
            # SQLite takes the other columns from the row holding max(id).
            """INSERT INTO latest_scores (item_id, metric, score_id, value)
                SELECT item_id, metric, max(id), value FROM scores GROUP BY item_id, metric""",
        ],
    )


@_migration("0003_embeddings")
def _embeddings(db: Database) -> None:
    _run(
        db,
        [
            # One vector per item (float32, L2-normalised) for near-duplicate detection; the
            # model column tells vectors from different embedding models apart.
            """CREATE TABLE item_embeddings (
                item_id INTEGER PRIMARY KEY REFERENCES items(id) ON DELETE CASCADE,
                model TEXT NOT NULL,
                dim INTEGER NOT NULL,
                vector BLOB NOT NULL CHECK (length(vector) = 4 * dim)
            )""",
            "CREATE INDEX item_embeddings_model ON item_embeddings(model)",
            # An edited question is a different text: its vector must be computed again.
            """CREATE TRIGGER items_embedding_stale AFTER UPDATE OF stem, key ON items
                WHEN OLD.stem IS NOT NEW.stem OR OLD.key IS NOT NEW.key BEGIN
                DELETE FROM item_embeddings WHERE item_id = NEW.id;
            END""",
        ],
    )


@_migration("0004_alternatives")
def _alternatives(db: Database) -> None:
    _run(
        db,
        [
            # The other generated candidates for an item's target, in interchange form, so
            # the teacher can swap one in later. JSON, not rows: they are never queried.
            "ALTER TABLE items ADD COLUMN alternatives TEXT NOT NULL DEFAULT '[]' "
            "CHECK (json_valid(alternatives))",
        ],
    )


@_migration("0005_drafts")
def _drafts(db: Database) -> None:
    _run(
        db,
        [
            # An editor's unsaved edits of an item, autosaved so that closing the app (or a
            # crash) does not lose them. Kept apart from the item: the stored item, its scores
            # and exports stay what the teacher last saved, and a half-typed edit need not be
            # a valid item. JSON, not columns: only the editor reads it back.
            """CREATE TABLE item_drafts (
                item_id INTEGER PRIMARY KEY REFERENCES items(id) ON DELETE CASCADE,
                fields TEXT NOT NULL CHECK (json_valid(fields)),
                saved TEXT NOT NULL
            )""",
        ],
    )


@_migration("0006_answer_rules")
def _answer_rules(db: Database) -> None:
    _run(
        db,
        [
            # Partial credit of a non-key option (percent; Moodle's %50%).
            "ALTER TABLE options ADD COLUMN credit REAL NOT NULL DEFAULT 0",
            # Other accepted answers with their credit, and a numerical key's value and
            # tolerance: {"accepted": [{"text", "credit"}], "numeric": {"value", "tolerance",
            # "unit"}}. JSON: read with the item, never queried on their own.
            "ALTER TABLE items ADD COLUMN answer_rules TEXT NOT NULL DEFAULT '{}' "
            "CHECK (json_valid(answer_rules))",
            # Imports before this migration kept full-credit alternatives in provenance.
            """UPDATE items SET
                answer_rules = json_object('accepted', (
                    SELECT json_group_array(json_object('text', value, 'credit', 100.0))
                    FROM json_each(items.provenance, '$.alternative_answers'))),
                provenance = json_remove(provenance, '$.alternative_answers')
            WHERE json_type(provenance, '$.alternative_answers') = 'array'""",
            # Images and sounds shown with a question; small, so kept in the bank file.
            """CREATE TABLE item_media (
                item_id INTEGER NOT NULL REFERENCES items(id) ON DELETE CASCADE,
                position INTEGER NOT NULL,
                name TEXT NOT NULL,
                mime TEXT NOT NULL,
                data BLOB NOT NULL,
                PRIMARY KEY (item_id, position)
            ) WITHOUT ROWID""",
        ],
    )


@_migration("0007_same_item_index")
def _same_item_index(db: Database) -> None:
    _run(
        db,
        [
            # Import's "already in the bank" check looks each question up by its text, type
            # and answer; without an index it read the whole items table per question (2,000
            # questions into a 100,000-item bank: 13 s; re-importing 100,000: past 900 s).
            # The leading characters only, so the index stays small beside stems of up to
            # 2,000 characters; the query compares the whole text after the index lookup.
            "CREATE INDEX items_same_text ON items(substr(stem, 1, 64), type, substr(key, 1, 32))",
        ],
    )


def migration_functions() -> list[tuple[str, _Fn]]:
    """Every migration's name and function, in the order they run."""
    return [(m.name, m.fn) for m in migrations._migrations]


def known_names() -> list[str]:
    return list(_names)


def applied_names(db: Database) -> list[str]:
    return [m.name for m in migrations.applied(db)]


def pending_names(db: Database) -> list[str]:
    return [m.name for m in migrations.pending(db)]


def unknown_names(db: Database) -> list[str]:
    """Migrations recorded in the file that this code does not have: a newer Quizsmith's."""
    known = set(known_names())
    return [name for name in applied_names(db) if name not in known]


def migrate(db: Database, *, stop_before: str | None = None) -> list[str]:
    """Apply pending migrations, each in its own transaction; returns the names applied."""
    before = set(applied_names(db))
    migrations.apply(db, stop_before=stop_before)
    return [name for name in applied_names(db) if name not in before]
