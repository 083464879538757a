"""Word exports (python-docx): the student sheet, the answer key and the teacher report.

Why this module is long: the three Word exports share the template handling and the private
python-docx helpers (fields, tables whose rows never split, right-to-left paragraphs, pictures);
the three exporters themselves take under 200 lines.

All three open the template (`resources/templates/quiz-template.docx`, or the one given as
`ExportOptions.template`), keep its page set-up, styles, headers and footers, replace its
body, and write the quiz name in the header and "Page N of M" (PAGE / NUMPAGES fields) in the
footer. The student sheet and the key order options by the same seed over the same items
(`option_orders`), so the key's letters always match the sheet printed with that seed;
both show the seed as the form number.

The student sheet prints a passage before the first of its questions (by default when every
item comes from one passage; `ExportOptions.passages` says otherwise), the item's images, and
keeps each question with its options on one page. The key is a compact table whose header
repeats on every page and whose rows never split; it lists accepted alternatives and
numerical tolerances. TeX math (`\\( x^2 \\)`) is printed as readable text (`x²`).
"""

from __future__ import annotations

import io
import zipfile
import zlib
from pathlib import Path
from typing import Any

from quizsmith.domain import Item, Passage
from quizsmith.formats.base import (
    BLANK,
    Exporter,
    ExportOptions,
    ExportResult,
    FormatError,
    answer_details,
    cloze_stem,
    is_rtl,
    key_letter,
    letter,
    xml_safe,
)
from quizsmith.formats.mathtext import readable_math
from quizsmith.formats.option_order import OptionOrders, option_orders
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
    from lxml import etree  # type: ignore[import-untyped]  # python-docx parses with it

    path = template or default_template()
    if template is None and not path.is_file():
        doc = Document()  # the template was removed from an install: python-docx's default
    else:
        if not path.is_file():
            raise FormatError(
                "The Word template does not exist.", "Check the --template path.", file=path
            )
        _refuse_a_template_too_big(path)
        try:
            doc = Document(str(path))
        except (PackageNotFoundError, KeyError, ValueError, OSError) as exc:
            raise FormatError(
                f"This is not a Word .docx file that can be used as a template ({exc}).",
                "Save the template in Word as 'Word Document (.docx)' (not .dotx or .doc).",
                file=path,
            ) from None
        except (zipfile.BadZipFile, zlib.error, EOFError, etree.XMLSyntaxError) as exc:
            # A .docx cut short (an interrupted copy) or with a damaged part inside.
            raise FormatError(
                f"The Word template is damaged and cannot be read ({type(exc).__name__}: {exc}).",
                "Open it in Word and save it again as 'Word Document (.docx)', or leave out "
                "--template to use the built-in one.",
                file=path,
            ) from None
    body = doc.element.body
    for child in list(body):
        if child.tag != qn("w:sectPr"):
            body.remove(child)
    return doc


def _refuse_a_template_too_big(path: Path) -> None:
    """A template whose parts unpack to gigabytes is refused before python-docx reads it (a
    0.5 MB template reached 1.08 GB of memory)."""
    from quizsmith.unpack import zip_problem

    try:
        problem = zip_problem(path)
    except (zipfile.BadZipFile, OSError, EOFError):
        return  # not a zip at all: python-docx's own error says so below
    if problem:
        raise FormatError(
            f"The Word template cannot be used: {problem}.",
            "Use a template of a few pages and styles (save an empty document with your page "
            "set-up and styles), or leave out --template to use the built-in one.",
            file=path,
        )


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
    text = readable_math(text)
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


def _table(doc: Any, header: list[str], widths: list[float] | None = None) -> Any:
    """A table whose header row repeats on each page; `widths` in inches (Word ignores the
    table's own grid unless every cell carries its width)."""
    from docx.oxml import OxmlElement
    from docx.shared import Inches

    table = doc.add_table(rows=1, cols=len(header))
    if "Table Grid" in {s.name for s in doc.styles}:
        table.style = doc.styles["Table Grid"]
    if widths:
        table.autofit = False
        for column, width in zip(table.columns, widths, strict=True):
            column.width = Inches(width)
    for cell, text in zip(table.rows[0].cells, header, strict=True):
        cell.text = ""
        cell.paragraphs[0].add_run(text).bold = True
    row_pr = table.rows[0]._tr.get_or_add_trPr()
    row_pr.append(OxmlElement("w:tblHeader"))
    _no_split(table.rows[0])
    _set_widths(table.rows[0], widths)
    return table


