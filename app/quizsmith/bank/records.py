"""Rows <-> domain objects. Functions here take an open connection and never manage
transactions: the caller (`ItemBank`) decides what one user action is.

Why this module is long: it holds every row <-> object mapping of the bank (passages; items with
their options, media, flags and tags; scores; reviews; quizzes), so the SQL for each table sits
in one place; each function is short, and ItemBank composes them into transactions.
"""

from __future__ import annotations

import json
import sqlite3
from collections import defaultdict
from collections.abc import Iterable, Sequence
from typing import Any

from quizsmith.bank.errors import BankError
from quizsmith.domain import (
    DECISION_STATUS,
    Accepted,
    Flag,
    Item,
    Media,
    NumericKey,
    Option,
    Passage,
    Quiz,
    Review,
    ScoreResult,
    utc_now,
)


def dumps(value: Any, what: str) -> str:
    try:
        return json.dumps(value, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise BankError(
            f"The {what} cannot be stored: {exc}.",
            "Store only text, numbers, lists and objects (no NaN or infinity).",
        ) from None


def id_list(ids: Iterable[int]) -> str:
    """Ids as one JSON parameter for `IN (SELECT value FROM json_each(?))`, which has no
    limit on the number of ids, unlike one `?` per id."""
    return json.dumps([int(i) for i in ids])


def clean_name(name: str | None) -> str | None:
    if name is None:
        return None
    name = " ".join(name.split())
    return name or None


# --- subjects and tags ------------------------------------------------------------------


def name_id(conn: sqlite3.Connection, table: str, name: str | None, create: bool) -> int | None:
    name = clean_name(name)
    if name is None:
        return None
    row = conn.execute(f"SELECT id FROM {table} WHERE name = ?", (name,)).fetchone()
    if row is not None:
        return int(row[0])
    if not create:
        return None
    return int(conn.execute(f"INSERT INTO {table} (name) VALUES (?)", (name,)).lastrowid or 0)


def write_tags(conn: sqlite3.Connection, item_id: int, tags: Iterable[str]) -> None:
    conn.execute("DELETE FROM item_tags WHERE item_id = ?", (item_id,))
    tag_ids = {name_id(conn, "tags", t, create=True) for t in tags}
    conn.executemany(
        "INSERT INTO item_tags (item_id, tag_id) VALUES (?, ?)",
        [(item_id, t) for t in tag_ids if t is not None],
    )


# --- passages ---------------------------------------------------------------------------


def ensure_passage(conn: sqlite3.Connection, passage: Passage, created: str | None = None) -> int:
    """The id of the stored passage equal to this one, storing it first if there is none.

    Equal means same text (found by hash), title, subject and source file: items that share a
    passage, or the same textbook page imported twice, must not store and index the text
    twice, while two different documents that happen to share a text stay apart.
    """
    subject_id = name_id(conn, "subjects", passage.subject, create=True)
    title = passage.title or ""
    row = conn.execute(
        "SELECT id FROM passages WHERE hash = ? AND text = ? AND title = ? "
        "AND subject_id IS ? AND source_file IS ? ORDER BY id LIMIT 1",
        (passage.hash, passage.text, title, subject_id, passage.source_file),
    ).fetchone()
    if row is not None:
        return int(row[0])
    cur = conn.execute(
        "INSERT INTO passages (title, subject_id, text, hash, source_file, created) "
        "VALUES (?, ?, ?, ?, ?, ?)",
        (title, subject_id, passage.text, passage.hash, passage.source_file, created or utc_now()),
    )
    return int(cur.lastrowid or 0)


PASSAGE_SELECT = (
    "SELECT p.id, p.title, s.name, p.text, p.source_file FROM passages p "
    "LEFT JOIN subjects s ON s.id = p.subject_id"
)


def load_passages(conn: sqlite3.Connection, ids: Iterable[int]) -> dict[int, Passage]:
    rows = conn.execute(
        f"{PASSAGE_SELECT} WHERE p.id IN (SELECT value FROM json_each(?))", (id_list(ids),)
    )
    return {
        r[0]: Passage(id=r[0], title=r[1], subject=r[2], text=r[3], source_file=r[4]) for r in rows
    }


# --- items ------------------------------------------------------------------------------


def check_item(item: Item) -> None:
    problems = item.problems()
    if problems:
        raise BankError(
            f"The item cannot be saved: {' '.join(problems)}", "Correct the item and save again."
        )


def _item_values(conn: sqlite3.Connection, item: Item) -> tuple[Any, ...]:
    passage_id = item.passage_id
    if passage_id is None and item.passage is not None:
        passage_id = ensure_passage(conn, item.passage)
    return (
        item.type,
        item.stem,
        item.key,
        item.target_fact or "",
        passage_id,
        name_id(conn, "subjects", item.subject, create=True),
        item.status,
        item.difficulty,
        item.reference,
        dumps(item.provenance, "provenance"),
        dumps([alt.alternative_dict() for alt in item.alternatives], "alternatives"),
        dumps(answer_rules(item), "answer_rules"),
    )


def answer_rules(item: Item) -> dict[str, Any]:
    rules: dict[str, Any] = {}
    if item.accepted:
        rules["accepted"] = [a.to_dict() for a in item.accepted]
    if item.numeric is not None:
        rules["numeric"] = item.numeric.to_dict()
    return rules


def insert_item(conn: sqlite3.Connection, item: Item, *, item_id: int | None = None) -> int:
    """Store a new item with its options, tags, flags and scores; returns its id.

    `item_id` keeps a given id (JSONL import into a bank where it is free); otherwise SQLite
    assigns the next one. The caller must call `search.reindex_items` before committing.
    """
    check_item(item)
    now = utc_now()
    cur = conn.execute(
        "INSERT INTO items (id, type, stem, key, target_fact, passage_id, subject_id, status, "
        "difficulty, reference, provenance, alternatives, answer_rules, created, updated) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (item_id, *_item_values(conn, item), item.created or now, now),
    )
    new_id = int(cur.lastrowid or 0)
    write_options(conn, new_id, item.options)
    write_media(conn, new_id, item.media)
    write_tags(conn, new_id, item.tags)
    write_flags(conn, new_id, item.flags)
    for name in sorted(item.scores):
        insert_score(conn, new_id, item.scores[name])
    return new_id


def update_item(conn: sqlite3.Connection, item: Item) -> None:
    """Rewrite an item's content (not its scores, flags or reviews, which have their own
    history); the caller must reindex it before committing."""
    check_item(item)
    if item.id is None:
        raise BankError("The item has no id, so it is not in the bank yet.", "Add it instead.")
    cur = conn.execute(
        "UPDATE items SET type = ?, stem = ?, key = ?, target_fact = ?, passage_id = ?, "
        "subject_id = ?, status = ?, difficulty = ?, reference = ?, provenance = ?, "
        "alternatives = ?, answer_rules = ?, updated = ? "
        "WHERE id = ?",
        (*_item_values(conn, item), utc_now(), item.id),
    )
    if cur.rowcount == 0:
        raise missing_item(item.id)
    write_options(conn, item.id, item.options)
    write_media(conn, item.id, item.media)
    write_tags(conn, item.id, item.tags)


def same_item_ids(conn: sqlite3.Connection, items: Sequence[Item]) -> list[int | None]:
    """The id of an item with the same question, answer and type as each of `items`, or None.
    The substr() terms are those of the index `items_same_text` (migration 0007), compared with
    values cut in Python (code points, as SQLite's substr counts them), and the whole texts
    are compared with `+` (no index may serve them): with substr() on the right-hand side, a
    plain `stem = ?` or min(id), SQLite 3.40's planner walked the whole table instead."""
    found: list[int | None] = []
    for item in items:
        rows = conn.execute(
            "SELECT id FROM items WHERE substr(stem, 1, 64) = ? AND type = ? "
            "AND substr(key, 1, 32) = ? AND +stem = ? AND +key = ?",
            (item.stem[:64], item.type, item.key[:32], item.stem, item.key),
        ).fetchall()
        found.append(min(r[0] for r in rows) if rows else None)
    return found


def missing_item(item_id: int) -> BankError:
    return BankError(
        f"Item {item_id} is not in the bank (it may have been deleted).", "Refresh the list."
    )


def write_options(conn: sqlite3.Connection, item_id: int, options: Sequence[Option]) -> None:
    conn.execute("DELETE FROM options WHERE item_id = ?", (item_id,))
    # Positions are renumbered 0..n-1 in the given order, so gaps or duplicates in the
    # caller's positions can never break the (item_id, position) key.
    ordered = sorted(options, key=lambda o: o.position)
    conn.executemany(
        "INSERT INTO options (item_id, position, text, is_key, credit) VALUES (?, ?, ?, ?, ?)",
        [
            (item_id, i, o.text, int(o.is_key), 0.0 if o.is_key else o.credit)
            for i, o in enumerate(ordered)
        ],
    )


def write_media(conn: sqlite3.Connection, item_id: int, media: Sequence[Media]) -> None:
    conn.execute("DELETE FROM item_media WHERE item_id = ?", (item_id,))
    conn.executemany(
        "INSERT INTO item_media (item_id, position, name, mime, data) VALUES (?, ?, ?, ?, ?)",
        [(item_id, i, m.name, m.mime, m.data) for i, m in enumerate(media)],
    )


def write_flags(
    conn: sqlite3.Connection, item_id: int, flags: Sequence[Flag], metric: str | None = None
) -> None:
    if metric is None:
        conn.execute("DELETE FROM flags WHERE item_id = ?", (item_id,))
    else:
        conn.execute("DELETE FROM flags WHERE item_id = ? AND metric = ?", (item_id, metric))
    conn.executemany(
        "INSERT INTO flags (item_id, code, message, metric, severity) VALUES (?, ?, ?, ?, ?)",
        [
            (item_id, f.code, f.message, f.metric if metric is None else metric, f.severity)
            for f in flags
        ],
    )


ITEM_SELECT = (
    "SELECT i.id, i.type, i.stem, i.key, i.target_fact, i.passage_id, s.name, i.status, "
    "i.difficulty, i.reference, i.provenance, i.created, i.alternatives, i.answer_rules "
    "FROM items i "
    "LEFT JOIN subjects s ON s.id = i.subject_id"
)


def load_items(
    conn: sqlite3.Connection, ids: Sequence[int], *, with_passages: bool = True
) -> list[Item]:
    """Items in the order of `ids` (ids not in the bank are skipped), each complete with
    options, tags, flags and latest scores. Six queries whatever the number of ids."""
    if not ids:
        return []
    param = (id_list(ids),)
    in_ids = "IN (SELECT value FROM json_each(?))"
    items: dict[int, Item] = {}
    for r in conn.execute(f"{ITEM_SELECT} WHERE i.id {in_ids}", param):
        items[r[0]] = Item(
            id=r[0],
            type=r[1],
            stem=r[2],
            key=r[3],
            target_fact=r[4],
            passage_id=r[5],
            subject=r[6],
            status=r[7],
            difficulty=r[8],
            reference=r[9],
            provenance=json.loads(r[10]),
            created=r[11],
            alternatives=[Item.from_dict(alt) for alt in json.loads(r[12])],
        )
        rules = json.loads(r[13])
        items[r[0]].accepted = [Accepted.from_dict(a) for a in rules.get("accepted", [])]
        if rules.get("numeric") is not None:
            items[r[0]].numeric = NumericKey.from_dict(rules["numeric"])
    for item_id, position, text, is_key, credit in conn.execute(
        f"SELECT item_id, position, text, is_key, credit FROM options WHERE item_id {in_ids} "
        "ORDER BY item_id, position",
        param,
    ):
        items[item_id].options.append(Option(text, bool(is_key), position, credit))
    for item_id, name, mime, data in conn.execute(
        f"SELECT item_id, name, mime, data FROM item_media WHERE item_id {in_ids} "
        "ORDER BY item_id, position",
        param,
    ):
        items[item_id].media.append(Media(name, mime, bytes(data)))
    for item_id, name in conn.execute(
        f"SELECT it.item_id, t.name FROM item_tags it JOIN tags t ON t.id = it.tag_id "
        f"WHERE it.item_id {in_ids} ORDER BY it.item_id, t.name COLLATE NOCASE, t.name",
        param,
    ):
        items[item_id].tags.append(name)
    for item_id, code, message, metric, severity in conn.execute(
        f"SELECT item_id, code, message, metric, severity FROM flags WHERE item_id {in_ids} "
        "ORDER BY item_id, id",
        param,
    ):
        items[item_id].flags.append(Flag(code, message, metric, severity))
    for item_id, score in _scores(
        conn,
        f"SELECT {SCORE_COLUMNS} FROM latest_scores l JOIN scores s ON s.id = l.score_id "
        f"WHERE l.item_id {in_ids}",
        param,
    ):
        items[item_id].scores[score.metric] = score
    if with_passages:
        wanted = {i.passage_id for i in items.values() if i.passage_id is not None}
        passages = load_passages(conn, wanted)
        for item in items.values():
            if item.passage_id is not None:
                item.passage = passages.get(item.passage_id)
    return [items[i] for i in ids if i in items]


# --- scores -----------------------------------------------------------------------------

SCORE_COLUMNS = (
    "s.item_id, s.metric, s.value, s.values_json, s.evidence, s.model_config, s.seconds, "
    "s.not_scored_reason, s.created"
)


def _scores(
    conn: sqlite3.Connection, sql: str, params: Sequence[Any]
) -> Iterable[tuple[int, ScoreResult]]:
    for r in conn.execute(sql, params):
        yield (
            r[0],
            ScoreResult(
                metric=r[1],
                value=r[2],
                values=json.loads(r[3]),
                evidence=json.loads(r[4]),
                model_config=json.loads(r[5]),
                seconds=r[6],
                not_scored_reason=r[7],
                created=r[8],
            ),
        )


def insert_score(conn: sqlite3.Connection, item_id: int, score: ScoreResult) -> int:
    cur = conn.execute(
        "INSERT INTO scores (item_id, metric, value, values_json, evidence, model_config, "
        "seconds, not_scored_reason, created) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            item_id,
            score.metric,
            score.value,
            dumps(score.values, f"{score.metric} values"),
            dumps(score.evidence, f"{score.metric} evidence"),
            dumps(score.model_config, f"{score.metric} model configuration"),
            float(score.seconds),
            score.not_scored_reason,
            score.created or utc_now(),
        ),
    )
    return int(cur.lastrowid or 0)


