"""Plain text <-> the small HTML that learning platforms store question text in.

Quizsmith items are plain text. Going out, text is HTML-escaped and line breaks become <br>,
so "a < b & c" shows as written. Coming in, HTML written by a platform or a teacher is reduced
to text: block ends and <br> become line breaks, other tags are dropped, entities decoded.
"""

from __future__ import annotations

import html
import re

from quizsmith.errors import quoted

# Every pattern here reads imported text, so each runs in linear time (issue 48): none starts
# with an unbounded run of characters it may also match further on (`\s*<p` was tried from
# every one of 100,000 spaces, 141 s), and a tag's body stops at the next "<" as well as at
# ">", so a file of "<" without ">" is not scanned to its end once per "<". Whitespace next to
# line breaks and block tags is taken off with str methods on the pieces between them.
_RAW_NEWLINES = re.compile(r"[\r\n]+")
_BREAK = re.compile(r"<br\s*/?>", re.IGNORECASE)
_BLOCK = re.compile(r"</?(?:p|div|li|ul|ol|h[1-6]|tr|table|blockquote)\b[^<>]*>", re.I)
_TAG = re.compile(r"<[^<>]*>")


def text_to_html(text: str) -> str:
    return html.escape(text, quote=False).replace("\n", "<br>")


def _trimmed(pieces: list[str], strip: str | None) -> list[str]:
    """The pieces between separators, without the `strip` characters next to a separator
    (None: whitespace); the text's own start and end are left as they are."""
    if len(pieces) < 2:
        return pieces
    middle = [p.strip(strip) for p in pieces[1:-1]]
    return [pieces[0].rstrip(strip), *middle, pieces[-1].lstrip(strip)]


def html_to_text(markup: str) -> str:
    text = markup
    if "<" in markup:
        # Raw line breaks in HTML are spaces (with the spaces and tabs around them); only
        # markup makes a line break.
        text = " ".join(_trimmed(_RAW_NEWLINES.split(markup), " \t"))
    text = _BREAK.sub("\n", text)
    # A block boundary is a line break that takes the whitespace around it along, and
    # consecutive boundaries (</p><p>) make one line break, not several.
    pieces = _trimmed(_BLOCK.split(text), None)
    text = pieces[0] if len(pieces) == 1 else "\n".join(p for p in pieces if p)
    text = _TAG.sub("", text)
    return html.unescape(text).strip()


_MEDIA = re.compile(r"<(img|audio|video|source|embed|object)\b[^<>]*>", re.IGNORECASE)
_SRC = re.compile(r"""\b(?:src|data)\s*=\s*["']([^"']*)["']""", re.IGNORECASE)


def media_refs(markup: str) -> list[tuple[str, str]]:
    """(kind, file name) of each image, sound or video the HTML shows."""
    found = []
    for match in _MEDIA.finditer(markup):
        kind = "image" if match.group(1).lower() == "img" else "sound or video"
        src = _SRC.search(match.group(0))
        name = src.group(1).rsplit("/", 1)[-1] if src else ""
        found.append((kind, html.unescape(name) or "(no file name)"))
    return found


def media_note(
    markup: str, notes: list[str], kept: set[str] | None = None, why: str = "GIFT carries no files"
) -> None:
    """Add a note per image or sound the HTML shows that the import does not keep (a
    question that shows a flag must not arrive silently without it)."""
    for kind, name in media_refs(markup):
        if kept is not None and name in kept:
            continue
        reason = "Quizsmith keeps images only" if kind != "image" and kept is not None else why
        notes.append(
            f"{kind} {quoted(name)} dropped ({reason}); check the question still makes sense."
        )
