"""Aiken (https://docs.moodle.org/en/Aiken_format): export and import.

Aiken holds multiple-choice questions only: the question on one line, lettered options
`A. text` (or `A) text`), then `ANSWER: B`. True/false items go out as two-option questions
and come back as true/false when their options are exactly True and False. Short-answer and
cloze items are skipped with the reason, and so is an item with more than 26 options. Aiken
has no line breaks inside a question, so breaks in a stem or an option become spaces.
"""

from __future__ import annotations

import re
from pathlib import Path

from quizsmith.domain import TF_ANSWERS, Item, Option
from quizsmith.formats.base import (
    LETTERS,
    Exporter,
    ExportOptions,
    ExportResult,
    FormatError,
    Importer,
    ParsedFile,
    Skipped,
    read_text,
    shuffled_options,
    xml_safe,
)

_OPTION = re.compile(r"^([A-Z])[.)]\s+(.*)$")
_ANSWER = re.compile(r"^ANSWER\s*:\s*(\S*)\s*$")
_FIX = "Correct the question (see docs.moodle.org/en/Aiken_format) and import again."


def _one_line(text: str) -> str:
    return " ".join(xml_safe(text).split())


class AikenFormat(Exporter, Importer):
    name = "aiken"
    title = "Aiken"
    extension = ".txt"
    can_export = True
    can_import = True
    description = "Aiken text (multiple choice only)"

    def write(
        self, items: list[Item], path: Path, options: ExportOptions, result: ExportResult
    ) -> None:
        seed = int(result.seed or 0)
        blocks = []
        for item in items:
            if item.type not in ("mcq", "tf"):
                result.skipped.append(
                    Skipped(
                        f"Aiken holds multiple-choice questions only; this is a {item.type} item.",
                        item.id,
                        item.stem,
                    )
                )
                continue
            ordered = shuffled_options(item, seed)
            if len(ordered) > len(LETTERS):
                result.skipped.append(
                    Skipped(
                        f"Aiken letters stop at Z; this item has {len(ordered)} options.",
                        item.id,
                        item.stem,
                    )
                )
                continue
            lines = [_one_line(item.stem)]
            lines += [f"{LETTERS[i]}. {_one_line(o.text)}" for i, o in enumerate(ordered)]
            lines.append(f"ANSWER: {LETTERS[[o.is_key for o in ordered].index(True)]}")
            blocks.append("\n".join(lines) + "\n")
            result.count += 1
        path.write_text("\n".join(blocks), encoding="utf-8", newline="\n")

    def parse(self, path: Path) -> ParsedFile:
        parsed = ParsedFile()
        stem_lines: list[str] = []
        options: list[tuple[str, str]] = []
        start = 0
        lines = read_text(path).split("\n")
        for number, raw in enumerate(lines, 1):
            line = raw.strip()
            if not line:
                if options:
                    raise FormatError(
                        "The question has no ANSWER: line (a blank line comes first).",
                        _FIX,
                        file=path,
                        line=start,
                    )
                continue
            answer = _ANSWER.match(line)
            option = _OPTION.match(line) if stem_lines else None
            if answer:
                if not options:
                    raise FormatError(
                        "ANSWER: comes before any lettered option.", _FIX, file=path, line=number
                    )
                parsed.items.append(self._item(path, number, start, stem_lines, options, answer))
                stem_lines, options = [], []
            elif option:
                letter, text = option.groups()
                expected = LETTERS[len(options)] if len(options) < len(LETTERS) else "?"
                if letter != expected:
                    raise FormatError(
                        f"Option {letter} found where option {expected} was expected.",
                        _FIX,
                        file=path,
                        line=number,
                    )
                options.append((letter, text.strip()))
            elif options:
                raise FormatError(
                    f"Expected option {LETTERS[len(options)]} or ANSWER:, found {line[:40]!r}.",
                    _FIX,
                    file=path,
                    line=number,
                )
            else:
                if not stem_lines:
                    start = number
                stem_lines.append(line)
        if stem_lines:
            raise FormatError("The last question has no ANSWER: line.", _FIX, file=path, line=start)
        return parsed

    @staticmethod
    def _item(
        path: Path,
        number: int,
        start: int,
        stem_lines: list[str],
        options: list[tuple[str, str]],
        answer: re.Match[str],
    ) -> Item:
        letter = answer.group(1)
        letters = [o[0] for o in options]
        if letter not in letters:
            raise FormatError(
                f"ANSWER: {letter or '(nothing)'} is not one of the options {', '.join(letters)}.",
                _FIX,
                file=path,
                line=number,
            )
        key = options[letters.index(letter)][1]
        texts = [o[1] for o in options]
        item_type = "tf" if sorted(t.casefold() for t in texts) == ["false", "true"] else "mcq"
        if item_type == "tf":
            key = TF_ANSWERS[0] if key.casefold() == "true" else TF_ANSWERS[1]
            texts = [TF_ANSWERS[0] if t.casefold() == "true" else TF_ANSWERS[1] for t in texts]
        item = Item(
            type=item_type,
            stem=" ".join(stem_lines),
            key=key,
            options=[Option(t, i == letters.index(letter), i) for i, t in enumerate(texts)],
            provenance={"source_line": start},
        )
        problems = item.problems()
        if problems:
            raise FormatError(" ".join(problems), _FIX, file=path, line=start)
        return item
