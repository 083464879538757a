"""Moodle XML (https://docs.moodle.org/en/Moodle_XML_format): export and import.

Why this module is long: export and import of one format stay together, so that each question
type's writer and reader (multichoice, truefalse, shortanswer, numerical, cloze as shortanswer;
categories, tags, embedded images) can be checked against each other: the round trip is the
contract.

Carried: multichoice (one correct answer, partial credit of the other options as their
fraction), truefalse, shortanswer (the key and every other accepted answer with its
fraction), numerical (value, tolerance, unit); a cloze item goes out as shortanswer with its
blank shown as "_____" (Moodle's own cloze type, "multianswer", is a different syntax).
Subjects become `$course$/top/<subject>` categories (an imported nested category path is
written back whole), tags go in <tags>. Question and answer text is written as HTML (escaped
plain text, <br> for line breaks), as Moodle itself exports it; an item's images are embedded
as `@@PLUGINFILE@@` files (base64) in its question text.

Import reads the same types back; a shortanswer whose text shows a blank of five or more
underscores becomes a cloze item. Question types Quizsmith has no counterpart for (essay,
matching, multianswer, description, calculated ...) and multichoice questions with several
correct answers or image-only options are skipped with the reason; the other questions are
imported. Images embedded in question text are kept; sounds are dropped with a note.
"""

from __future__ import annotations

import base64
import binascii
import html
import mimetypes
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

from quizsmith.domain import (
    TF_ANSWERS,
    Accepted,
    Item,
    Media,
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
    check_text,
    cloze_stem,
    read_bytes,
    xml_safe,
)
from quizsmith.formats.markup import html_to_text, media_note, media_refs, text_to_html
from quizsmith.formats.names import QuestionNames
from quizsmith.formats.option_order import OptionOrders, option_orders


def _attr(name: str) -> str:
    return html.escape(name, quote=True)


_CATEGORY_ROOTS = ("$course$", "$module$", "$system$", "$cat1$", "$cat2$", "$cat3$", "top")
_CLOZE_BLANK = re.compile(r"_{5,}")


def category_path(item: Item) -> list[str]:
    """The category levels an item is exported under, each with "/" escaped as "//": the
    nested path it was imported from (while its subject is still that path's last level),
    else its subject."""
    levels = item.provenance.get("category_path")
    if not (isinstance(levels, list) and levels and levels[-1] == item.subject):
        levels = [item.subject] if item.subject else []
    return [str(level).replace("/", "//") for level in levels]


def _text_element(parent: ET.Element, tag: str, text: str, fmt: str | None = None) -> None:
    element = ET.SubElement(parent, tag, {"format": fmt} if fmt else {})
    ET.SubElement(element, "text").text = xml_safe(text)


def _is_true_false(item: Item) -> bool:
    texts = sorted(o.text.strip().casefold() for o in item.options)
    return item.type == "tf" and texts == ["false", "true"]