def _no_split(row: Any) -> None:
    from docx.oxml import OxmlElement

    row._tr.get_or_add_trPr().append(OxmlElement("w:cantSplit"))


def _set_widths(row: Any, widths: list[float] | None) -> None:
    from docx.shared import Inches

    if widths:
        for cell, width in zip(row.cells, widths, strict=True):
            cell.width = Inches(width)


def _row(table: Any, values: list[str], widths: list[float] | None = None) -> None:
    row = table.add_row()
    for cell, text in zip(row.cells, values, strict=True):
        cell.text = xml_safe(readable_math(text))
    _no_split(row)
    _set_widths(row, widths)


def answer_text(item: Item) -> str:
    """The answer as a teacher marks it: the key, a numerical tolerance, and every other
    accepted answer with its credit."""
    text = item.numeric.describe() if item.numeric is not None else item.key
    details = answer_details(item, numeric=False)
    return f"{text}; {details}" if details else text


def _pictures(doc: Any, item: Item) -> None:
    import io

    from docx.image.exceptions import UnrecognizedImageError
    from docx.shared import Inches

    for media in item.media:
        if not media.is_image:
            _para(doc, f"[Sound: {media.name}, played by the teacher]", "Quiz Note")
            continue
        try:
            doc.add_picture(io.BytesIO(media.data), width=Inches(3))
        except (UnrecognizedImageError, ValueError, KeyError, ZeroDivisionError):
            _para(doc, f"[Picture {media.name} could not be printed]", "Quiz Note")
            continue
        doc.paragraphs[-1].paragraph_format.keep_with_next = True


def _passage_groups(items: list[Item]) -> dict[int, tuple[Passage, int]]:
    """First item index of each passage -> (passage, index of its last consecutive item)."""
    starts: dict[int, tuple[Passage, int]] = {}
    index = 0
    while index < len(items):
        passage = items[index].passage
        end = index
        while (
            passage is not None
            and end + 1 < len(items)
            and items[end + 1].passage is not None
            and items[end + 1].passage.text == passage.text  # type: ignore[union-attr]
        ):
            end += 1
        if passage is not None and passage.text.strip():
            starts[index] = (passage, end)
        index = end + 1
    return starts


def metric_meaning(name: str) -> tuple[str, str]:
    """(title, what the number means and where it flags) of a metric, from its registry
    entry; a metric that is not installed is shown by its name alone."""
    try:
        from quizsmith.metrics import registry

        metric = registry.get(name)
    except Exception:  # an uninstalled plug-in's scores are still printed
        return name, ""
    meaning = metric.description
    weak = metric.defaults.get("weak_below")
    if isinstance(weak, int | float):
        meaning += f" Flagged below {weak:g}."
    return metric.title or name, meaning


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
        self.fill(doc, items, options, option_orders(items, int(result.seed or 0)))
        result.count = len(items)
        doc.core_properties.title = xml_safe(options.title)
        # Built in memory, then written in one go: python-docx leaves its zip file open when
        # a write fails (a full disk), and the zip's own clean-up then printed "Exception
        # ignored ... OSError" after the proper error.
        buffer = io.BytesIO()
        doc.save(buffer)
        path.write_bytes(buffer.getvalue())

    def fill(
        self, doc: Any, items: list[Item], options: ExportOptions, orders: OptionOrders
    ) -> None:
        raise NotImplementedError


