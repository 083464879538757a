"""The whole bank as JSONL, and back.

Every line is one JSON object (UTF-8, no ASCII escaping). Item lines are exactly the item
interchange format of DESIGN.md (`Item.to_dict`), so any tool that reads items reads them,
plus two keys that only the bank needs: `reviews` (every decision, oldest first) and
`score_history` (every score except the latest per metric, which is in `scores`). After
the items, lines with a `record` key carry what is not part of any item:

    {"record": "passage", ...}   a passage no item uses
    {"record": "quiz", "name": ..., "items": [ids], "created": ...}
    {"record": "names", "subjects": [...], "tags": [...]}   every subject and tag

Item readers skip lines that have a `record` key. Export is deterministic (items by id,
fixed key order, no export timestamp), so export -> import into an empty bank -> export
gives a byte-identical file. Ids are kept on import when the bank has never used them (an
empty bank: always); otherwise items get new ids and quiz lines follow the renumbering.
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from quizsmith.bank import records, search, storable
from quizsmith.bank.errors import BankError
from quizsmith.domain import Item, Passage, Review, ScoreResult, utc_now
from quizsmith.jobs import CancelToken, Job, Progress
from quizsmith.paths_guard import PathError, regular_or_absent, remove_stale_temps, temp_sibling

CHUNK = 500
RECORD_KINDS = ("passage", "quiz", "names")


@dataclass
class ImportResult:
    items: int = 0
    passages: int = 0
    quizzes: int = 0
    #: Ids from the file that were taken in this bank, mapped to the ids the items got.
    renumbered: dict[int, int] = field(default_factory=dict)
    #: "item ID (line N): warning" for each imported item that is weak as it stands
    #: (`Item.warnings`); imported all the same.
    warnings: list[str] = field(default_factory=list)


# --- export -------------------------------------------------------------------------------


def _line(obj: dict[str, Any]) -> str:
    try:
        return json.dumps(obj, ensure_ascii=False, allow_nan=False) + "\n"
    except ValueError:
        # A bank filled before imports refused them may hold an infinite number (a score's
        # seconds): written as `Infinity` the line was no JSON, and the file failed to load.
        return json.dumps(storable.finite(obj), ensure_ascii=False, allow_nan=False) + "\n"


def export_job(
    conn: sqlite3.Connection, path: Path, status: str | None, cancel: CancelToken
) -> Job[int]:
    """Write the file through a temporary sibling and rename it into place, so a crash or a
    cancel never leaves a half-written export where the teacher expects a whole one."""
    where, params = ("WHERE status = ?", [status]) if status else ("", [])
    try:
        # Only a regular file is replaced: as root, `--out /dev/full` became a plain file.
        regular_or_absent(path, "The export file")
    except PathError as exc:
        raise BankError(exc.message, exc.fix) from None
    remove_stale_temps(path)
    total = conn.execute(f"SELECT count(*) FROM items {where}", params).fetchone()[0]
    tmp = temp_sibling(path)
    written = 0
    try:
        with tmp.open("w", encoding="utf-8", newline="\n") as out:
            for chunk in _item_chunks(conn, where, params):
                cancel.raise_if_cancelled()
                for line in _item_lines(conn, chunk):
                    out.write(line)
                written += len(chunk)
                yield Progress("Exporting items", written, total)
            if not status:
                for obj in _other_records(conn):
                    out.write(_line(obj))
        os.replace(tmp, path)
    except OSError as exc:
        raise BankError(
            f"Could not write {path.name} ({exc.strerror}).",
            "Check the folder exists, is writable and has free space.",
        ) from None
    finally:
        tmp.unlink(missing_ok=True)
    return written


def _item_chunks(conn: sqlite3.Connection, where: str, params: list[Any]) -> Iterator[list[int]]:
    last = 0
    joiner = "AND" if where else "WHERE"
    while True:
        ids = [
            r[0]
            for r in conn.execute(
                f"SELECT id FROM items {where} {joiner} id > ? ORDER BY id LIMIT ?",
                [*params, last, CHUNK],
            )
        ]
        if not ids:
            return
        yield ids
        last = ids[-1]


def _item_lines(conn: sqlite3.Connection, ids: list[int]) -> Iterator[str]:
    items = records.load_items(conn, ids)
    history = records.score_history(conn, ids, exclude_latest=True)
    reviews = records.load_reviews(conn, ids)
    for item in items:
        assert item.id is not None
        data = item.to_dict()
        data["reviews"] = [
            {"decision": r.decision, "reason": r.reason, "note": r.note, "created": r.created}
            for r in reviews.get(item.id, [])
        ]
        data["score_history"] = [s.to_dict() for s in history.get(item.id, [])]
        yield _line(data)


def _other_records(conn: sqlite3.Connection) -> Iterator[dict[str, Any]]:
    for r in conn.execute(
        f"{records.PASSAGE_SELECT} WHERE NOT EXISTS "
        "(SELECT 1 FROM items i WHERE i.passage_id = p.id) ORDER BY p.id"
    ):
        yield {
            "record": "passage",
            "title": r[1],
            "subject": r[2],
            "text": r[3],
            "source_file": r[4],
        }
    for quiz in records.load_quizzes(conn):
        yield {"record": "quiz", "name": quiz.name, "items": quiz.item_ids, "created": quiz.created}
    subjects = [r[0] for r in conn.execute("SELECT name FROM subjects ORDER BY name, id")]
    tags = [r[0] for r in conn.execute("SELECT name FROM tags ORDER BY name, id")]
    if subjects or tags:
        yield {"record": "names", "subjects": subjects, "tags": tags}


# --- import -------------------------------------------------------------------------------


@dataclass
class ParsedItem:
    line: int
    item: Item
    history: list[ScoreResult]
    reviews: list[Review]


@dataclass
class ParsedFile:
    name: str
    items: list[ParsedItem] = field(default_factory=list)
    others: list[tuple[int, dict[str, Any]]] = field(default_factory=list)


def _bad_line(name: str, line: int, why: str) -> BankError:
    return BankError(
        f"Line {line} of {name} is not a valid item: {why}",
        "Correct that line (nothing has been imported) and import the file again.",
    )


def read_file(path: Path) -> ParsedFile:
    """Parse and check every line before anything is written, so that a bad line is reported
    by number and the bank is left exactly as it was."""
    try:
        if not regular_or_absent(path, "The file to import", "Choose a JSONL file."):
            raise BankError(f"{path} does not exist.", "Check the file name.")
    except PathError as exc:
        raise BankError(exc.message, exc.fix) from None
    try:
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise BankError(f"{path} does not exist.", "Check the file name.") from None
    except UnicodeDecodeError:
        raise BankError(f"{path.name} is not UTF-8 text.", "Save it as UTF-8 JSONL.") from None
    except OSError as exc:
        raise BankError(f"{path.name} cannot be read ({exc.strerror}).", "") from None
    parsed = ParsedFile(path.name)
    for number, raw in enumerate(text.split("\n"), start=1):
        if not raw.strip():
            continue
        try:
            obj = json.loads(raw, parse_constant=storable.no_constant)
        except json.JSONDecodeError as exc:
            raise _bad_line(path.name, number, f"not JSON ({exc.msg}).") from None
        except (ValueError, RecursionError) as exc:
            # An integer of more than 4,300 digits; NaN or Infinity; nesting deeper than
            # Python's recursion limit.
            why = "nested too deeply" if isinstance(exc, RecursionError) else str(exc)
            raise _bad_line(path.name, number, f"not JSON Quizsmith can read ({why}).") from None
        if not isinstance(obj, dict):
            raise _bad_line(path.name, number, "not a JSON object.")
        unstorable = storable.unstorable(obj)
        if unstorable:
            raise _bad_line(path.name, number, unstorable)
        kind = obj.get("record", "item")
        if kind == "item":
            parsed.items.append(_parse_item(path.name, number, obj))
        elif kind in RECORD_KINDS:
            _check_record(path.name, number, kind, obj)
            parsed.others.append((number, obj))
        else:
            raise _bad_line(path.name, number, f"unknown record type {kind!r}.")
    return parsed


def _parse_item(name: str, number: int, obj: dict[str, Any]) -> ParsedItem:
    try:
        item = Item.from_dict(obj)
        history = [ScoreResult.from_dict(s) for s in obj.get("score_history") or []]
        reviews = [
            Review(
                item_id=0,
                decision=str(r.get("decision")),
                reason=str(r.get("reason") or ""),
                note=str(r.get("note") or ""),
                created=_review_created(r),
            )
            for r in obj.get("reviews") or []
        ]
    except (ValueError, TypeError, AttributeError) as exc:
        raise _bad_line(name, number, str(exc)) from None
    problems = item.problems()
    if problems:
        raise _bad_line(name, number, " ".join(problems))
    return ParsedItem(number, item, history, reviews)


def _review_created(review: dict[str, Any]) -> str | None:
    created = review.get("created")
    if created is not None and not isinstance(created, str):
        raise ValueError("a review's 'created' must be text.")
    return created


def _check_record(name: str, number: int, kind: str, obj: dict[str, Any]) -> None:
    def need(key: str, kind_of: type) -> None:
        if not isinstance(obj.get(key), kind_of):
            raise _bad_line(name, number, f"a {kind} record needs {key!r} ({kind_of.__name__}).")

    if kind == "passage":
        need("text", str)
    elif kind == "quiz":
        need("name", str)
        need("items", list)
        if not all(isinstance(i, int) for i in obj["items"]):
            raise _bad_line(name, number, "quiz 'items' must be item ids.")
    else:
        need("subjects", list)
        need("tags", list)


def import_job(
    conn: sqlite3.Connection, parsed: ParsedFile, cancel: CancelToken
) -> Job[ImportResult]:
    """Write a parsed file inside the caller's transaction (the caller rolls back on error)."""
    result = ImportResult()
    seq = conn.execute("SELECT seq FROM sqlite_sequence WHERE name = 'items'").fetchone()
    used_up_to = int(seq[0]) if seq else 0
    id_map: dict[int, int] = {}
    passages_before = conn.execute("SELECT count(*) FROM passages").fetchone()[0]
    total = len(parsed.items)
    new_ids: list[int] = []
    for n, entry in enumerate(parsed.items, start=1):
        item, wanted = entry.item, entry.item.id
        keep = (
            wanted is not None
            and wanted > used_up_to
            and conn.execute("SELECT 1 FROM items WHERE id = ?", (wanted,)).fetchone() is None
        )
        latest, item.scores = item.scores, {}
        # History first: the score inserted last for a metric becomes its latest.
        new_id = records.insert_item(conn, item, item_id=wanted if keep else None)
        for score in entry.history:
            records.insert_score(conn, new_id, score)
        for metric in sorted(latest):
            records.insert_score(conn, new_id, latest[metric])
        for review in entry.reviews:
            review.item_id = new_id
            records.insert_review(conn, review, set_status=False)
        if wanted is not None:
            id_map.setdefault(wanted, new_id)
            if new_id != wanted:
                result.renumbered[wanted] = new_id
        new_ids.append(new_id)
        result.warnings += [f"item {new_id} (line {entry.line}): {w}" for w in item.warnings()]
        if n % CHUNK == 0 or n == total:
            search.reindex_items(conn, new_ids)
            new_ids = []
            cancel.raise_if_cancelled()
            yield Progress("Importing items", n, total)
    result.items = total
    for number, obj in parsed.others:
        _import_record(conn, parsed.name, number, obj, id_map, result)
    result.passages = conn.execute("SELECT count(*) FROM passages").fetchone()[0] - passages_before
    return result