class MoodleXmlFormat(Exporter, Importer):
    name = "moodle"
    title = "Moodle XML"
    extension = ".xml"
    order = 40
    suffixes = (".xml",)
    can_export = True
    can_import = True
    description = "Moodle question bank XML (multiple choice, true/false, short answer)"

    # --- export -----------------------------------------------------------------------------

    def write(
        self, items: list[Item], path: Path, options: ExportOptions, result: ExportResult
    ) -> None:
        orders = option_orders(items, int(result.seed or 0))
        names = QuestionNames()
        quiz = ET.Element("quiz")
        quiz.append(ET.Comment(xml_safe(f" {options.title}: exported by Quizsmith ")))
        category: str | None = None
        for number, item in enumerate(items, 1):
            wanted = "$course$/top" + "".join(f"/{c}" for c in category_path(item))
            if wanted != category:
                category = wanted
                cat = ET.SubElement(quiz, "question", {"type": "category"})
                _text_element(cat, "category", wanted)
            notes: list[str] = []
            quiz.append(self._question(item, names.name(item, number), orders, notes))
            result.simplified += [Skipped(n, item.id, item.stem) for n in notes]
            result.count += 1
        ET.indent(quiz, space="  ")
        ET.ElementTree(quiz).write(path, encoding="UTF-8", xml_declaration=True)

    def _question(
        self, item: Item, name: str, orders: OptionOrders, notes: list[str]
    ) -> ET.Element:
        if item.type in ("mcq", "tf") and _is_true_false(item):
            qtype = "truefalse"
        elif item.type in ("mcq", "tf"):
            qtype = "multichoice"
        elif item.numeric is not None:
            qtype = "numerical"
        else:
            qtype = "shortanswer"
        question = ET.Element("question", {"type": qtype})
        _text_element(question, "name", name)
        stem = cloze_stem(item.stem) if item.type == "cloze" else item.stem
        images = [m for m in item.media if m.is_image]
        markup = text_to_html(stem) + "".join(
            f'<p><img src="@@PLUGINFILE@@/{_attr(m.name)}" alt=""></p>' for m in images
        )
        _text_element(question, "questiontext", markup, "html")
        text_el = question.find("questiontext")
        assert text_el is not None
        for media in item.media:
            if not media.is_image:
                notes.append(f"{media.name} not written: only images are embedded.")
                continue
            file_el = ET.SubElement(
                text_el, "file", {"name": media.name, "path": "/", "encoding": "base64"}
            )
            file_el.text = base64.b64encode(media.data).decode("ascii")
        _text_element(question, "generalfeedback", "", "html")
        ET.SubElement(question, "defaultgrade").text = "1.0000000"
        # Moodle's own default penalty for every type (a third of the marks per retry).
        ET.SubElement(question, "penalty").text = "0.3333333"
        ET.SubElement(question, "hidden").text = "0"
        if item.id is not None:
            ET.SubElement(question, "idnumber").text = str(item.id)
        if qtype == "multichoice":
            ET.SubElement(question, "single").text = "true"
            # Moodle shuffles again per attempt unless told not to, which would undo the
            # ascending order of numeric options.
            shuffle = "false" if orders.is_numeric(item) else "true"
            ET.SubElement(question, "shuffleanswers").text = shuffle
            ET.SubElement(question, "answernumbering").text = "abc"
            for option in orders.of(item):
                credit = 100.0 if option.is_key else option.credit
                self._answer(question, option.text, credit, "html")
        elif qtype == "truefalse":
            key = item.key.strip().casefold()
            for label in ("true", "false"):
                self._answer(question, label, 100.0 if key == label else 0.0, "moodle_auto_format")
        elif item.numeric is not None:
            value = item.key.strip()
            if parse_number(value) != item.numeric.value or "," in value:
                value = format_number(item.numeric.value)
            answer = self._answer(question, value, 100.0, "moodle_auto_format")
            ET.SubElement(answer, "tolerance").text = format_number(item.numeric.tolerance)
            if item.numeric.unit:
                unit = ET.SubElement(ET.SubElement(question, "units"), "unit")
                ET.SubElement(unit, "multiplier").text = "1"
                ET.SubElement(unit, "unit_name").text = xml_safe(item.numeric.unit)
                ET.SubElement(question, "unitgradingtype").text = "0"
                ET.SubElement(question, "showunits").text = "3"
                ET.SubElement(question, "unitsleft").text = "0"
        else:
            ET.SubElement(question, "usecase").text = "0"
            self._answer(question, item.key, 100.0, "moodle_auto_format")
            for alt in item.accepted:
                self._answer(question, alt.text, alt.credit, "moodle_auto_format")
        if item.tags:
            tags = ET.SubElement(question, "tags")
            for tag in item.tags:
                _text_element(tags, "tag", tag)
        return question

    @staticmethod
    def _answer(question: ET.Element, text: str, credit: float, fmt: str) -> ET.Element:
        answer = ET.SubElement(question, "answer", {"fraction": f"{credit:.7g}", "format": fmt})
        ET.SubElement(answer, "text").text = xml_safe(text_to_html(text) if fmt == "html" else text)
        _text_element(answer, "feedback", "", "html")
        return answer

    # --- import -----------------------------------------------------------------------------

    def parse(self, path: Path) -> ParsedFile:
        root = _parse_xml(path)
        if root.tag != "quiz":
            raise FormatError(
                f"The root element is <{root.tag}>, not <quiz>: this is not Moodle XML.",
                "Export the questions from Moodle as 'Moodle XML format'.",
                file=path,
                element=f"<{root.tag}>",
            )
        parsed = ParsedFile()
        levels: list[str] = []
        for number, question in enumerate(root, 1):
            if not isinstance(question.tag, str):
                continue  # a comment or processing instruction
            where = f"<question> #{number}"
            if question.tag != "question":
                raise FormatError(
                    f"<{question.tag}> found where a <question> belongs.",
                    "Check the file is a Moodle XML export.",
                    file=path,
                    element=f"<{question.tag}> #{number}",
                )
            qtype = question.get("type")
            if qtype == "category":
                levels = category_levels(_child_text(question, "category"))
                continue
            name = _child_text(question, "name")
            if name:
                where += f" ({quoted(name)})"
            notes: list[str] = []
            try:
                item = self._item(question, qtype, name, levels, notes)
                problems = item.problems()
                if problems:
                    raise _SkipError(" ".join(problems))
            except (_SkipError, _BadError) as skip:
                parsed.skipped.append(Skipped(f"{where}: {skip}", stem=name))
                continue
            parsed.items.append(item)
            parsed.simplified += [Skipped(f"{where}: {n}", stem=name) for n in notes]
        if not parsed.items and not parsed.skipped:
            raise FormatError(
                "The file holds no question (only categories).",
                "Export the questions themselves from Moodle, not only their categories.",
                file=path,
            )
        return parsed

    def _item(
        self,
        question: ET.Element,
        qtype: str | None,
        name: str,
        levels: list[str],
        notes: list[str],
    ) -> Item:
        if qtype == "multianswer":
            raise _SkipError(
                "Moodle's cloze (multianswer) embeds several sub-questions ({1:SHORTANSWER:...}) "
                "in one text; a Quizsmith cloze item has one blank with typed answers. Make "
                "one short-answer question per blank in Moodle and export again."
            )
        if qtype not in ("multichoice", "truefalse", "shortanswer", "numerical"):
            raise _SkipError(f"Quizsmith has no {qtype or 'untyped'} questions.")
        text_el = question.find("questiontext")
        if text_el is None:
            raise _BadError("The question has no <questiontext>.")
        stem = _rich_text(text_el)
        media = _media(text_el, notes)
        if not stem and not media:
            raise _BadError("The question text is empty.")
        if not stem:
            stem = "(see the picture)"
            notes.append("the question text is only a picture; a placeholder text was added.")
        answer_els = question.findall("answer")
        answers = [_answer(a) for a in answer_els]
        if not answers:
            raise _BadError("The question has no <answer>.")
        for index, (element, (text, _)) in enumerate(zip(answer_els, answers, strict=True), 1):
            if not text and media_refs(_child_text(element)):
                raise _SkipError(f"answer {index} is a picture only; Quizsmith options are text.")
        provenance: dict[str, object] = {"source_id": name} if name else {}
        if levels:
            provenance["category_path"] = levels
        idnumber = _child_text(question, "idnumber")
        if idnumber:
            provenance["source_idnumber"] = idnumber
        tags = [t for t in (_child_text(tag) for tag in question.iterfind("tags/tag")) if t]
        meta: dict[str, Any] = {
            "subject": levels[-1] if levels else None,
            "tags": tags,
            "provenance": provenance,
            "media": media,
        }
        correct = [a for a in answers if a[1] >= 100]
        if qtype == "multichoice":
            single = (_child_text(question, "single") or "true").strip().lower()
            if len(correct) != 1:
                what = "several answers are" if correct else "no answer is"
                kind = " (a multiple-answer question)" if single in ("false", "0") else ""
                raise _SkipError(f"{what} fully correct{kind}; Quizsmith items have one key.")
            key_at = answers.index(correct[0])
            options = [
                Option(text, i == key_at, i, 0.0 if i == key_at else f)
                for i, (text, f) in enumerate(answers)
            ]
            return Item(type="mcq", stem=stem, key=correct[0][0], options=options, **meta)
        if qtype == "truefalse":
            if len(correct) != 1:
                raise _BadError("A true/false question needs exactly one correct answer.")
            truth = correct[0][0].strip().casefold()
            if truth not in ("true", "false"):
                raise _BadError(
                    f"A true/false answer must be 'true' or 'false', not {quoted(truth)}."
                )
            key = "True" if truth == "true" else "False"
            options = [Option(t, t == key, i) for i, t in enumerate(TF_ANSWERS)]
            return Item(type="tf", stem=stem, key=key, options=options, **meta)
        if not correct:
            raise _BadError("No answer has full marks (fraction 100).")
        if qtype == "numerical":
            return _numerical(question, answer_els, answers, stem, meta, notes)
        key = correct[0][0]
        accepted = [Accepted(text, f) for text, f in answers if f > 0 and text != key]
        for text, f in answers:
            if f <= 0:
                notes.append(f"answer {quoted(text)} worth {f:g}% left out (no credit).")
        item_type = "cloze" if _CLOZE_BLANK.search(stem) else "short"
        if item_type == "cloze":
            stem = _CLOZE_BLANK.sub(BLANK, stem)
        return Item(type=item_type, stem=stem, key=key, accepted=accepted, **meta)


