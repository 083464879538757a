"""Word exports (python-docx): the student sheet, the answer key and the teacher report.

All three open the template (`resources/templates/quiz-template.docx`, or the one given as
`ExportOptions.template`), keep its page set-up, styles, headers and footers, replace its
body, and write the quiz name in the header and "Page N of M" (PAGE / NUMPAGES fields) in the
footer. The student sheet and the key shuffle options with the same seed, item by item
(`shuffled_options`), so the key's letters always match the sheet printed with that seed;
both show the seed as the form number.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from quizsmith.domain import Item
from quizsmith.formats.base import (
    BLANK,
    LETTERS,
    Exporter,
    ExportOptions,
    ExportResult,
    FormatError,
    cloze_stem,
    is_rtl,
    key_letter,
    shuffled_options,
    xml_safe,
)
from quizsmith.paths import resources_dir

#: The blank students write in on paper: wider than the "_____" of the text formats.
PAPER_BLANK = "_" * 16
ANSWER_LINE = "_" * 60

_FALLBACK_STYLES = {
    "Quiz Title": "Title",
    "Quiz Instructions": "Normal",
    "Quiz Question": "Normal",
    "Quiz Option": "Normal",
    "Quiz Answer Line": "Normal",
    "Quiz Note": "Normal",
}


def default_template() -> Path:
    return resources_dir() / "templates" / "quiz-template.docx"


def open_template(template: Path | None) -> Any:
    """The template as a python-docx Document with an empty body (sections, headers,
    footers and styles kept)."""
    from docx import Document
    from docx.opc.exceptions import PackageNotFoundError
    from docx.oxml.ns import qn

    path = template or default_template()
    if template is None and not path.is_file():
        doc = Document()  # the template was removed from an install: python-docx's default
    else:
        if not path.is_file():
            raise FormatError(
                "The Word template does not exist.", "Check the --template path.", file=path
            )
        try:
            doc = Document(str(path))
        except (PackageNotFoundError, KeyError, ValueError, OSError) as exc:
            raise FormatError(
                f"This is not a Word .docx file that can be used as a template ({exc}).",
                "Save the template in Word as 'Word Document (.docx)' (not .dotx or .doc).",
                file=path,
            ) from None
    body = doc.element.body
    for child in list(body):
        if child.tag != qn("w:sectPr"):
            body.remove(child)
    return doc


def _style(doc: Any, name: str) -> Any:
    names = {s.name for s in doc.styles}
    if name in names:
        return doc.styles[name]
    fallback = _FALLBACK_STYLES.get(name, "Normal")
    return doc.styles[fallback] if fallback in names else None


def _mark_rtl(paragraph: Any) -> None:
    from docx.oxml import OxmlElement

    ppr = paragraph._p.get_or_add_pPr()
    ppr.insert_element_before(
        OxmlElement("w:bidi"),
        *(
            f"w:{t}"
            for t in (
                "adjustRightInd",
                "snapToGrid",
                "spacing",
                "ind",
                "contextualSpacing",
                "mirrorIndents",
                "suppressOverlap",
                "jc",
                "textDirection",
                "textAlignment",
                "textboxTightWrap",
                "outlineLvl",
                "divId",
                "cnfStyle",
                "rPr",
                "sectPr",
                "pPrChange",
            )
        ),
    )
    for run in paragraph.runs:
        rpr = run._r.get_or_add_rPr()
        rpr.insert_element_before(
            OxmlElement("w:rtl"),
            "w:cs",
            "w:em",
            "w:lang",
            "w:eastAsianLayout",
            "w:specVanish",
            "w:oMath",
        )


def _para(doc: Any, text: str, style: str, *, bold_prefix: str = "") -> Any:
    paragraph = doc.add_paragraph(style=_style(doc, style))
    if bold_prefix:
        paragraph.add_run(xml_safe(bold_prefix)).bold = True
    paragraph.add_run(xml_safe(text))
    if is_rtl(text):
        _mark_rtl(paragraph)
    return paragraph


def _add_field(paragraph: Any, instruction: str) -> None:
    """A Word field (PAGE, NUMPAGES): Word and LibreOffice fill in the number."""
    from docx.oxml import OxmlElement
    from docx.oxml.ns import qn

    def char(kind: str) -> Any:
        element = OxmlElement("w:fldChar")
        element.set(qn("w:fldCharType"), kind)
        return element

    paragraph.add_run()._r.append(char("begin"))
    instr = OxmlElement("w:instrText")
    instr.set(qn("xml:space"), "preserve")
    instr.text = f" {instruction} "
    paragraph.add_run()._r.append(instr)
    paragraph.add_run()._r.append(char("separate"))
    paragraph.add_run("1")
    paragraph.add_run()._r.append(char("end"))


def _first_empty_or_new(part: Any) -> Any:
    paragraphs = part.paragraphs
    if paragraphs and not any(p.text.strip() for p in paragraphs):
        return paragraphs[0]
    return part.add_paragraph()


def _header_footer(doc: Any, header_text: str) -> None:
    from docx.enum.text import WD_ALIGN_PARAGRAPH

    for section in doc.sections:
        header = _first_empty_or_new(section.header)
        header.text = xml_safe(header_text)
        header.alignment = WD_ALIGN_PARAGRAPH.RIGHT
        footer = _first_empty_or_new(section.footer)
        footer.alignment = WD_ALIGN_PARAGRAPH.CENTER
        footer.add_run("Page ")
        _add_field(footer, "PAGE")
        footer.add_run(" of ")
        _add_field(footer, "NUMPAGES")


def _table(doc: Any, header: list[str]) -> Any:
    table = doc.add_table(rows=1, cols=len(header))
    if "Table Grid" in {s.name for s in doc.styles}:
        table.style = doc.styles["Table Grid"]
    for cell, text in zip(table.rows[0].cells, header, strict=True):
        cell.text = ""
        cell.paragraphs[0].add_run(text).bold = True
    return table


def _row(table: Any, values: list[str]) -> None:
    cells = table.add_row().cells
    for cell, text in zip(cells, values, strict=True):
        cell.text = xml_safe(text)


def paper_stem(item: Item) -> str:
    if item.type == "cloze":
        return cloze_stem(item.stem).replace(BLANK, PAPER_BLANK)
    return item.stem


class _WordExporter(Exporter):
    extension = ".docx"

    def write(
        self, items: list[Item], path: Path, options: ExportOptions, result: ExportResult
    ) -> None:
        doc = open_template(options.template)
        self.fill(doc, items, options, int(result.seed or 0))
        result.count = len(items)
        doc.core_properties.title = xml_safe(options.title)
        doc.save(str(path))

    def fill(self, doc: Any, items: list[Item], options: ExportOptions, seed: int) -> None:
        raise NotImplementedError


class StudentDocxFormat(_WordExporter):
    name = "docx"
    title = "Word: student sheet"
    description = "Word quiz for students: numbered questions, shuffled lettered options"

    def fill(self, doc: Any, items: list[Item], options: ExportOptions, seed: int) -> None:
        _header_footer(doc, f"{options.title} · Form {seed}")
        _para(doc, options.title, "Quiz Title")
        _para(doc, "Name: " + "_" * 30 + "   Date: " + "_" * 14, "Quiz Instructions")
        if options.instructions:
            _para(doc, options.instructions, "Quiz Instructions")
        for number, item in enumerate(items, 1):
            question = _para(doc, paper_stem(item), "Quiz Question", bold_prefix=f"{number}. ")
            question.paragraph_format.keep_with_next = True
            if item.type in ("mcq", "tf"):
                ordered = shuffled_options(item, seed)
                for index, option in enumerate(ordered):
                    letter = LETTERS[index] if index < len(LETTERS) else str(index + 1)
                    line = _para(doc, option.text, "Quiz Option", bold_prefix=f"{letter}. ")
                    line.paragraph_format.keep_with_next = index < len(ordered) - 1
            elif item.type == "short":
                _para(doc, ANSWER_LINE, "Quiz Answer Line")
                _para(doc, ANSWER_LINE, "Quiz Answer Line")
            else:
                _para(doc, "Write the missing word(s) in the blank.", "Quiz Note")


class AnswerKeyDocxFormat(_WordExporter):
    name = "docx-key"
    title = "Word: answer key"
    description = "Word answer key: question number -> letter or answer, for the same seed"

    def fill(self, doc: Any, items: list[Item], options: ExportOptions, seed: int) -> None:
        _header_footer(doc, f"{options.title} · Answer key · Form {seed}")
        _para(doc, f"Answer key: {options.title}", "Quiz Title")
        _para(
            doc,
            f"Form {seed}: the letters match the student sheet exported with seed {seed}.",
            "Quiz Instructions",
        )
        table = _table(doc, ["No.", "Key", "Answer"])
        for number, item in enumerate(items, 1):
            choice = item.type in ("mcq", "tf")
            letter = key_letter(shuffled_options(item, seed)) if choice else "—"
            _row(table, [str(number), letter, item.key])


class ReportDocxFormat(_WordExporter):
    name = "docx-report"
    title = "Word: teacher review report"
    description = "Word report for the teacher: each item with its scores, flags and review"

    def fill(self, doc: Any, items: list[Item], options: ExportOptions, seed: int) -> None:
        _header_footer(doc, f"{options.title} · Review report")
        _para(doc, f"Review report: {options.title}", "Quiz Title")
        flagged = sum(1 for i in items if i.flags)
        statuses: dict[str, int] = {}
        for item in items:
            statuses[item.status] = statuses.get(item.status, 0) + 1
        summary = ", ".join(f"{n} {s}" for s, n in sorted(statuses.items()))
        _para(
            doc,
            f"{len(items)} items ({summary}); {flagged} flagged for review. Options are listed "
            f"in the order of the student sheet, form {seed}.",
            "Quiz Instructions",
        )
        for number, item in enumerate(items, 1):
            self._item(doc, number, item, options, seed)

    def _item(self, doc: Any, number: int, item: Item, options: ExportOptions, seed: int) -> None:
        label = f"{number}. " + (f"[#{item.id}] " if item.id is not None else "")
        _para(doc, item.stem, "Quiz Question", bold_prefix=label)
        details = f"Type: {item.type} · Status: {item.status}"
        if item.subject:
            details += f" · Subject: {item.subject}"
        _para(doc, details, "Quiz Note")
        if item.type in ("mcq", "tf"):
            for index, option in enumerate(shuffled_options(item, seed)):
                mark = " (key)" if option.is_key else ""
                _para(doc, option.text + mark, "Quiz Option", bold_prefix=f"{LETTERS[index]}. ")
        else:
            _para(doc, item.key, "Quiz Option", bold_prefix="Answer: ")
        if item.target_fact:
            _para(doc, item.target_fact, "Quiz Note", bold_prefix="Tested fact: ")
        if item.scores:
            table = _table(doc, ["Metric", "Score"])
            for name, score in sorted(item.scores.items()):
                if score.scored and score.value is not None:
                    value = f"{score.value:.3f}"
                else:
                    value = f"not scored: {score.not_scored_reason or 'no reason given'}"
                _row(table, [name, value])
        else:
            _para(doc, "Not scored yet.", "Quiz Note")
        for flag in item.flags:
            source = f" ({flag.metric})" if flag.metric else ""
            _para(
                doc,
                f"{flag.message or flag.code}{source}",
                "Quiz Note",
                bold_prefix=f"Flag, {flag.severity}: ",
            )
        if not item.flags:
            _para(doc, "No flags.", "Quiz Note")
        review = options.reviews.get(item.id) if item.id is not None else None
        if review is not None:
            text = review.decision
            if review.reason:
                text += f": {review.reason}"
            if review.note:
                text += f" ({review.note})"
            if review.created:
                text += f", {review.created[:10]}"
            _para(doc, text, "Quiz Note", bold_prefix="Latest review: ")
        else:
            _para(doc, f"No review yet (status {item.status}).", "Quiz Note")
