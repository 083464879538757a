"""Turning a file or pasted text into a `Passage`, or refusing it with the fix.

Supported: plain text (.txt), Markdown (.md, .markdown), Word (.docx) and PDF (.pdf). Every
route ends in `text.normalise` (NFC, one space between words, paragraphs separated by exactly
one blank line) and `text.check_passage` (not empty, at most `MAX_PASSAGE_CHARS`), so a passage
from any source looks the same to sentence splitting and to the item bank's passage hash.

Encodings of text files (see `text.decode_text`): UTF-8 with or without BOM and UTF-16 with a
BOM decode as they are; anything else is read as Windows-1252 (a superset of Latin-1's
printable range) only when the result is clearly text, otherwise the teacher is told how to
re-save the file as UTF-8. Files with NUL bytes and no UTF-16 BOM are refused as binary.

Nothing is created when a check fails: every function either returns a complete `Passage` or
raises `PassageError` (a `QuizsmithError`, so the GUI and CLI show message and fix as is).
"""

from __future__ import annotations

import re
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from quizsmith.domain import Passage
from quizsmith.generation.markdown_text import atx_heading, inline_markdown
from quizsmith.text import (
    MAX_PASSAGE_CHARS,
    PassageError,
    check_passage,
    check_regular_file,
    decode_text,
    normalise,
)
from quizsmith.unpack import zip_problem

SUPPORTED_SUFFIXES = (".txt", ".md", ".markdown", ".docx", ".pdf")

#: Characters that survive copy-paste and PDF extraction but mean nothing in a passage (soft
#: hyphen, zero-width space/joiners, a stray BOM), and the typographic ligatures PDFs emit.
#: NFKC would fix the ligatures too, but it also rewrites "km²" as "km2" and "½" as "1⁄2".
_INVISIBLE = dict.fromkeys(map(ord, "\u00ad\u200b\u200c\u200d\u2060\ufeff"))
_LIGATURES = {
    ord("\ufb00"): "ff",
    ord("\ufb01"): "fi",
    ord("\ufb02"): "fl",
    ord("\ufb03"): "ffi",
    ord("\ufb04"): "ffl",
    ord("\ufb05"): "st",
    ord("\ufb06"): "st",
}

#: Stop reading a long PDF/Word file once the text is this long: it will be refused anyway, and
#: extracting a 600-page book would keep the teacher waiting for nothing.
_EXTRACT_CAP = 2 * MAX_PASSAGE_CHARS
#: Paragraphs of a Word file read at most (table cells' included, empty ones too): a 50,000-
#: character passage has a few thousand; a file of 500,000 empty paragraphs fits in 3 KB and
#: took 76 s to walk.
_MAX_DOCX_PARAGRAPHS = 20_000
#: A text file this large is refused before it is read: even with generous whitespace it
#: cannot fit the limit, and a multi-gigabyte file dropped by mistake must not be loaded.
_MAX_TEXT_FILE_BYTES = 20 * MAX_PASSAGE_CHARS


def passage_from_text(text: str, title: str = "", subject: str | None = None) -> Passage:
    """A passage from pasted text: normalised, checked, with the title as given."""
    body = check_passage(normalise(_clean(text)))
    return Passage(text=body, title=" ".join(title.split()), subject=subject)


def load_passage(
    path: Path | str, *, title: str | None = None, subject: str | None = None
) -> Passage:
    """Import a passage file; the title defaults to the document's own title (Word core
    property, PDF metadata), else its first heading, else the file name without extension."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in SUPPORTED_SUFFIXES:
        kind = f"{suffix} files" if suffix else "Files without an extension"
        fix = "Save it as one of: " + ", ".join(SUPPORTED_SUFFIXES) + "."
        if suffix in (".doc", ".rtf", ".odt", ".pages"):
            fix = "Open it in Word or LibreOffice and save it as .docx, or as plain text (.txt)."
        raise PassageError(f"{kind} cannot be imported ({path.name}).", fix)
    if not path.exists():
        raise PassageError(f"{path} does not exist.", "Check the file name and folder.")
    check_regular_file(path)
    if suffix == ".docx":
        raw_text, found_title = _read_docx(path)
    elif suffix == ".pdf":
        raw_text, found_title = _read_pdf(path)
    else:
        raw_text, found_title = _read_text(path, markdown=suffix in (".md", ".markdown"))
    try:
        body = check_passage(normalise(_clean(raw_text)))
    except PassageError as exc:
        raise PassageError(f"{path.name}: {exc.message}", exc.fix) from None
    chosen = title if title is not None else (found_title or path.stem)
    return Passage(
        text=body,
        title=" ".join(chosen.split()),
        subject=subject,
        source_file=str(path),
    )


def _clean(text: str) -> str:
    return text.translate(_INVISIBLE).translate(_LIGATURES)


def _read_bytes(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except PermissionError:
        raise PassageError(
            f"{path.name} cannot be read: permission denied.",
            "Check the file's permissions, or copy it to your Documents folder.",
        ) from None
    except OSError as exc:
        raise PassageError(
            f"{path.name} cannot be read: {exc.strerror or exc}.",
            "Check that the file is not open elsewhere or on a disconnected drive.",
        ) from None


# -- plain text and Markdown -------------------------------------------------------------------

_MD_SETEXT = re.compile(r"^\s{0,3}(=+|-+)\s*$")
_LIST_ITEM = re.compile(r"^\s*(?:[-*+•]|\d{1,3}[.)])\s+")
_MD_BULLET = re.compile(r"^\s*[-*+]\s+")


def _read_text(path: Path, *, markdown: bool) -> tuple[str, str]:
    try:
        size = path.stat().st_size
    except OSError:
        size = 0
    if size > _MAX_TEXT_FILE_BYTES:
        raise PassageError(
            f"{path.name} is {size / 1e6:.1f} MB; a passage may have at most "
            f"{MAX_PASSAGE_CHARS:,} characters.",
            "Split it into sections (a chapter or a few pages each) and import them one at a time.",
        )
    text = decode_text(_read_bytes(path), path.name)
    return _markdown_blocks(text) if markdown else (_list_blocks(text), "")


def _list_blocks(text: str) -> str:
    """Give list items their own paragraph, since `normalise` would otherwise glue "- a\\n- b"
    into one line that the sentence splitter cannot take apart."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    return "\n".join(f"\n{line}\n" if _LIST_ITEM.match(line) else line for line in lines)