def score_history(
    conn: sqlite3.Connection,
    item_ids: Sequence[int],
    metric: str | None = None,
    *,
    exclude_latest: bool = False,
) -> dict[int, list[ScoreResult]]:
    """Every score of the items, oldest first (the last per metric is the one shown);
    `exclude_latest` leaves out the shown ones (JSONL carries those under `scores`)."""
    sql = (
        f"SELECT {SCORE_COLUMNS} FROM scores s WHERE s.item_id IN (SELECT value FROM json_each(?))"
    )
    params: list[Any] = [id_list(item_ids)]
    if exclude_latest:
        sql += " AND NOT EXISTS (SELECT 1 FROM latest_scores l WHERE l.score_id = s.id)"
    if metric is not None:
        sql += " AND s.metric = ?"
        params.append(metric)
    out: dict[int, list[ScoreResult]] = defaultdict(list)
    for item_id, score in _scores(conn, sql + " ORDER BY s.item_id, s.id", params):
        out[item_id].append(score)
    return out


# --- reviews and quizzes ----------------------------------------------------------------


def insert_review(conn: sqlite3.Connection, review: Review, *, set_status: bool) -> Review:
    created = review.created or utc_now()
    conn.execute(
        "INSERT INTO reviews (item_id, decision, reason, note, created) VALUES (?, ?, ?, ?, ?)",
        (review.item_id, review.decision, review.reason, review.note, created),
    )
    if set_status:
        cur = conn.execute(
            "UPDATE items SET status = ?, updated = ? WHERE id = ?",
            (DECISION_STATUS[review.decision], created, review.item_id),
        )
        if cur.rowcount == 0:
            raise missing_item(review.item_id)
    return Review(
        item_id=review.item_id,
        decision=review.decision,
        reason=review.reason,
        note=review.note,
        created=created,
    )


