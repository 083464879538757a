"""Aiken (https://docs.moodle.org/en/Aiken_format): export and import.

Aiken holds multiple-choice questions only: the question on one line, lettered options `A.
text` (or `A) text`, or `A)text` as Moodle also accepts), then `ANSWER: B`. A question that
breaks the format is skipped with its line and reason and the others are imported. True/false
items go out as two-option questions and come back as true/false when their options are exactly
True and False. Short-answer and cloze items are skipped with the reason, and so is an item
with more than 26 options. Aiken has no line breaks inside a question, so breaks in a stem or
an option become spaces.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
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
    xml_safe,
)
from quizsmith.formats.option_order import option_orders

# Moodle also accepts "A)Correct", with no space after the letter.
_OPTION = re.compile(r"^([A-Z])[.)]\s*(\S.*)$")
_ANSWER = re.compile(r"^ANSWER\s*:\s*(\S*)\s*$")
_FIX = "Correct the question (see docs.moodle.org/en/Aiken_format) and import again."


def _one_line(text: str) -> str:
    return " ".join(xml_safe(text).split())


#: What tells an Aiken file from other plain text (`AikenFormat.sniff`). Each reads within
#: one line, as the importer does: `^\s*ANSWER` went on over every following blank line
#: from each line start, so 80,000 blank lines took seconds per line (issue 48).
_AIKEN_ANSWER = re.compile(r"^[^\S\n]*ANSWER[^\S\n]*:[^\S\n]*[A-Z][^\S\n]*$", re.MULTILINE)
_AIKEN_OPTION = re.compile(r"^[A-Z][.)][^\S\n]*\S", re.MULTILINE)


class AikenFormat(Exporter, Importer):
    name = "aiken"
    title = "Aiken"
    extension = ".txt"
    order = 70
    suffixes = (".aiken",)

    @classmethod
    def sniff(cls, text: str) -> int:
        # An ANSWER: line is Aiken's own; lettered options without one are still Aiken (the
        # importer then says what is missing, with its line), but less surely than GIFT's
        # answer blocks (see GiftFormat.sniff).
        if _AIKEN_ANSWER.search(text):
            return 3
        return 1 if len(_AIKEN_OPTION.findall(text)) >= 2 else 0

    can_export = True
    can_import = True
    description = "Aiken text (multiple choice only)"

    def write(
        self, items: list[Item], path: Path, options: ExportOptions, result: ExportResult
    ) -> None:
        orders = option_orders(items, int(result.seed or 0))
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
            ordered = orders.of(item)
            if len(ordered) > len(LETTERS):
                result.skipped.append(
                    Skipped(
                        f"Aiken letters stop at Z; this item has {len(ordered)} options.",
                        item.id,
                        item.stem,
                    )
                )
                continue
            if any(o.credit for o in ordered if not o.is_key):
                result.simplified.append(
                    Skipped(
                        "partial credit of the other options left out: Aiken has one answer.",
                        item.id,
                        item.stem,
                    )
                )
            lines = [_one_line(item.stem)]
            lines += [f"{LETTERS[i]}. {_one_line(o.text)}" for i, o in enumerate(ordered)]
            lines.append(f"ANSWER: {LETTERS[[o.is_key for o in ordered].index(True)]}")
            blocks.append("\n".join(lines) + "\n")
            result.count += 1
        path.write_text("\n".join(blocks), encoding="utf-8", newline="\n")

    def parse(self, path: Path) -> ParsedFile:
        """Each question that breaks the format is skipped with its line and the reason, and
        reading goes on after its ANSWER: line (or the next blank line), as Moodle does."""
        parsed = ParsedFile()
        state = _Question()
        lines = read_text(path).split("\n")
        for number, raw in enumerate(lines, 1):
            line = raw.strip()
            if state.broken:
                if not line or _ANSWER.match(line):
                    state = _Question()
                continue
            try:
                if self._line(line, number, state, parsed):
                    state = _Question()
            except _BrokenError as broken:
                parsed.skipped.append(
                    Skipped(
                        f"question at line {state.start or number} (line {number}): {broken}",
                        stem=" ".join(state.stem_lines)[:60],
                    )
                )
                state.broken = True
                if not line or _ANSWER.match(line):
                    state = _Question()
        if state.stem_lines and not state.broken:
            parsed.skipped.append(
                Skipped(
                    f"question at line {state.start}: it has no ANSWER: line.",
                    stem=" ".join(state.stem_lines)[:60],
                )
            )
        if not parsed.items and not parsed.skipped:
            raise FormatError("The file holds no question.", _FIX, file=path)
        return parsed

    def _line(self, line: str, number: int, state: _Question, parsed: ParsedFile) -> bool:
        """Take one line; True when it ended a question."""
        if not line:
            if state.options:
                raise _BrokenError("it has no ANSWER: line (a blank line comes first).")
            return False
        answer = _ANSWER.match(line)
        option = _OPTION.match(line) if state.stem_lines else None
        if answer:
            if not state.options:
                raise _BrokenError("ANSWER: comes before any lettered option.")
            parsed.items.append(self._item(number, state, answer))
            return True
        if option:
            letter, text = option.groups()
            expected = LETTERS[len(state.options)] if len(state.options) < len(LETTERS) else "?"
            if letter != expected:
                raise _BrokenError(f"option {letter} found where option {expected} was expected.")
            state.options.append((letter, text.strip()))
        elif state.options:
            raise _BrokenError(
                f"expected option {LETTERS[len(state.options)]} or ANSWER:, found {line[:40]!r}."
            )
        else:
            if not state.stem_lines:
                state.start = number
            state.stem_lines.append(line)
        return False

    @staticmethod
    def _item(number: int, state: _Question, answer: re.Match[str]) -> Item:
        options = state.options
        letter = answer.group(1)
        letters = [o[0] for o in options]
        if letter not in letters:
            raise _BrokenError(
                f"ANSWER: {letter or '(nothing)'} is not one of the options {', '.join(letters)}."
            )
        key = options[letters.index(letter)][1]
        texts = [o[1] for o in options]
        item_type = "tf" if sorted(t.casefold() for t in texts) == ["false", "true"] else "mcq"
        if item_type == "tf":
            key = TF_ANSWERS[0] if key.casefold() == "true" else TF_ANSWERS[1]
            texts = [TF_ANSWERS[0] if t.casefold() == "true" else TF_ANSWERS[1] for t in texts]
        item = Item(
            type=item_type,
            stem=" ".join(state.stem_lines),
            key=key,
            options=[Option(t, i == letters.index(letter), i) for i, t in enumerate(texts)],
            provenance={"source_line": state.start},
        )
        problems = item.problems()
        if problems:
            raise _BrokenError(" ".join(problems))
        return item


@dataclass
class _Question:
    """The question being read: its first line, stem lines and options so far."""

    start: int = 0
    stem_lines: list[str] = field(default_factory=list)
    options: list[tuple[str, str]] = field(default_factory=list)
    #: An error was found: skip to the end of this question.
    broken: bool = False


class _BrokenError(Exception):
    """A question that breaks the Aiken format: skipped, the others are read."""