def _markdown_blocks(text: str) -> tuple[str, str]:
    """Markdown to plain paragraphs: headings and list items become their own paragraphs,
    markup that a student would never see (#, **, links' URLs, bullets) is dropped.
    Returns (text, first heading)."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    out: list[str] = []
    first_heading = ""
    in_code = False
    for i, line in enumerate(lines):
        if line.lstrip().startswith("```"):
            in_code = not in_code
            continue
        if in_code:
            continue  # code blocks are not passage prose
        title = atx_heading(line)
        heading = title is not None
        nxt = lines[i + 1] if i + 1 < len(lines) else ""
        if title is not None:
            line = title
        elif line.strip() and _MD_SETEXT.match(nxt) and not _LIST_ITEM.match(line):
            heading = True
        elif _MD_SETEXT.match(line) and out and out[-1].strip() == "":
            continue  # the underline of a setext heading, already handled
        if heading:
            text_line = inline_markdown(line).strip()
            first_heading = first_heading or text_line
            out.extend(["", text_line, ""])
            if title is None:
                lines[i + 1] = ""  # drop the setext underline
            continue
        if _LIST_ITEM.match(line):
            out.extend(["", inline_markdown(_MD_BULLET.sub("", line)), ""])
            continue
        out.append(inline_markdown(line))
    return "\n".join(out), first_heading


# -- Word ----------------------------------------------------------------------------------------


def _read_docx(path: Path) -> tuple[str, str]:
    import docx  # heavy (lxml); only when a Word file is actually opened

    damaged = PassageError(
        f"{path.name} is not a readable Word document (it is damaged, or another kind of file "
        "renamed to .docx).",
        "Open it in Word or LibreOffice and save it again as .docx, or paste its text instead.",
    )
    _read_bytes(path)  # permission problems get their own message, not "damaged"
    if not zipfile.is_zipfile(path):
        raise damaged
    try:
        too_big = zip_problem(path)
    except (zipfile.BadZipFile, OSError, EOFError):
        raise damaged from None
    if too_big:
        raise PassageError(
            f"{path.name} cannot be read as a passage: {too_big}.",
            "Open it in Word and save the part you need as a new document, or paste its text "
            "instead.",
        )
    try:
        document = docx.Document(str(path))
    except Exception:  # python-docx raises KeyError, ValueError, lxml errors ... for bad parts
        raise damaged from None
    paragraphs = int(document.element.body.xpath("count(.//w:p)"))
    if paragraphs > _MAX_DOCX_PARAGRAPHS:
        raise PassageError(
            f"{path.name} holds {paragraphs:,} paragraphs; a passage may have at most "
            f"{_MAX_DOCX_PARAGRAPHS:,} (and {MAX_PASSAGE_CHARS:,} characters).",
            "Split it into sections (a chapter or a few pages each) and import them one at a time.",
        )
    blocks: list[str] = []
    first_heading = ""
    size = 0
    for text, is_heading in _docx_blocks(document, {}):
        text = text.strip()
        if not text:
            continue
        if is_heading and not first_heading:
            first_heading = text
        blocks.append(text)
        size += len(text)
        if size > _EXTRACT_CAP:
            break
    core_title = (document.core_properties.title or "").strip()
    return "\n\n".join(blocks), core_title or first_heading


def _docx_blocks(container: Any, style_names: dict[str, str]) -> Iterator[tuple[str, bool]]:
    """(text, is heading) for each paragraph, and each paragraph of each table cell, in
    document order. A merged cell is listed once per grid cell it spans; it is read once.
    `style_names` caches style id -> name: python-docx looks a paragraph's style up in the
    styles part every time it is asked (most of the time spent on a long document)."""
    from docx.table import Table

    for block in container.iter_inner_content():
        if isinstance(block, Table):
            # Holding the elements (not their id()) keeps lxml's proxies alive, so identity
            # stays meaningful while we compare.
            seen: set[Any] = set()
            for row in block.rows:
                for cell in row.cells:
                    if cell._tc not in seen:
                        seen.add(cell._tc)
                        yield from _docx_blocks(cell, style_names)
        else:
            style_id = block._p.style or ""
            if style_id not in style_names:
                style = block.style
                style_names[style_id] = (style.name if style is not None else "") or ""
            yield block.text, style_names[style_id].startswith(("Heading", "Title"))


# -- PDF -----------------------------------------------------------------------------------------

# "exam-\nple" was one word broken at a line end; "well-\nKnown" or "1990-\n2000" are left alone
# because only a lower-case continuation is a safe sign of a typesetting hyphen.
_HYPHEN_BREAK = re.compile(r"(?<=[^\W\d_])-[^\S\n]*\n[^\S\n]*(?=[a-zß-ÿ])")
_SENTENCE_END = re.compile(r"[.!?:;\"”’)\]]\s*$")


def _read_pdf(path: Path) -> tuple[str, str]:
    import pypdf
    from pypdf.errors import PdfReadError

    _read_bytes(path)
    damaged = PassageError(
        f"{path.name} is not a readable PDF (it is damaged, or another kind of file renamed "
        "to .pdf).",
        "Open it in a PDF viewer and save or print it as a new PDF, or paste its text instead.",
    )
    locked = PassageError(
        f"{path.name} is password-protected.",
        "Open it with its password in a PDF viewer and save an unprotected copy "
        "(or paste its text instead).",
    )
    try:
        reader = pypdf.PdfReader(str(path))
        if reader.is_encrypted:
            # Many PDFs are encrypted only against editing and open with an empty password.
            try:
                if not reader.decrypt(""):
                    raise locked
            except PassageError:
                raise
            except Exception:
                raise locked from None
        pages = list(reader.pages)
    except PassageError:
        raise
    except (PdfReadError, ValueError, KeyError, TypeError, OSError, AttributeError):
        raise damaged from None
    except Exception:  # pypdf has no single base error for malformed files
        raise damaged from None
    texts: list[str] = []
    size = 0
    for page in pages:
        try:
            page_text = page.extract_text() or ""
        except Exception:  # one broken page (bad font, bad stream) must not lose the rest
            page_text = ""
        texts.append(page_text)
        size += len(page_text)
        if size > _EXTRACT_CAP:
            break
    if not any(t.strip() for t in texts):
        raise PassageError(
            f"{path.name} has no text that can be extracted; it may be scanned pages (images).",
            'Run OCR first (e.g. "Recognize text" in your PDF viewer, or ocrmypdf) and import '
            "the result, or paste the text instead.",
        )
    title = ""
    try:
        metadata = reader.metadata
        title = str(metadata.get("/Title") or "").strip() if metadata else ""
    except Exception:  # a broken Info dictionary only costs us the title
        title = ""
    return _join_pdf_lines(texts), title


def _join_pdf_lines(pages: list[str]) -> str:
    """PDF text has a line break at the end of every printed line and rarely a blank line
    between paragraphs. Rejoin words hyphenated at a line end; mark a paragraph break after a
    short line followed by one that starts like a new block (a paragraph's last line, a
    heading, a list item); the other single breaks become spaces in `normalise`. A page that
    ends mid-sentence runs on into the next page."""
    joined = ""
    for page in pages:
        page = _paragraph_breaks(page.replace("\r\n", "\n").replace("\r", "\n").strip())
        if not page:
            continue
        if joined:
            joined += "\n\n" if _SENTENCE_END.search(joined) else "\n"
        joined += page
    return _HYPHEN_BREAK.sub("", joined)


#: A line shorter than this share of the page's full line width ends its block. Justified and
#: ragged-right body lines are rarely below 70% of the longest lines.
_SHORT_LINE = 0.7
_BLOCK_OPENERS = '"“‘(•-–*'


def _paragraph_breaks(page: str) -> str:
    lines = page.split("\n")
    widths = sorted(len(line.strip()) for line in lines if line.strip())
    if len(widths) < 3:
        return page
    # The 90th percentile is the full measure; the very longest line may be an outlier.
    full = widths[int(0.9 * (len(widths) - 1))]
    out: list[str] = []
    for i, line in enumerate(lines):
        out.append(line)
        nxt = lines[i + 1] if i + 1 < len(lines) else ""
        if (
            line.strip()
            and nxt.strip()
            and len(line.strip()) < _SHORT_LINE * full
            and not line.rstrip().endswith("-")
            and _starts_block(nxt)
        ):
            out.append("")
    return "\n".join(out)


def _starts_block(line: str) -> bool:
    first = line.lstrip()[:1]
    return first.isupper() or first.isdigit() or (first != "" and first in _BLOCK_OPENERS)