class StudentDocxFormat(_WordExporter):
    name = "docx"
    title = "Word: student sheet"
    order = 10  # what teachers reach for first
    description = "Word quiz for students: numbered questions, shuffled lettered options"

    def fill(
        self, doc: Any, items: list[Item], options: ExportOptions, orders: OptionOrders
    ) -> None:
        seed = orders.seed
        _header_footer(doc, f"{options.title} · Form {seed}")
        _para(doc, options.title, "Quiz Title")
        _para(doc, "Name: " + "_" * 30 + "   Date: " + "_" * 14, "Quiz Instructions")
        if options.instructions:
            _para(doc, options.instructions, "Quiz Instructions")
        groups = _passage_groups(items)
        show = options.passages
        if show is None:
            # Default: a reading-comprehension sheet, i.e. every item about one passage.
            show = len(groups) == 1 and all(i.passage is not None for i in items)
        for number, item in enumerate(items, 1):
            if show and number - 1 in groups:
                passage, last = groups[number - 1]
                which = (
                    f"question {number}"
                    if last == number - 1
                    else (f"questions {number}-{last + 1}")
                )
                heading = passage.title or "Read the passage"
                note = _para(doc, f"{heading} (for {which}):", "Quiz Question")
                note.paragraph_format.keep_with_next = True
                for text in passage.text.split("\n"):
                    if text.strip():
                        _para(doc, text.strip(), "Quiz Instructions")
            self._question(doc, number, item, orders)

    @staticmethod
    def _question(doc: Any, number: int, item: Item, orders: OptionOrders) -> None:
        lines = [_para(doc, paper_stem(item), "Quiz Question", bold_prefix=f"{number}. ")]
        lines[0].paragraph_format.keep_with_next = True
        _pictures(doc, item)
        if item.type in ("mcq", "tf"):
            for index, option in enumerate(orders.of(item)):
                label = f"{letter(index)}. "
                lines.append(_para(doc, option.text, "Quiz Option", bold_prefix=label))
        elif item.type == "short":
            lines.append(_para(doc, ANSWER_LINE, "Quiz Answer Line"))
            lines.append(_para(doc, ANSWER_LINE, "Quiz Answer Line"))
        else:
            lines.append(_para(doc, "Write the missing word(s) in the blank.", "Quiz Note"))
        # One question never splits across pages: every line but the last keeps with the next.
        for line in lines:
            line.paragraph_format.keep_together = True
            line.paragraph_format.keep_with_next = line is not lines[-1]


class AnswerKeyDocxFormat(_WordExporter):
    name = "docx-key"
    title = "Word: answer key"
    order = 20
    description = "Word answer key: question number -> letter or answer, for the same seed"

    def fill(
        self, doc: Any, items: list[Item], options: ExportOptions, orders: OptionOrders
    ) -> None:
        seed = orders.seed
        _header_footer(doc, f"{options.title} · Answer key · Form {seed}")
        _para(doc, f"Answer key: {options.title}", "Quiz Title")
        _para(
            doc,
            # In a teacher's words: "seed" meant nothing to the teachers who tried it.
            f"Form {seed}: the letters match the student sheet marked “Form {seed}” "
            "(each form orders the options its own way).",
            "Quiz Instructions",
        )
        widths = [0.6, 0.6, 5.3]
        table = _table(doc, ["No.", "Key", "Answer"], widths)
        for number, item in enumerate(items, 1):
            choice = item.type in ("mcq", "tf")
            mark = key_letter(orders.of(item)) if choice else "—"
            _row(table, [str(number), mark, answer_text(item)], widths)


class ReportDocxFormat(_WordExporter):
    name = "docx-report"
    title = "Word: teacher review report"
    order = 30
    needs_reviews = True
    description = "Word report for the teacher: each item with its scores, flags and review"

    def fill(
        self, doc: Any, items: list[Item], options: ExportOptions, orders: OptionOrders
    ) -> None:
        seed = orders.seed
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
            self._item(doc, number, item, options, orders)

    def _item(
        self, doc: Any, number: int, item: Item, options: ExportOptions, orders: OptionOrders
    ) -> None:
        label = f"{number}. " + (f"[#{item.id}] " if item.id is not None else "")
        head = _para(doc, item.stem, "Quiz Question", bold_prefix=label)
        head.paragraph_format.keep_with_next = True
        details = f"Type: {item.type} · Status: {item.status}"
        if item.subject:
            details += f" · Subject: {item.subject}"
        _para(doc, details, "Quiz Note").paragraph_format.keep_with_next = True
        if item.type in ("mcq", "tf"):
            for index, option in enumerate(orders.of(item)):
                mark = " (key)" if option.is_key else ""
                if option.credit and not option.is_key:
                    mark = f" ({option.credit:g}% credit)"
                label = f"{letter(index)}. "
                line = _para(doc, option.text + mark, "Quiz Option", bold_prefix=label)
                line.paragraph_format.keep_with_next = True
        else:
            line = _para(doc, answer_text(item), "Quiz Option", bold_prefix="Answer: ")
            line.paragraph_format.keep_with_next = True
        if item.target_fact:
            _para(doc, item.target_fact, "Quiz Note", bold_prefix="Tested fact: ")
        if item.scores:
            widths = [1.0, 1.6, 3.9]
            table = _table(doc, ["Metric", "Score", "What it means"], widths)
            for name, score in sorted(item.scores.items()):
                if score.scored and score.value is not None:
                    value = f"{score.value:.3f}"
                else:
                    value = f"not scored: {score.not_scored_reason or 'no reason given'}"
                title, meaning = metric_meaning(name)
                _row(table, [title, value, meaning], widths)
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
