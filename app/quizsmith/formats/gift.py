"""GIFT (https://docs.moodle.org/en/GIFT_format): export and import.

Export writes one question per paragraph: `::name::stem{ =key ~distractor ... }`, `{TRUE}` /
`{FALSE}` for true/false and `{=answer}` for short answers and cloze items (the cloze stem
shows its blank as "_____"). The characters GIFT gives a meaning to, ~ = # { } : and the
backslash, are escaped with a backslash, and line breaks are written as `\\n`, so every
question is one paragraph whatever its text. Items whose text contains "<" or "&" (or a stem
that starts with "[") are marked `[plain]` so Moodle shows them as written, not as HTML.

Import reads multiple choice (one correct answer), true/false, short answer, numerical (as a
short answer), and "missing word" questions (`Grant is {=entombed} in Grant's tomb.`, stored
with the blank as "_____"). `$CATEGORY:` sets the subject of what follows; `::name::` is kept
as the source id. Essay, matching, description and multiple-answer questions are skipped
with the reason; a question with a broken answer block stops the import, naming its line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from quizsmith.domain import TF_ANSWERS, Item, Option
from quizsmith.formats.base import (
    BLANK,
    Exporter,
    ExportOptions,
    ExportResult,
    FormatError,
    Importer,
    ParsedFile,
    Skipped,
    cloze_stem,
    read_text,
    shuffled_options,
    xml_safe,
)
from quizsmith.formats.markup import html_to_text
from quizsmith.formats.moodle import question_name

SPECIAL = "~=#{}:"
_ESCAPES = {"n": "\n", **{c: c for c in SPECIAL + "\\"}}
_WEIGHT = re.compile(r"%(-?\d+(?:\.\d+)?)%")
_FORMAT = re.compile(r"^\s*\[(html|moodle|plain|markdown)\]")
_TF = re.compile(r"^(TRUE|FALSE|T|F)$", re.IGNORECASE)
_CLOZE_BLANK = re.compile(r"_{5,}")
_GIFT_FIX = "Correct the question in the file (see docs.moodle.org/en/GIFT_format)."


def escape(text: str) -> str:
    """GIFT text: special characters and the backslash escaped, line breaks as \\n."""
    out = []
    for char in xml_safe(text):
        if char == "\\" or char in SPECIAL:
            out.append("\\" + char)
        elif char == "\n":
            out.append("\\n")
        elif char == "\t":
            out.append(" ")
        else:
            out.append(char)
    return "".join(out)


def unescape(text: str) -> str:
    """The inverse of `escape`; an unknown escape (\\q) stays as written, as in Moodle."""
    out = []
    i = 0
    while i < len(text):
        char = text[i]
        if char == "\\" and i + 1 < len(text) and text[i + 1] in _ESCAPES:
            out.append(_ESCAPES[text[i + 1]])
            i += 2
        else:
            out.append(char)
            i += 1
    return "".join(out)


class GiftFormat(Exporter, Importer):
    name = "gift"
    title = "GIFT"
    extension = ".gift"
    can_export = True
    can_import = True
    description = "Moodle GIFT text (multiple choice, true/false, short answer, missing word)"

    # --- export -----------------------------------------------------------------------------

    def write(
        self, items: list[Item], path: Path, options: ExportOptions, result: ExportResult
    ) -> None:
        seed = int(result.seed or 0)
        title = options.title.replace("\n", " ")
        parts = [f"// {title}: exported by Quizsmith (option order seed {seed})\n"]
        category: str | None = None
        for number, item in enumerate(items, 1):
            wanted = item.subject or ""
            if wanted != category:
                category = wanted
                suffix = f"/{wanted.replace('/', '//')}" if wanted else ""
                parts.append(f"$CATEGORY: $course$/top{' '.join(suffix.split())}\n")
            parts.append(self._question(item, number, seed))
            result.count += 1
        path.write_text("\n".join(parts), encoding="utf-8", newline="\n")

    def _question(self, item: Item, number: int, seed: int) -> str:
        stem = cloze_stem(item.stem) if item.type == "cloze" else item.stem
        texts = [stem, *(o.text for o in item.options), item.key]
        plain = stem.lstrip().startswith("[") or any("<" in t or "&" in t for t in texts)
        head = f"::{escape(question_name(item, number))}::{'[plain]' if plain else ''}"
        head += escape(stem)
        truth = item.key.strip().casefold()
        choice = item.type in ("mcq", "tf")
        if item.type == "tf" and truth in ("true", "false") and len(item.options) <= 2:
            return f"{head}{{{truth.upper()}}}\n"
        if choice:
            lines = [
                ("=" if o.is_key else "~") + _answer_text(o.text)
                for o in shuffled_options(item, seed)
            ]
            return head + "{\n" + "\n".join(lines) + "\n}\n"
        return f"{head}{{={_answer_text(item.key)}}}\n"

    # --- import -----------------------------------------------------------------------------

    def parse(self, path: Path) -> ParsedFile:
        parsed = ParsedFile()
        category: str | None = None
        for block in _blocks(read_text(path)):
            if block.text.startswith("$CATEGORY:"):
                first, _, rest = block.text.partition("\n")
                category = _category_subject(first[len("$CATEGORY:") :].strip())
                if not rest.strip():
                    continue
                block = _Block(rest.strip(), block.line + 1)
            try:
                item = _question_item(block, category)
            except _SkipError as skip:
                parsed.skipped.append(Skipped(f"line {block.line}: {skip}", stem=block.text[:60]))
                continue
            except _BadError as bad:
                raise FormatError(
                    str(bad), _GIFT_FIX, file=path, line=block.line + bad.offset
                ) from None
            problems = item.problems()
            if problems:
                raise FormatError(" ".join(problems), _GIFT_FIX, file=path, line=block.line)
            parsed.items.append(item)
        return parsed


def _answer_text(text: str) -> str:
    escaped = escape(text)
    # A leading %n% would be read as an answer weight.
    return " " + escaped if _WEIGHT.match(escaped) else escaped


@dataclass
class _Block:
    text: str
    line: int


class _SkipError(Exception):
    """A well-formed question Quizsmith cannot carry."""


class _BadError(Exception):
    """A malformed question; `offset` is its line within the question."""

    def __init__(self, message: str, offset: int = 0) -> None:
        super().__init__(message)
        self.offset = offset


def _blocks(text: str) -> list[_Block]:
    """Questions are separated by blank lines; `//` comment lines are dropped."""
    blocks: list[_Block] = []
    lines: list[str] = []
    start = 0
    for number, line in enumerate([*text.split("\n"), ""], 1):
        if line.lstrip().startswith("//"):
            continue
        if line.strip():
            if not lines:
                start = number
            lines.append(line)
        elif lines:
            blocks.append(_Block("\n".join(lines).strip(), start))
            lines = []
    return blocks


def _find(text: str, target: str, start: int = 0) -> int:
    """Index of the first unescaped `target` at or after `start`, or -1."""
    i = start
    while i < len(text):
        if text[i] == "\\":
            i += 2
            continue
        if text.startswith(target, i):
            return i
        i += 1
    return -1


def _split_answers(block: str) -> list[tuple[str, str]]:
    """(marker, raw text) for each `=` / `~` answer of an answer block."""
    answers: list[tuple[str, str]] = []
    i, start, marker = 0, -1, ""
    while i < len(block):
        char = block[i]
        if char == "\\":
            i += 2
            continue
        if char in "=~":
            if start < 0 and block[:i].strip():
                raise _BadError(f"Text {block[:i].strip()!r} comes before the first = or ~ answer.")
            if start >= 0:
                answers.append((marker, block[start:i]))
            marker, start = char, i + 1
        i += 1
    if start >= 0:
        answers.append((marker, block[start:]))
    return answers


def _clean(raw: str, html: bool) -> str:
    text = unescape(raw)
    return html_to_text(text) if html else text.strip()


def _question_item(block: _Block, category: str | None) -> Item:
    text = block.text
    name = ""
    if text.startswith("::"):
        end = _find(text, "::", 2)
        if end < 0:
            raise _BadError("The question name opened with :: is not closed with ::.")
        name = unescape(text[2:end]).strip()
        text = text[end + 2 :]
    fmt = _FORMAT.match(text)
    html = bool(fmt and fmt.group(1) == "html")
    if fmt:
        text = text[fmt.end() :]
    open_at = _find(text, "{")
    if open_at < 0:
        raise _SkipError("a description (no answer block) is not a question.")
    close_at = _find(text, "}", open_at + 1)
    line_of_open = text[:open_at].count("\n")
    if close_at < 0:
        raise _BadError("The answer block opened with { is not closed with }.", line_of_open)
    prefix, body, suffix = text[:open_at], text[open_at + 1 : close_at], text[close_at + 1 :]
    if _find(suffix, "{") >= 0:
        raise _SkipError("questions with several answer blocks are not supported.")
    missing_word = bool(suffix.strip())
    stem_raw = prefix + BLANK + suffix if missing_word else prefix
    stem = _clean(stem_raw, html)
    if not stem:
        raise _BadError("The question text is empty.", line_of_open)
    general = _find(body, "####")
    if general >= 0:
        body = body[:general]
    provenance: dict[str, object] = {"source_id": name} if name else {}
    meta: dict[str, Any] = {"subject": category, "provenance": provenance}
    stripped = body.strip()
    if not stripped:
        raise _SkipError("essay questions are not supported.")
    if stripped.startswith("#"):
        return _numerical(stripped[1:], stem, meta, html)
    truth = _find(stripped, "#")
    tf_word = (stripped if truth < 0 else stripped[:truth]).strip()
    if _TF.match(tf_word):
        key = "True" if tf_word.upper().startswith("T") else "False"
        options = [Option(t, t == key, i) for i, t in enumerate(TF_ANSWERS)]
        return Item(type="tf", stem=stem, key=key, options=options, **meta)
    try:
        raw_answers = _split_answers(body)
    except _BadError as bad:
        raise _BadError(str(bad), line_of_open) from None
    if not raw_answers:
        raise _BadError("The answer block has no = or ~ answer.", line_of_open)
    answers = []
    for marker, raw in raw_answers:
        feedback = _find(raw, "#")
        text_part = raw if feedback < 0 else raw[:feedback]
        weight_match = _WEIGHT.match(text_part)
        weight = float(weight_match.group(1)) if weight_match else None
        if weight_match:
            text_part = text_part[weight_match.end() :]
        answers.append((marker, weight, _clean(text_part, html)))
    has_wrong = any(m == "~" for m, _, _ in answers)
    if not has_wrong and len(answers) >= 2 and all("->" in a for _, _, a in answers):
        raise _SkipError("matching questions are not supported.")
    if has_wrong:
        correct = [a for a in answers if (a[0] == "=" and a[1] in (None, 100)) or a[1] == 100]
        partial = [a for a in answers if a[1] is not None and 0 < a[1] < 100]
        if len(correct) != 1 or partial:
            raise _SkipError("it needs exactly one fully correct answer and no partial credit.")
        key = correct[0][2]
        options = [Option(a[2], a is correct[0], i) for i, a in enumerate(answers)]
        return Item(type="mcq", stem=stem, key=key, options=options, **meta)
    full = [a[2] for a in answers if a[1] in (None, 100)]
    if not full:
        raise _BadError("No answer has full marks.", line_of_open)
    if len(full) > 1:
        provenance["alternative_answers"] = full[1:]
    cloze = missing_word or bool(_CLOZE_BLANK.search(stem))
    if cloze:
        stem = _CLOZE_BLANK.sub(BLANK, stem)
    return Item(type="cloze" if cloze else "short", stem=stem, key=full[0], **meta)


def _numerical(body: str, stem: str, meta: dict[str, Any], html: bool) -> Item:
    """A numerical question as a short answer: the key is the first value, without its
    tolerance (`#1822:5`, `#=1822:0 =%50%1822:2`, `#1..5`)."""
    tokens = [t for t in re.split(r"(?<!\\)[=~]", body) if t.strip()]
    first = tokens[0] if tokens else ""
    feedback = _find(first, "#")
    if feedback >= 0:
        first = first[:feedback]
    first = first.strip()
    weight = _WEIGHT.match(first)
    if weight:
        first = first[weight.end() :]
    value = re.split(r":|\.\.", _clean(first, html))[0].strip()
    if not value:
        raise _BadError("The numerical answer is empty.")
    meta["provenance"]["gift_type"] = "numerical"
    return Item(type="short", stem=stem, key=value, **meta)


def _category_subject(path: str) -> str | None:
    from quizsmith.formats.moodle import _category_subject as moodle_category

    return moodle_category(path)