def _import_record(
    conn: sqlite3.Connection,
    name: str,
    number: int,
    obj: dict[str, Any],
    id_map: dict[int, int],
    result: ImportResult,
) -> None:
    kind = obj["record"]
    if kind == "passage":
        records.ensure_passage(
            conn,
            Passage(
                text=obj["text"],
                title=str(obj.get("title") or ""),
                subject=obj.get("subject"),
                source_file=obj.get("source_file"),
            ),
        )
    elif kind == "quiz":
        missing = [i for i in obj["items"] if i not in id_map]
        if missing:
            raise _bad_line(name, number, f"the quiz lists item(s) {missing} not in the file.")
        quiz_name = _free_quiz_name(conn, str(obj["name"]).strip() or "Imported quiz")
        quiz_id = conn.execute(
            "INSERT INTO quizzes (name, created) VALUES (?, ?)",
            (quiz_name, obj.get("created") or utc_now()),
        ).lastrowid
        conn.executemany(
            "INSERT OR IGNORE INTO quiz_items (quiz_id, item_id, position) VALUES (?, ?, ?)",
            [(quiz_id, id_map[i], pos) for pos, i in enumerate(obj["items"])],
        )
        result.quizzes += 1
    else:
        for subject in obj["subjects"]:
            records.name_id(conn, "subjects", str(subject), create=True)
        for tag in obj["tags"]:
            records.name_id(conn, "tags", str(tag), create=True)


def _free_quiz_name(conn: sqlite3.Connection, name: str) -> str:
    candidate, n = name, 1
    while conn.execute("SELECT 1 FROM quizzes WHERE name = ?", (candidate,)).fetchone():
        n += 1
        candidate = f"{name} (imported {n - 1})" if n > 2 else f"{name} (imported)"
    return candidate
