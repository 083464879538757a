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