def _numerical(
    question: ET.Element,
    answer_els: list[ET.Element],
    answers: list[tuple[str, float]],
    stem: str,
    meta: dict[str, Any],
    notes: list[str],
) -> Item:
    """The first full-marks answer with its <tolerance> and the unit of multiplier 1; other
    answers and units cannot be carried and are listed as left out."""
    key_at = next(i for i, (_, f) in enumerate(answers) if f >= 100)
    key = answers[key_at][0]
    value = parse_number(key)
    if value is None:
        raise _BadError(f"The numerical answer {quoted(key)} is not a number.")
    tolerance = parse_number(_child_text(answer_els[key_at], "tolerance") or "0")
    if tolerance is None or tolerance < 0:
        raise _BadError("The <tolerance> of the numerical answer is not a number.")
    for i, (text, fraction) in enumerate(answers):
        if i != key_at:
            notes.append(
                f"numerical answer {quoted(text)} ({fraction:g}%) left out: Quizsmith keeps one "
                "value and tolerance per item."
            )
    unit = ""
    for unit_el in question.iterfind("units/unit"):
        name = _child_text(unit_el, "unit_name")
        if parse_number(_child_text(unit_el, "multiplier") or "1") == 1 and not unit:
            unit = name
        else:
            notes.append(f"unit {quoted(name)} left out: Quizsmith keeps one unit per item.")
    meta["provenance"]["moodle_type"] = "numerical"
    numeric = NumericKey(value, abs(tolerance), unit)
    return Item(type="short", stem=stem, key=key, numeric=numeric, **meta)


