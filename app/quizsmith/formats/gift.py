"""GIFT (https://docs.moodle.org/en/GIFT_format): export and import.

Why this module is long: export and import of one format stay together, so that escaping and
unescaping and each question type's writer and reader can be checked against each other (the
round trip is the contract); reading GIFT's answer syntax (credits, feedback, ranges, missing
words) is a small parser of its own.

Export writes one question per paragraph: `::name::stem{ =key ~%50%partly ~distractor ... }`,
`{TRUE}` / `{FALSE}` for true/false, `{=answer =other =%50%partly}` for short answers and
cloze items (the cloze stem shows its blank as "_____") and `{#value:tolerance}` for
numerical keys. The characters GIFT gives a meaning to, ~ = # { } : and the backslash, are
escaped with a backslash, and line breaks are written as `\\n`, so every question is one
paragraph whatever its text. Items whose text contains "<" or "&" (or a stem that starts with
"[") are marked `[plain]` so Moodle shows them as written, not as HTML; a question with "->"
in an answer is written as `[html]` (with "-&gt;"), since GIFT has no escape for it and Moodle
reads an answer block holding "->" as a matching question.

Import reads multiple choice (one correct answer, partial credit of the others kept),
true/false, short answer (other accepted answers and their credit kept), numerical (value and
tolerance, or a min..max range) and "missing word" questions (`Grant is {=entombed} in
Grant's tomb.`, stored with the blank as "_____"). Answer format markers (`~[plain]blue`) are
taken off. `$CATEGORY:` sets the subject (its last level; the whole path is kept for export);
`::name::` is kept as the source id. Essay, matching, description and multiple-answer
questions, and malformed ones, are skipped with their number, line and reason; the others are
imported. A file with no question at all is refused.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from quizsmith.domain import (
    TF_ANSWERS,
    Accepted,
    Item,
    NumericKey,
    Option,
    format_number,
    parse_number,
)
from quizsmith.errors import quoted
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
    xml_safe,
)
from quizsmith.formats.markup import html_to_text, media_note, text_to_html
from quizsmith.formats.moodle import category_levels, category_path
from quizsmith.formats.names import QuestionNames
from quizsmith.formats.option_order import OptionOrders, option_orders

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


#: What tells a GIFT file from other plain text (`GiftFormat.sniff`). The indent is read
#: within its line: `^\s*` went on over every following blank line from each line start
#: (80,000 blank lines took over a minute to sniff, issue 48).
_GIFT_HEADS = re.compile(r"^[^\S\n]*(::.+?::|\$CATEGORY:)", re.MULTILINE)
_GIFT_BLOCKS = re.compile(r"(?<!\\)\{\s*(=|~|T\s*}|F\s*}|TRUE|FALSE|#)")


class GiftFormat(Exporter, Importer):
    name = "gift"
    title = "GIFT"
    extension = ".gift"
    order = 60
    suffixes = (".gift",)

    @classmethod
    def sniff(cls, text: str) -> int:
        # Question names and categories are GIFT's own (surer than Aiken's ANSWER: line);
        # answer blocks less so (an Aiken option may well contain "{=").
        if _GIFT_HEADS.search(text):
            return 4
        return 2 if _GIFT_BLOCKS.search(text) else 0

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
        orders = option_orders(items, seed)
        names = QuestionNames()
        category: str | None = None
        for number, item in enumerate(items, 1):
            wanted = "$course$/top" + "".join(f"/{c}" for c in category_path(item))
            if wanted != category:
                category = wanted
                parts.append(f"$CATEGORY: {' '.join(wanted.split())}\n")
            notes: list[str] = []
            parts.append(self._question(item, names.name(item, number), orders, notes))
            result.simplified += [Skipped(n, item.id, item.stem) for n in notes]
            result.count += 1
        path.write_text("\n".join(parts), encoding="utf-8", newline="\n")

    def _question(self, item: Item, name: str, orders: OptionOrders, notes: list[str]) -> str:
        stem = cloze_stem(item.stem) if item.type == "cloze" else item.stem
        answer_texts = [o.text for o in item.options] + [item.key] + [a.text for a in item.accepted]
        texts = [stem, *answer_texts]
        # Moodle reads any answer block holding "->" as a matching question and GIFT has no
        # escape for it, so such a question is written as HTML, where ">" is "&gt;".
        html = any("->" in t for t in answer_texts)
        markup = stem.lstrip().startswith("[") or any("<" in t or "&" in t for t in texts)
        plain = not html and markup

        def out(text: str) -> str:
            return escape(text_to_html(text)) if html else escape(text)

        marker = "[html]" if html else "[plain]" if plain else ""
        head = f"::{escape(name)}::{marker}{out(stem)}"
        for media in item.media:
            notes.append(f"{media.name} not written: GIFT files carry no pictures or sounds.")
        truth = item.key.strip().casefold()
        if item.type == "tf" and truth in ("true", "false") and len(item.options) <= 2:
            return f"{head}{{{truth.upper()}}}\n"
        if item.type in ("mcq", "tf"):
            lines = []
            for option in orders.of(item):
                weight = f"%{option.credit:g}%" if option.credit and not option.is_key else ""
                mark = "=" if option.is_key else "~"
                lines.append(mark + weight + _answer_text(out(option.text), html))
            return head + "{\n" + "\n".join(lines) + "\n}\n"
        if item.numeric is not None:
            if item.numeric.unit:
                notes.append(
                    f"unit {quoted(item.numeric.unit)} not written: GIFT numbers have no units."
                )
            value = item.key.strip()
            if parse_number(value) != item.numeric.value or "," in value:
                value = format_number(item.numeric.value)
            tolerance = ""
            if item.numeric.tolerance:
                tolerance = f":{format_number(item.numeric.tolerance)}"
            return f"{head}{{#{value}{tolerance}}}\n"
        answers = [f"={_answer_text(out(item.key), html)}"]
        for alt in item.accepted:
            weight = "" if alt.credit >= 100 else f"%{alt.credit:g}%"
            answers.append(f"={weight}{_answer_text(out(alt.text), html)}")
        return f"{head}{{{' '.join(answers)}}}\n"

    # --- import -----------------------------------------------------------------------------

    def parse(self, path: Path) -> ParsedFile:
        parsed = ParsedFile()
        levels: list[str] = []
        number = 0
        for block in _blocks(read_text(path)):
            if block.text.startswith("$CATEGORY:"):
                first, _, rest = block.text.partition("\n")
                levels = category_levels(first[len("$CATEGORY:") :].strip())
                if not rest.strip():
                    continue
                block = _Block(rest.strip(), block.line + 1)
            number += 1
            name = _name_of(block.text)
            label = f"question {number} (line {block.line}" + (
                f", {quoted(name)})" if name else ")"
            )
            notes: list[str] = []
            try:
                item = _question_item(block, levels, notes)
            except (_SkipError, _BadError) as skip:
                parsed.skipped.append(Skipped(f"{label}: {skip}", stem=name or block.text[:60]))
                continue
            problems = item.problems()
            if problems:
                parsed.skipped.append(
                    Skipped(f"{label}: {' '.join(problems)}", stem=name or item.stem[:60])
                )
                continue
            parsed.items.append(item)
            parsed.simplified += [Skipped(f"{label}: {n}", stem=item.stem[:60]) for n in notes]
        if not number:
            raise FormatError(
                "The file holds no GIFT question (only comments, categories or blank lines).",
                _GIFT_FIX,
                file=path,
            )
        return parsed


def _answer_text(escaped: str, html: bool) -> str:
    # A leading %n% would be read as an answer weight.
    if _WEIGHT.match(escaped):
        escaped = " " + escaped
    # Text that starts like a format marker gets a real one first: readers take off one.
    if _FORMAT.match(escaped):
        escaped = ("[html]" if html else "[plain]") + escaped
    return escaped


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
                raise _BadError(
                    f"Text {quoted(block[:i].strip())} comes before the first = or ~ answer."
                )
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


def _name_of(text: str) -> str:
    if not text.startswith("::"):
        return ""
    end = _find(text, "::", 2)
    return unescape(text[2:end]).strip() if end >= 0 else ""


def _answer_parts(raw: str, html: bool) -> tuple[float | None, str, bool]:
    """(weight, text, was html) of one raw answer: feedback after # dropped, a `%n%` weight
    and then an answer format marker (`[plain]`, `[html]`, written by Moodle whenever an
    answer's format differs from the question's) taken off."""
    feedback = _find(raw, "#")
    text = raw if feedback < 0 else raw[:feedback]
    weight_match = _WEIGHT.match(text)
    weight = float(weight_match.group(1)) if weight_match else None
    if weight_match:
        text = text[weight_match.end() :]
    marker = _FORMAT.match(text)
    if marker:
        html = marker.group(1) == "html"
        text = text[marker.end() :]
    return weight, _clean(text, html), html


def _question_item(block: _Block, levels: list[str], notes: list[str]) -> Item:
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
    if close_at < 0:
        raise _BadError("The answer block opened with { is not closed with }.")
    prefix, body, suffix = text[:open_at], text[open_at + 1 : close_at], text[close_at + 1 :]
    if _find(suffix, "{") >= 0:
        raise _SkipError("questions with several answer blocks are not supported.")
    missing_word = bool(suffix.strip())
    stem_raw = prefix + BLANK + suffix if missing_word else prefix
    stem = _clean(stem_raw, html)
    if not stem:
        raise _BadError("The question text is empty.")
    media_note(stem_raw if html else "", notes)
    general = _find(body, "####")
    if general >= 0:
        body = body[:general]
    provenance: dict[str, object] = {"source_id": name} if name else {}
    if levels:
        provenance["category_path"] = levels
    meta: dict[str, Any] = {"subject": levels[-1] if levels else None, "provenance": provenance}
    stripped = body.strip()
    if not stripped:
        raise _SkipError("essay questions are not supported.")
    if stripped.startswith("#"):
        if missing_word:
            raise _SkipError("a numerical answer inside the text is not supported.")
        return _numerical(stripped[1:], stem, meta, notes)
    truth = _find(stripped, "#")
    tf_word = (stripped if truth < 0 else stripped[:truth]).strip()
    if _TF.match(tf_word):
        key = "True" if tf_word.upper().startswith("T") else "False"
        options = [Option(t, t == key, i) for i, t in enumerate(TF_ANSWERS)]
        return Item(type="tf", stem=stem, key=key, options=options, **meta)
    raw_answers = _split_answers(body)
    if not raw_answers:
        raise _BadError("The answer block has no = or ~ answer.")
    answers = [(marker, *_answer_parts(raw, html)[:2]) for marker, raw in raw_answers]
    has_wrong = any(m == "~" for m, _, _ in answers)
    # As Moodle decides: an answer block with = and a raw "->" is a matching question.
    if not has_wrong and "->" in body:
        raise _SkipError("matching questions are not supported.")
    if has_wrong:
        return _choice(answers, stem, meta)
    full = [a[2] for a in answers if a[1] in (None, 100)]
    if not full:
        raise _BadError("No answer has full marks.")
    accepted = [Accepted(a[2]) for a in answers if a[1] in (None, 100)][1:]
    for _, weight, answer in answers:
        if weight is not None and 0 < weight < 100:
            accepted.append(Accepted(answer, weight))
        elif weight is not None and weight <= 0:
            notes.append(f"answer {quoted(answer)} worth {weight:g}% left out (no credit).")
    cloze = missing_word or bool(_CLOZE_BLANK.search(stem))
    if cloze:
        stem = _CLOZE_BLANK.sub(BLANK, stem)
    item_type = "cloze" if cloze else "short"
    return Item(type=item_type, stem=stem, key=full[0], accepted=accepted, **meta)


def _choice(answers: list[tuple[str, float | None, str]], stem: str, meta: dict[str, Any]) -> Item:
    def credit(marker: str, weight: float | None) -> float:
        return weight if weight is not None else (100.0 if marker == "=" else 0.0)

    credits = [credit(m, w) for m, w, _ in answers]
    full = [i for i, c in enumerate(credits) if c >= 100]
    if len(full) != 1:
        if not full and sum(c for c in credits if c > 0) >= 99:
            raise _SkipError(
                "a multiple-answer question (the marks are split over several options); "
                "Quizsmith items have one key."
            )
        raise _SkipError(f"it needs exactly one fully correct answer; {len(full)} are.")
    key_at = full[0]
    options = [
        Option(text, i == key_at, i, 0.0 if i == key_at else credits[i])
        for i, (_, _, text) in enumerate(answers)
    ]
    return Item(type="mcq", stem=stem, key=answers[key_at][2], options=options, **meta)


def _numerical(body: str, stem: str, meta: dict[str, Any], notes: list[str]) -> Item:
    """A numerical question: `#1822:5`, `#1..5`, `#=1822:0 =%50%1822:2`. The first full-marks
    answer is the key; other answers cannot be carried and are listed as left out."""
    raw_answers = [t for t in re.split(r"(?<!\\)=", body) if t.strip()]
    found: list[tuple[float | None, NumericKey, str]] = []
    for raw in raw_answers:
        weight, spec, _ = _answer_parts(raw.strip(), False)
        found.append((weight, _numeric_key(spec), spec))
    if not found:
        raise _BadError("The numerical answer is empty.")
    full = [f for f in found if f[0] in (None, 100)]
    if not full:
        raise _BadError("No numerical answer has full marks.")
    weight, numeric, spec = full[0]
    for other in found:
        if other is not full[0]:
            share = f"{other[0]:g}%" if other[0] is not None else "100%"
            notes.append(
                f"numerical answer {quoted(other[2])} ({share}) left out: Quizsmith keeps one "
                "value and tolerance per item."
            )
    meta["provenance"]["gift_type"] = "numerical"
    value_text = spec.split(":")[0].strip()
    key = value_text if ".." not in spec else format_number(numeric.value)
    return Item(type="short", stem=stem, key=key, numeric=numeric, **meta)


def _numeric_key(spec: str) -> NumericKey:
    if ".." in spec:
        low_text, _, high_text = spec.partition("..")
        low, high = parse_number(low_text), parse_number(high_text)
        if low is None or high is None or high < low:
            raise _BadError(f"The numerical range {quoted(spec)} is not 'min..max'.")
        return NumericKey((low + high) / 2, (high - low) / 2)
    # Split with str methods: the pattern `\s*([^:]+?)\s*(?::\s*(\S+)\s*)?$` backtracked over
    # every space in `#8<40,000 spaces>x` once per space (41 s, issue 48).
    value_text, colon, tolerance_text = spec.partition(":")
    value = parse_number(value_text.strip())
    tolerance = parse_number(tolerance_text.strip()) if colon else 0.0
    if value is None or tolerance is None or tolerance < 0:
        raise _BadError(f"The numerical answer {quoted(spec)} is not 'value' or 'value:tolerance'.")
    return NumericKey(value, tolerance)
