"""Plain text <-> the small HTML that learning platforms store question text in.

Quizsmith items are plain text. Going out, text is HTML-escaped and line breaks become <br>,
so "a < b & c" shows as written. Coming in, HTML written by a platform or a teacher is reduced
to text: block ends and <br> become line breaks, other tags are dropped, entities decoded.
"""

from __future__ import annotations

import html
import re

_RAW_NEWLINES = re.compile(r"[ \t]*[\r\n]+[ \t]*")
_BREAK = re.compile(r"<br\s*/?>", re.IGNORECASE)
_BLOCK = re.compile(r"\s*</?(?:p|div|li|ul|ol|h[1-6]|tr|table|blockquote)\b[^>]*>\s*", re.I)
_TAG = re.compile(r"<[^>]*>")
_BLOCK_MARK = "\x00"  # never in XML text, so it cannot clash with the content


def text_to_html(text: str) -> str:
    return html.escape(text, quote=False).replace("\n", "<br>")


def html_to_text(markup: str) -> str:
    # Raw line breaks in HTML are spaces; only markup makes a line break.
    text = _RAW_NEWLINES.sub(" ", markup) if "<" in markup else markup
    text = _BREAK.sub("\n", text)
    # Consecutive block boundaries (</p><p>) make one line break, not several.
    text = _BLOCK.sub(_BLOCK_MARK, text)
    text = re.sub(f"{_BLOCK_MARK}+", _BLOCK_MARK, text).strip(_BLOCK_MARK)
    text = _TAG.sub("", text.replace(_BLOCK_MARK, "\n"))
    return html.unescape(text).strip()


_MEDIA = re.compile(r"<(img|audio|video|source|embed|object)\b[^>]*>", re.IGNORECASE)
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
        notes.append(f"{kind} {name!r} dropped ({reason}); check the question still makes sense.")
