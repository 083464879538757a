"""Full-text search combined with filters, and keeping the item index in step with items.

What a teacher types is never passed to FTS5 as syntax: it is split into words (and
"quoted phrases"), each quoted, so `"`, `AND (`, `NEAR` or `col:` are searched as text and can
never raise a syntax error. Words are ANDed; the last one also matches as a prefix, so the
list narrows while the teacher is still typing. An item matches when its stem, key or options
contain all the words, or when its passage does.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from quizsmith.bank.errors import BankError
from quizsmith.bank.records import id_list
from quizsmith.domain import STATUSES

#: Sorts that are item columns; any other sort key is taken as a metric name.
COLUMN_SORTS = {"created": "i.created", "updated": "i.updated", "id": "i.id"}

_PHRASE_OR_WORD = re.compile(r'"([^"]*)"|([^\s"]+)')
_WORD = re.compile(r"\w+", re.UNICODE)


def fts_query(text: str) -> str | None:
    """An FTS5 MATCH expression for what a user typed, or None when there is nothing to find."""
    terms: list[str] = []
    for phrase, word in _PHRASE_OR_WORD.findall(text or ""):
        # Inside a phrase or a word, only letters and digits matter to the tokenizer;
        # keeping just those is what makes any input safe to quote.
        words = _WORD.findall(phrase if phrase else word)
        words = [w.replace("_", " ").strip() for w in words]
        words = [w for w in words if w]
        if words:
            terms.append('"' + " ".join(words) + '"')
    if not terms:
        return None
    if not text.rstrip().endswith('"'):
        terms[-1] += "*"
    return " ".join(terms)


@dataclass
class Filters:
    """Everything `ItemBank.search` can narrow by. Empty filters match every item."""

    query: str = ""
    status: str | Sequence[str] | None = None
    subject: str | None = None
    tag: str | None = None
    min_scores: Mapping[str, float] = field(default_factory=dict)
    max_scores: Mapping[str, float] = field(default_factory=dict)
    flagged: bool | None = None

    def statuses(self) -> list[str]:
        if self.status is None:
            return []
        wanted = [self.status] if isinstance(self.status, str) else list(self.status)
        unknown = [s for s in wanted if s not in STATUSES]
        if unknown:
            raise BankError(
                f"Unknown status {unknown[0]!r}.", f"Use one of: {', '.join(STATUSES)}."
            )
        return wanted


@dataclass
class _Sql:
    clauses: list[str] = field(default_factory=list)
    params: list[Any] = field(default_factory=list)
    #: The clauses (and their parameters) that an index on items can serve: status, subject.
    indexed: list[str] = field(default_factory=list)
    indexed_params: list[Any] = field(default_factory=list)

    @property
    def where(self) -> str:
        return f"WHERE {' AND '.join(self.clauses)} " if self.clauses else ""


#: Above this many full-text matches, walking the items in sort order and testing each for
#: membership finds the first page sooner than collecting and sorting every match (measured
#: on 100k items: a 3-letter prefix matching 70k items takes 2 ms instead of 40 ms, while a
#: word matching 50 items still takes well under 1 ms through the match list).
WALK_ABOVE = 4000


#: Below this many items left by the status/subject filters, a score sort reads those items
#: and sorts them rather than walking the score index (see `_by_metric`).
FEW_ITEMS = 20_000


def estimate_matches(conn: sqlite3.Connection, match: str, cap: int = WALK_ABOVE) -> int:
    """How many items match, counted only up to `cap` so that the estimate stays cheap."""
    n = conn.execute(
        "SELECT count(*) FROM (SELECT 1 FROM items_fts WHERE items_fts MATCH ? LIMIT ?)",
        (match, cap),
    ).fetchone()[0]
    if n < cap:
        n += conn.execute(
            "SELECT count(*) FROM (SELECT 1 FROM passages_fts JOIN items i "
            "ON i.passage_id = passages_fts.rowid WHERE passages_fts MATCH ? LIMIT ?)",
            (match, cap - n),
        ).fetchone()[0]
    return int(n)


def _where(f: Filters, *, walk: Callable[[str], bool] = lambda match: False) -> _Sql:
    """WHERE clauses and parameters. `walk(match)` says whether to keep SQLite from driving
    the query by the match lists (the unary + hides them from the planner), so that it walks
    the items in sort order instead; see WALK_ABOVE."""
    sql = _Sql()
    match = fts_query(f.query)
    if match is not None:
        plus = "+" if walk(match) else ""
        sql.clauses.append(
            f"({plus}i.id IN (SELECT rowid FROM items_fts WHERE items_fts MATCH ?) "
            f"OR {plus}i.passage_id IN (SELECT rowid FROM passages_fts WHERE passages_fts MATCH ?))"
        )
        sql.params += [match, match]
    statuses = f.statuses()
    if statuses:
        sql.indexed.append(f"i.status IN ({', '.join('?' * len(statuses))})")
        sql.indexed_params += statuses
    if f.subject is not None:
        sql.indexed.append("i.subject_id = (SELECT id FROM subjects WHERE name = ?)")
        sql.indexed_params.append(" ".join(f.subject.split()))
    sql.clauses += sql.indexed
    sql.params += sql.indexed_params
    if f.tag is not None:
        sql.clauses.append(
            "EXISTS (SELECT 1 FROM item_tags it JOIN tags t ON t.id = it.tag_id "
            "WHERE it.item_id = i.id AND t.name = ?)"
        )
        sql.params.append(" ".join(f.tag.split()))
    for op, bounds in ((">=", f.min_scores), ("<=", f.max_scores)):
        for metric, threshold in sorted(bounds.items()):
            # Not-scored rows have value NULL and so never pass a threshold.
            sql.clauses.append(
                "EXISTS (SELECT 1 FROM latest_scores l WHERE l.item_id = i.id "
                f"AND l.metric = ? AND l.value {op} ?)"
            )
            sql.params += [metric, float(threshold)]
    if f.flagged is not None:
        sql.clauses.append(
            # A hint (severity "info") is shown, but does not make an item "flagged": only
            # warnings and errors put it in the review queue (metrics/flag_policy.py).
            ("" if f.flagged else "NOT ")
            + "EXISTS (SELECT 1 FROM flags WHERE item_id = i.id AND severity != 'info')"
        )
    return sql


def search_ids(
    conn: sqlite3.Connection,
    f: Filters,
    *,
    sort_by: str = "created",
    descending: bool = True,
    limit: int | None = 200,
    offset: int = 0,
) -> list[int]:
    """Ids of the matching items in the requested order, one page of them."""
    offset = max(0, int(offset))
    sql = _where(f, walk=lambda match: estimate_matches(conn, match) >= WALK_ABOVE)
    direction = "DESC" if descending else "ASC"
    page = " LIMIT ? OFFSET ?" if limit is not None else ""
    paging = [int(limit), offset] if limit is not None else []
    if sort_by in COLUMN_SORTS:
        text = (
            f"SELECT i.id FROM items i {sql.where}"
            f"ORDER BY {COLUMN_SORTS[sort_by]} {direction}, i.id {direction}{page}"
        )
        return [r[0] for r in conn.execute(text, [*sql.params, *paging])]
    return _by_metric(conn, sql, sort_by, direction, limit, offset)


def _by_metric(
    conn: sqlite3.Connection,
    sql: _Sql,
    metric: str,
    direction: str,
    limit: int | None,
    offset: int,
) -> list[int]:
    """Scored items in value order, then the unscored ones (by id), in two queries: the
    first walks the (metric, value) index and stops after one page, where a single query
    with NULLS LAST would have to sort every item of the bank (60 ms for 100k). When a
    status or subject filter leaves few items, those are read through their index and
    sorted instead, which SQLite's planner does not see by itself (the review queue:
    15 ms instead of 70 ms)."""
    indexed = " AND ".join(sql.indexed)
    few = (
        bool(indexed)
        and conn.execute(
            f"SELECT count(*) FROM (SELECT 1 FROM items i WHERE {indexed} LIMIT ?)",
            [*sql.indexed_params, FEW_ITEMS],
        ).fetchone()[0]
        < FEW_ITEMS
    )
    # CROSS JOIN fixes the join order: items (through their index) first.
    tables = (
        "items i CROSS JOIN latest_scores sort ON sort.item_id = i.id"
        if few
        else "latest_scores sort JOIN items i ON i.id = sort.item_id"
    )
    scored_from = f"FROM {tables} WHERE sort.metric = ? AND sort.value IS NOT NULL " + "".join(
        f"AND {c} " for c in sql.clauses
    )
    scored_params = [metric, *sql.params]
    unscored = (
        "SELECT i.id FROM items i WHERE NOT EXISTS (SELECT 1 FROM latest_scores l "
        "WHERE l.item_id = i.id AND l.metric = ? AND l.value IS NOT NULL) "
        + "".join(f"AND {c} " for c in sql.clauses)
        + f"ORDER BY i.id {direction}"
    )
    order = f"ORDER BY sort.value {direction}, sort.item_id {direction}"
    if limit is None:
        ids = [
            r[0] for r in conn.execute(f"SELECT sort.item_id {scored_from}{order}", scored_params)
        ]
        ids += [r[0] for r in conn.execute(unscored, [metric, *sql.params])]
        return ids[offset:]
    ids = [
        r[0]
        for r in conn.execute(
            f"SELECT sort.item_id {scored_from}{order} LIMIT ? OFFSET ?",
            [*scored_params, int(limit), offset],
        )
    ]
    if len(ids) == limit:
        return ids
    if ids:
        skip = 0
    else:
        scored_total = conn.execute(f"SELECT count(*) {scored_from}", scored_params).fetchone()[0]
        skip = max(0, offset - int(scored_total))
    rest = conn.execute(
        f"{unscored} LIMIT ? OFFSET ?", [metric, *sql.params, int(limit) - len(ids), skip]
    )
    return ids + [r[0] for r in rest]


def count(conn: sqlite3.Connection, f: Filters) -> int:
    sql = _where(f)
    return int(conn.execute(f"SELECT count(*) FROM items i {sql.where}", sql.params).fetchone()[0])


def reindex_items(conn: sqlite3.Connection, item_ids: Iterable[int]) -> None:
    """Bring the full-text rows of these items in line with their stored text. Called in the
    same transaction as every write of an item or its options, so the index never lags."""
    ids = id_list(item_ids)
    conn.execute("DELETE FROM items_fts WHERE rowid IN (SELECT value FROM json_each(?))", (ids,))
    conn.execute(
        """INSERT INTO items_fts (rowid, stem, key, options)
        SELECT i.id, i.stem, i.key, coalesce((
            SELECT group_concat(text, ' ') FROM (
                SELECT text FROM options o WHERE o.item_id = i.id ORDER BY position
            )), '')
        FROM items i WHERE i.id IN (SELECT value FROM json_each(?))""",
        (ids,),
    )
