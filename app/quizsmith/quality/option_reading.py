"""How an option reads where the key stands: spaCy's parse of it (quality/option_checks.py).

An option is read in the key's place: the item's sentence with the blank filled (a
fill-in-the-blank item), else the passage's sentence that holds the key (a question whose key
the passage states), else on its own. The pipeline is the one the passage analysis
uses (`generation/parser.py`), loaded once per process and parsed under its lock.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from spacy.tokens import Doc, Token

    from quizsmith.generation.sentences import Sentence

#: Where an option was read: in the key's sentence, or on its own.
Reading = Literal["sentence", "alone"]
_BLANK = re.compile(r"_{3,}")


@dataclass(frozen=True)
class Form:
    """How one option reads where it was read."""

    pos: str
    tag: str
    entity: str
    number: bool


def _parse(texts: Sequence[str]) -> list[Doc]:
    from quizsmith.generation.parser import parse_many

    return parse_many(texts)


@lru_cache(maxsize=1024)
def _alone(text: str) -> Doc:
    return _parse([text])[0]


def _bare(text: str) -> str:
    """A token without the punctuation around it (".How" -> "how"; "felt------" -> "felt")."""
    chars = list(text.casefold())
    while chars and unicodedata.category(chars[0]).startswith("P"):
        chars.pop(0)
    while chars and unicodedata.category(chars[-1]).startswith("P"):
        chars.pop()
    return "".join(chars)


def words(text: str) -> tuple[str, ...]:
    """The option's words, lower case, without determiners and punctuation: what a duplicate
    shares ("The Nile." and "nile" are the same answer)."""
    clean = " ".join(text.split())
    if not clean:
        return ()
    doc = _alone(clean)
    kept = tuple(b for t in doc if t.pos_ != "DET" and (b := _bare(t.text)))
    return kept or tuple(b for t in doc if (b := _bare(t.text))) or (clean.casefold(),)


@lru_cache(maxsize=16)
def passage_words(passage: str) -> tuple[str, ...]:
    from quizsmith.generation.parser import tokenize

    doc = tokenize(passage)
    return tuple(b for t in doc if (b := _bare(t.text)))


def holds(passage_words: Sequence[str], wanted: Sequence[str]) -> bool:
    """Whether `wanted` occurs in `passage_words` as a run."""
    n = len(wanted)
    return n > 0 and any(
        tuple(passage_words[i : i + n]) == tuple(wanted)
        for i in range(len(passage_words) - n + 1)
        if passage_words[i] == wanted[0]
    )


def _head(doc: Doc, start: int, end: int) -> tuple[Token | None, list[Token]]:
    """The head word of the characters [start, end) of `doc` (the word there whose own head
    lies outside them), with the span's tokens; None when no word lies there."""
    tokens = [t for t in doc if t.idx < end and t.idx + len(t.text) > start and not t.is_space]
    found = [t for t in tokens if not t.is_punct] or tokens
    inside = {t.i for t in found}
    for token in found:
        if token.head.i not in inside or token.head.i == token.i:
            return token, tokens
    return (found[0] if found else None), tokens


def _form(doc: Doc, start: int, end: int) -> Form | None:
    head, tokens = _head(doc, start, end)
    if head is None:
        return None
    number = any(t.like_num for t in tokens) or head.ent_type_ in ("CARDINAL", "QUANTITY")
    return Form(head.pos_, head.tag_, head.ent_type_, number)


@lru_cache(maxsize=16)
def _sentences(passage: str) -> list[Sentence]:
    from quizsmith.generation.sentences import split_sentences

    return split_sentences(passage)


def _slot(stem: str, key: str, passage: str) -> tuple[str, int] | None:
    """A sentence with the key's place taken out, as (text, place): the item's own blank,
    else the passage's first sentence that holds the key as whole words."""
    blank = _BLANK.search(stem)
    if blank is not None:
        return stem[: blank.start()] + stem[blank.end() :], blank.start()
    if not key.strip() or not passage:
        return None
    found = re.search(rf"(?<!\w){re.escape(key.strip())}(?!\w)", passage)
    if found is None:
        return None
    from quizsmith.generation.sentences import sentence_at

    sentence = sentence_at(_sentences(passage), found.start())
    if sentence is None:
        return None
    at = found.start() - sentence.start
    return sentence.text[:at] + sentence.text[at + len(found.group()) :], at


def read_forms(
    stem: str, key: str, options: Sequence[str], passage: str = ""
) -> tuple[list[Form | None], Reading]:
    """Each option's form read in the key's place (a blank in `stem`, else the passage's
    sentence holding the key) or, where there is none, on its own."""
    clean = [" ".join(o.split()) for o in options]
    slot = _slot(stem, key, passage)
    if slot is None:
        return [_form(_alone(c), 0, len(c)) if c else None for c in clean], "alone"
    text, at = slot
    docs = _parse([text[:at] + c + text[at:] for c in clean])
    return [
        _form(doc, at, at + len(c)) if c else None for doc, c in zip(docs, clean, strict=True)
    ], "sentence"