def _media(text_el: ET.Element, notes: list[str]) -> list[Media]:
    """The images embedded in the question text (<file encoding="base64">); a note for each
    picture or sound shown but not kept."""
    media = []
    for file_el in text_el.findall("file"):
        name = file_el.get("name") or ""
        mime = mimetypes.guess_type(name)[0] or "application/octet-stream"
        if not mime.startswith("image/"):
            continue
        try:
            data = base64.b64decode("".join((file_el.text or "").split()), validate=True)
        except (binascii.Error, ValueError):
            notes.append(f"image {quoted(name)} dropped (its base64 data is damaged).")
            continue
        media.append(Media(name, mime, data))
    media_note(_child_text(text_el), notes, {m.name for m in media}, "the file does not carry it")
    return media


class _SkipError(Exception):
    """A well-formed question Quizsmith cannot carry."""


class _BadError(Exception):
    """A malformed question: the whole import stops."""


def _parse_xml(path: Path) -> ET.Element:
    data = read_bytes(path)
    check_text(data, path)
    # Bytes, not text: expat then honours the BOM and the encoding declaration itself.
    parser = ET.XMLParser()
    try:
        parser.feed(data)
        return parser.close()
    except ET.ParseError as exc:
        line, column = exc.position
        raise FormatError(
            f"This is not well-formed XML (column {column + 1}): {str(exc).split(':')[0]}.",
            "Open the file in a text editor and fix that line, or export it from Moodle again.",
            file=path,
            line=line,
        ) from None


def _child_text(element: ET.Element, child: str | None = None) -> str:
    """The <text> of `element`'s `child` (or of `element` itself), stripped."""
    node = element.find(child) if child else element
    if node is None:
        return ""
    text = node.find("text")
    return ((text.text if text is not None else node.text) or "").strip()


def _rich_text(element: ET.Element) -> str:
    raw = _child_text(element)
    fmt = element.get("format", "html")
    if fmt in ("plain_text", "markdown"):
        return raw.strip()
    return html_to_text(raw)


def _answer(element: ET.Element) -> tuple[str, float]:
    try:
        fraction = float(element.get("fraction", "0"))
    except ValueError:
        raise _BadError(
            f"<answer fraction={quoted(element.get('fraction') or '')}> is not a number."
        ) from None
    return _rich_text(element), fraction


def category_levels(path: str) -> list[str]:
    """The named levels of a Moodle category path (`$course$/top/Biology/Cells` ->
    [Biology, Cells]); "//" inside a name is an escaped slash. The last level is the item's
    subject; the whole path is kept so that an export writes the same nesting back."""
    parts = [p.replace("\x00", "/") for p in path.replace("//", "\x00").split("/")]
    return [p.strip() for p in parts if p.strip() and p.strip() not in _CATEGORY_ROOTS]
