"""Moodle XML (https://docs.moodle.org/en/Moodle_XML_format): export and import.

Carried: multichoice (one correct answer), truefalse, shortanswer; a cloze item goes out as
shortanswer with its blank shown as "_____" (Moodle's own cloze type, "multianswer", is a
different syntax). Subjects become `$course$/top/<subject>` categories, tags go in <tags>.
Question and answer text is written as HTML (escaped plain text, <br> for line breaks), as
Moodle itself exports it.

Import reads the same types back (numerical as a short answer whose key is the number); a
shortanswer whose text shows a blank of five or more underscores becomes a cloze item.
Question types Quizsmith has no counterpart for (essay, matching, multianswer, description,
calculated ...) and multichoice questions with several or partly correct answers are skipped
with the reason.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
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
    check_text,
    cloze_stem,
    read_bytes,
    shuffled_options,
    xml_safe,
)
from quizsmith.formats.markup import html_to_text, text_to_html

_CATEGORY_ROOTS = ("$course$", "$module$", "$system$", "$cat1$", "$cat2$", "$cat3$", "top")
_CLOZE_BLANK = re.compile(r"_{5,}")


def question_name(item: Item, number: int) -> str:
    """A stable, readable name: the id an import came with, else the bank id."""
    source = item.provenance.get("source_id")
    if source not in (None, ""):
        return str(source)
    return f"Q{item.id}" if item.id is not None else f"Q{number}"


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
    can_export = True
    can_import = True
    description = "Moodle question bank XML (multiple choice, true/false, short answer)"

    # --- export -----------------------------------------------------------------------------

    def write(
        self, items: list[Item], path: Path, options: ExportOptions, result: ExportResult
    ) -> None:
        seed = int(result.seed or 0)
        quiz = ET.Element("quiz")
        quiz.append(ET.Comment(xml_safe(f" {options.title}: exported by Quizsmith ")))
        category: str | None = None
        for number, item in enumerate(items, 1):
            wanted = item.subject or ""
            if wanted != category:
                category = wanted
                cat = ET.SubElement(quiz, "question", {"type": "category"})
                path_text = "$course$/top" + (f"/{wanted.replace('/', '//')}" if wanted else "")
                _text_element(cat, "category", path_text)
            quiz.append(self._question(item, number, seed))
            result.count += 1
        ET.indent(quiz, space="  ")
        ET.ElementTree(quiz).write(path, encoding="UTF-8", xml_declaration=True)

    def _question(self, item: Item, number: int, seed: int) -> ET.Element:
        if item.type in ("mcq", "tf") and _is_true_false(item):
            qtype = "truefalse"
        elif item.type in ("mcq", "tf"):
            qtype = "multichoice"
        else:
            qtype = "shortanswer"
        question = ET.Element("question", {"type": qtype})
        _text_element(question, "name", question_name(item, number))
        stem = cloze_stem(item.stem) if item.type == "cloze" else item.stem
        _text_element(question, "questiontext", text_to_html(stem), "html")
        _text_element(question, "generalfeedback", "", "html")
        ET.SubElement(question, "defaultgrade").text = "1.0000000"
        ET.SubElement(question, "penalty").text = "0.3333333" if qtype == "multichoice" else "1.0"
        ET.SubElement(question, "hidden").text = "0"
        if item.id is not None:
            ET.SubElement(question, "idnumber").text = str(item.id)
        if qtype == "multichoice":
            ET.SubElement(question, "single").text = "true"
            ET.SubElement(question, "shuffleanswers").text = "true"
            ET.SubElement(question, "answernumbering").text = "abc"
            for option in shuffled_options(item, seed):
                self._answer(question, option.text, option.is_key, "html")
        elif qtype == "truefalse":
            key = item.key.strip().casefold()
            for label in ("true", "false"):
                self._answer(question, label, key == label, "moodle_auto_format")
        else:
            ET.SubElement(question, "usecase").text = "0"
            self._answer(question, item.key, True, "moodle_auto_format")
        if item.tags:
            tags = ET.SubElement(question, "tags")
            for tag in item.tags:
                _text_element(tags, "tag", tag)
        return question

    @staticmethod
    def _answer(question: ET.Element, text: str, correct: bool, fmt: str) -> None:
        answer = ET.SubElement(
            question, "answer", {"fraction": "100" if correct else "0", "format": fmt}
        )
        ET.SubElement(answer, "text").text = xml_safe(text_to_html(text) if fmt == "html" else text)
        _text_element(answer, "feedback", "", "html")

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
        category: str | None = None
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
                category = _category_subject(_child_text(question, "category"))
                continue
            name = _child_text(question, "name")
            if name:
                where += f" ({name!r})"
            try:
                item = self._item(question, qtype, name, category)
            except _SkipError as skip:
                parsed.skipped.append(Skipped(f"{where}: {skip}", stem=name))
                continue
            except _BadError as bad:
                raise FormatError(
                    str(bad),
                    "Correct the question in Moodle and export again.",
                    file=path,
                    element=where,
                ) from None
            problems = item.problems()
            if problems:
                raise FormatError(
                    " ".join(problems),
                    "Correct the question and import again.",
                    file=path,
                    element=where,
                )
            parsed.items.append(item)
        return parsed

    def _item(
        self, question: ET.Element, qtype: str | None, name: str, category: str | None
    ) -> Item:
        if qtype not in ("multichoice", "truefalse", "shortanswer", "numerical"):
            raise _SkipError(f"Quizsmith has no {qtype or 'untyped'} questions.")
        text_el = question.find("questiontext")
        if text_el is None:
            raise _BadError("The question has no <questiontext>.")
        stem = _rich_text(text_el)
        if not stem:
            raise _BadError("The question text is empty.")
        answers = [_answer(a) for a in question.findall("answer")]
        if not answers:
            raise _BadError("The question has no <answer>.")
        provenance: dict[str, object] = {"source_id": name} if name else {}
        idnumber = _child_text(question, "idnumber")
        if idnumber:
            provenance["source_idnumber"] = idnumber
        tags = [t for t in (_child_text(tag) for tag in question.iterfind("tags/tag")) if t]
        correct = [a for a in answers if a[1] >= 100]
        if qtype == "multichoice":
            single = (_child_text(question, "single") or "true").strip().lower()
            if single in ("false", "0") and len(correct) != 1:
                raise _SkipError("several answers are correct (Quizsmith items have one key).")
            if len(correct) != 1 or any(0 < a[1] < 100 for a in answers):
                raise _SkipError("it needs exactly one fully correct answer and no partial credit.")
            key = correct[0][0]
            options = [Option(text, f >= 100, i) for i, (text, f) in enumerate(answers)]
            return Item(
                type="mcq", stem=stem, key=key, options=options, **_meta(category, tags, provenance)
            )
        if qtype == "truefalse":
            if len(correct) != 1:
                raise _BadError("A true/false question needs exactly one correct answer.")
            truth = correct[0][0].strip().casefold()
            if truth not in ("true", "false"):
                raise _BadError(f"A true/false answer must be 'true' or 'false', not {truth!r}.")
            key = "True" if truth == "true" else "False"
            options = [Option(t, t == key, i) for i, t in enumerate(TF_ANSWERS)]
            return Item(
                type="tf", stem=stem, key=key, options=options, **_meta(category, tags, provenance)
            )
        if not correct:
            raise _BadError("No answer has full marks (fraction 100).")
        key = correct[0][0]
        others = [text for text, f in answers if f >= 100 and text != key]
        if others:
            provenance["alternative_answers"] = others
        if qtype == "numerical":
            provenance["moodle_type"] = "numerical"
        item_type = "cloze" if _CLOZE_BLANK.search(stem) else "short"
        if item_type == "cloze":
            stem = _CLOZE_BLANK.sub(BLANK, stem)
        return Item(type=item_type, stem=stem, key=key, **_meta(category, tags, provenance))


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
        raise _BadError(f"<answer fraction={element.get('fraction')!r}> is not a number.") from None
    return _rich_text(element), fraction


def _meta(subject: str | None, tags: list[str], provenance: dict[str, object]) -> dict[str, Any]:
    return {"subject": subject, "tags": tags, "provenance": provenance}


def _category_subject(path: str) -> str | None:
    """The last named level of a Moodle category path (`$course$/top/Biology/Cells` ->
    `Cells`); "//" inside a name is an escaped slash."""
    parts = [p.replace("\x00", "/") for p in path.replace("//", "\x00").split("/")]
    named = [p.strip() for p in parts if p.strip() and p.strip() not in _CATEGORY_ROOTS]
    return named[-1] if named else None
