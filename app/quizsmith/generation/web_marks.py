"""What a web page leaves in a pasted passage that is no part of its text: citation marks
("[12]", "[citation needed]", "[a]", a heading's "[edit]", cleanup tags such as "[update]" and
"[when?]"), page references glued to a sentence (".: 8.1", ".:212–219") and pronunciation
guides ("(/ˈkiːtʃuːluːb/ KEE-choo-loob)", "(Italian: [paˈlattso])"). `masked` blanks them
out with spaces of the same length, so every offset into the passage still holds: the
analysis parses the masked text, and an answer is never one of these marks.

These are patterns of web markup, not of English: the parser has no notion of them, and a
page reference reads to it as a number ("8.1" became a key, issue 44).
"""

from __future__ import annotations

import re
from typing import Final

_MARKS: Final = re.compile(
    # [12], [12][13], [a], [note 3], [citation needed], [12]: 45, a heading's [edit]; the
    # cleanup tags "[update]" (of "as of January 2013[update]": a study key kept it),
    # "[dubious – discuss]" and a question's "[when?]", "[according to whom?]". An editor's
    # own words in brackets ("[She]", "[i.e. Nicholas I]") are text and stay.
    r"\[(?:\d{1,3}|[a-z]|note \d+|edit|update|dubious – discuss|[a-z ]{4,25}needed"
    r"|[a-z ]{3,25}\?)\](?::\s?[\d–-]+)?"
    # ".: 8.1" / ".:212–219" after a sentence's last mark
    r"|(?<=[.!?\]\)]):\s?\d+(?:\.\d+)?(?:\s?[–-]\s?\d+)?"
    # a parenthesis that opens with a phonetic transcription or a language's name and a
    # bracketed pronunciation
    r"|\((?:[^()]{0,40}:\s*)?[/\[][^()]{1,80}[/\]][^()]{0,60}\)",
)


def masked(text: str) -> str:
    """`text` with its web marks replaced by spaces (same length, same offsets)."""
    return _MARKS.sub(lambda m: " " * len(m.group()), text)


def plain(text: str) -> str:
    """`text` without its web marks, its spacing made plain (one space between words): a
    phrase or sentence read on its own, where no offset needs to hold."""
    return " ".join(masked(text).split())


def unmarked(text: str) -> tuple[str, list[int]]:
    """`text` without its web marks, and where each of its characters (and its end) is in
    `text`: for a reader that must not see the marks at all, where blanks would still
    change its reading (`sentences.split_sentences`)."""
    kept: list[str] = []
    where: list[int] = []
    at = 0
    for mark in _MARKS.finditer(text):
        kept.append(text[at : mark.start()])
        where.extend(range(at, mark.start()))
        at = mark.end()
    kept.append(text[at:])
    where.extend(range(at, len(text) + 1))
    return "".join(kept), where
