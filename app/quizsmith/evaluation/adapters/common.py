"""Helpers shared by the dataset adapters: reading files with errors that name the line,
guessing a file's format for the fix, and building items."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from quizsmith.domain import Item, Passage
from quizsmith.errors import QuizsmithError

#: Keys that identify each format's records (used to suggest the right --format).
SIGNATURES: dict[str, tuple[str, ...]] = {
    "qgeval": ("passage", "reference", "questions"),
    "naco-groups": ("contexts_w_ans", "refq"),
    "naco-squad": ("context", "refq", "annoq"),
    "quizdesign": ("group_id", "context", "questions"),
    "jsonl": ("question", "answer"),
}


def guess_format(obj: Any) -> str | None:
    if isinstance(obj, list) and obj:
        obj = obj[0]
    if not isinstance(obj, dict):
        return None
    for name, keys in SIGNATURES.items():
        if all(k in obj for k in keys):
            return name
    return None


def format_error(path: Path, where: str, problem: str, fmt: str, obj: Any = None) -> QuizsmithError:
    guessed = guess_format(obj) if obj is not None else None
    if guessed and guessed != fmt:
        fix = f"This looks like a {guessed} file: run again with --format {guessed}."
    else:
        fix = f"Fix or remove that entry, or check that the file really is in the {fmt} format."
    return QuizsmithError(f"{path.name}, {where}: {problem}", fix)


def read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise QuizsmithError(f"There is no file {path}.", "Check the dataset path.") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise QuizsmithError(f"Cannot read {path}: {exc}.", "Give a UTF-8 text file.") from None


def read_jsonl(path: Path, fmt: str) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, object) for each non-blank line; a line that is not a JSON object raises
    a QuizsmithError naming it (and the likely format when the whole file is one JSON
    document, as QGEval's is)."""
    text = read_text(path)
    lines = text.splitlines()
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            whole: Any = None
            if number == 1 and line.lstrip().startswith("["):
                try:
                    whole = json.loads(text)
                except json.JSONDecodeError:
                    whole = None
            raise format_error(
                path, f"line {number}", f"not valid JSON ({exc.msg}).", fmt, whole
            ) from None
        if not isinstance(obj, dict):
            raise format_error(path, f"line {number}", "expected a JSON object.", fmt, obj)
        yield number, obj


def need_str(obj: dict[str, Any], name: str, path: Path, where: str, fmt: str) -> str:
    value = obj.get(name)
    if not isinstance(value, str) or not value.strip():
        raise format_error(path, where, f"{name!r} is missing or not a text.", fmt, obj)
    return value


def short_item(passage: str, stem: str, key: str, reference: str | None, **prov: Any) -> Item:
    """A short-answer item (the datasets carry no distractors)."""
    return Item(
        type="short",
        stem=stem.strip(),
        key=key.strip(),
        passage=Passage(text=passage),
        reference=reference.strip() if reference and reference.strip() else None,
        provenance={k: v for k, v in prov.items() if v is not None},
    )


def same_text(a: str, b: str) -> bool:
    return " ".join(a.split()).casefold() == " ".join(b.split()).casefold()