def load_reviews(conn: sqlite3.Connection, item_ids: Sequence[int]) -> dict[int, list[Review]]:
    out: dict[int, list[Review]] = defaultdict(list)
    for item_id, decision, reason, note, created in conn.execute(
        "SELECT item_id, decision, reason, note, created FROM reviews "
        "WHERE item_id IN (SELECT value FROM json_each(?)) ORDER BY item_id, id",
        (id_list(item_ids),),
    ):
        out[item_id].append(
            Review(item_id=item_id, decision=decision, reason=reason, note=note, created=created)
        )
    return out


def load_quizzes(conn: sqlite3.Connection, quiz_id: int | None = None) -> list[Quiz]:
    where, params = ("WHERE id = ?", (quiz_id,)) if quiz_id is not None else ("", ())
    quizzes = {
        r[0]: Quiz(id=r[0], name=r[1], created=r[2])
        for r in conn.execute(f"SELECT id, name, created FROM quizzes {where} ORDER BY id", params)
    }
    for q_id, item_id in conn.execute(
        "SELECT quiz_id, item_id FROM quiz_items WHERE quiz_id IN (SELECT value FROM json_each(?)) "
        "ORDER BY quiz_id, position, item_id",
        (id_list(quizzes),),
    ):
        quizzes[q_id].item_ids.append(item_id)
    return list(quizzes.values())
