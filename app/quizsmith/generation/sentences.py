"""Splitting a passage into sentences that are exact, addressable spans of it.

Generation asks about one sentence (the "target fact") at a time and the KDA metric prepends
that fact to the question, so every sentence must be a verbatim slice of the passage:
`passage[s.start:s.end] == s.text`. pysbd (a rule-based port of the Golden Rules segmenter)
does the hard part: abbreviations (Dr., U.S., e.g., p.m.), decimals, initials, quotes and
ellipses. We run it per paragraph so that a heading or a list item without final punctuation
never swallows the sentence after it, and we locate its segments in the text ourselves because
pysbd's own `char_span` search can skip a sentence that occurs twice.

pysbd reads each paragraph without its web marks (`web_marks.unmarked`): it took a citation
mark after a full stop for more of the same sentence ("... in 1985.[14] The Aqueduct of
Segovia ..." was one sentence), and a fact that is two sentences lets the model read one's
"It" as the other's subject (a bench item asked when the Aqueduct of Segovia was listed, with
the Pont du Gard's year as its key). Removed, not blanked: blanks after a closing quote
(`." [7] Nation's`) keep pysbd from ending the sentence there. A mark between two sentences
belongs to neither.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from quizsmith.generation.web_marks import unmarked

# A blank line (possibly holding spaces) separates paragraphs; `text.normalise` writes exactly
# "\n\n", but callers may hand us raw pasted text too.
_PARAGRAPH_BREAK = re.compile(r"\n[^\S\n]*\n\s*")


@dataclass(frozen=True)
class Sentence:
    """One sentence of a text. `start`/`end` are character offsets into that text."""

    text: str
    start: int
    end: int
    #: 0-based index of the paragraph (non-empty block between blank lines) it lies in.
    paragraph: int
    #: 0-based position among all sentences of the text.
    index: int


def split_sentences(text: str) -> list[Sentence]:
    """Sentences of `text`, in order, never crossing a paragraph break, with offsets into
    `text` and no surrounding whitespace."""
    # Cheap to import, but kept out of the import path of `quizsmith --help` all the same.
    import pysbd

    segmenter = pysbd.Segmenter(language="en", clean=False)
    sentences: list[Sentence] = []
    for paragraph, (para_start, para_text) in enumerate(_paragraphs(text)):
        read, where = unmarked(para_text)
        for read_start, read_end in _align(read, segmenter.segment(read)):
            start, end = where[read_start], where[read_end - 1] + 1
            sentences.append(
                Sentence(
                    text=text[para_start + start : para_start + end],
                    start=para_start + start,
                    end=para_start + end,
                    paragraph=paragraph,
                    index=len(sentences),
                )
            )
    return sentences


def sentence_at(sentences: list[Sentence], offset: int) -> Sentence | None:
    """The sentence whose span contains character `offset`, if any."""
    for sentence in sentences:
        if sentence.start <= offset < sentence.end:
            return sentence
    return None


def _paragraphs(text: str) -> Iterator[tuple[int, str]]:
    """(offset, text) of each non-blank paragraph."""
    position = 0
    for match in _PARAGRAPH_BREAK.finditer(text):
        if text[position : match.start()].strip():
            yield position, text[position : match.start()]
        position = match.end()
    if text[position:].strip():
        yield position, text[position:]


def _align(paragraph: str, segments: list[str]) -> Iterator[tuple[int, int]]:
    """Offsets of pysbd's segments in `paragraph`, searched in order from the previous end.

    With `clean=False` pysbd returns verbatim pieces, so the search always succeeds in
    practice; should a future version rewrite a segment, the rest of the paragraph becomes
    one sentence rather than the offsets silently drifting.
    """
    cursor = 0
    for segment in segments:
        piece = segment.strip()
        if not piece:
            continue
        found = paragraph.find(piece, cursor)
        if found < 0:
            break
        cursor = found + len(piece)
        yield found, cursor
    rest = paragraph[cursor:]
    if rest.strip():
        start = cursor + len(rest) - len(rest.lstrip())
        yield start, cursor + len(rest.rstrip())
