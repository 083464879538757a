"""The rule-made answer spans of a passage: every plausible (fact, answer) found by word lists
and patterns (`candidate_targets`), the targets for a model's key concepts by the same rules
(`concept_targets`), the terms a passage defines and its headings.

Generation no longer uses these: it reads the passage with a parser
(generation/analysis.py). They stay for the scoring signals alone (quality/signals.py: the
passage's other possible answers beside the key, and evaluation's NaCo variants), because the
shipped overall models were fitted on the spans these rules find; they go when the models are
refitted on the parser's constituents (issue 45).

Limits, by design of a rule-based finder: no part-of-speech tagger, so a noun phrase may start
with a participle ("the planned attack" -> "planned attack") or miss one that no determiner
introduces; lower-case named things ("the mitochondria") count as phrases, not entities;
number words ("seven") and relative dates ("last year") are not found; English only.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Final

from quizsmith.generation.distractor_kinds import singular
from quizsmith.generation.sentences import Sentence
from quizsmith.generation.target import MAX_ANSWER_WORDS, Target, TargetKind
from quizsmith.quality.rule_spans.phrases import (
    _content_word_frequency,
    _entities,
    _midsentence_capitalised,
    _noun_phrases,
)
from quizsmith.quality.rule_spans.words import (
    _DATE_PATTERNS,
    _NUMBER,
    _QUANTITY,
    _YEAR,
    PRONOUNS,
    STOPWORDS,
)

_BASE_SCORE: Final[dict[str, float]] = {
    "date": 0.85,
    "number": 0.8,
    "entity": 0.75,
    "phrase": 0.45,
    "concept": 0.9,
    # A term the passage defines ("a process called abrasion"): what a textbook section
    # teaches, and the question a teacher asks of it. Above the model's concepts, which on
    # bench/generation.py's textbook section were words like "Rivers" and "water".
    "term": 0.95,
    "pinned": 1.0,
}

#: "... called X", "... known as X", "... which is termed X": the passage names a term it has
#: just described. Lower-case terms only (a capitalised name is an entity, found apart), of up
#: to four words, ending at punctuation or a conjunction. Without these the 681-word textbook
#: section of bench/generation.py gave 10 candidate facts, none of them its nine defined
#: terms (abrasion, meanders, saltation, levées, distributaries ...), and 3 items of 5.
#: A bare "called" is also a verb ("She called the police", "called for reforms"): it counts
#: only after a comma, a form of "be", or a lower-case word that is no pronoun, and not
#: before "the", a pronoun or a preposition (`_defined_terms`); "The chair called a meeting"
#: still passes, a weak target the question checks and the estimate then judge.
_DEFINED_TERM = re.compile(
    r"(?:\b(?P<before>[A-Za-z]+,?)\s+)?"
    r"\b(?P<intro>called|known\s+as|termed|referred\s+to\s+as)\s+(?P<article>an?\s+|the\s+)?"
    r"(?P<term>[a-z][\w'-]*(?:\s+[a-z][\w'-]*){0,3}?)"
    r"(?=\s*[,.;:)!?]|\s*$|\s+(?:and|or|but|which|that|because|where|when|while)\b)"
)
_PASSIVE = frozenset(["is", "are", "was", "were", "be", "been", "being", "often", "also", "now"])


def _defined_terms(sentence: str) -> list[tuple[int, int, str | None]]:
    """Spans of the terms a sentence defines (see _DEFINED_TERM), each with the noun the
    passage calls it, singular ("bends known as meanders": "bend"; "which is called
    traction": None)."""
    spans: list[tuple[int, int, str | None]] = []
    for m in _DEFINED_TERM.finditer(sentence):
        term, before = m.group("term"), m.group("before") or ""
        if term.split()[0] in STOPWORDS or term.split()[0] in PRONOUNS:
            continue  # "called for reforms", "called his sister": "called" as a verb
        naming = before.endswith(",") or before.lower() in _PASSIVE  # ", called X" / "is called"
        if m.group("intro") == "called" and not naming:
            verb_like = not before or before[0].isupper() or before.lower() in PRONOUNS
            if verb_like or (m.group("article") or "").strip() == "the":
                continue
        noun = before.rstrip(",").lower()
        called = noun if noun.isalpha() and noun not in _PASSIVE and noun not in PRONOUNS else ""
        spans.append((m.start("term"), m.end("term"), singular(called) if called else None))
    return spans


def defined_terms(sentences: Iterable[Sentence]) -> dict[str, str | None]:
    """Every term the passage defines, in order, with the noun it calls it (`_defined_terms`):
    the passage's vocabulary, whether or not a target asks for it (the builder offers the
    others as wrong answers)."""
    terms: dict[str, str | None] = {}
    for sentence in sentences:
        for start, end, noun in _defined_terms(sentence.text):
            terms.setdefault(sentence.text[start:end], noun)
    return terms


#: A heading's length at most, in words ("How Rivers Shape the Land", "Chapter 3: Erosion").
HEADING_WORDS: Final = 12


def headings(sentences: Sequence[Sentence]) -> set[int]:
    """Indexes of the sentences that are headings: a paragraph of one line with no closing
    punctuation, every word of four letters or more capitalised. Not facts: "How Rivers Shape
    the Land" became a target ("Rivers Shape the Land") that took two of the textbook
    section's model calls and gave "What do rivers do?" (bench/generation.py). A list item in
    sentence case ("Rivers carry sediment downstream") stays a fact."""
    per_paragraph: dict[int, int] = {}
    for sentence in sentences:
        per_paragraph[sentence.paragraph] = per_paragraph.get(sentence.paragraph, 0) + 1
    found: set[int] = set()
    for sentence in sentences:
        words = re.findall(r"[^\W\d_][\w'’-]*", sentence.text)
        if (
            per_paragraph[sentence.paragraph] == 1
            and sentence.text.rstrip()[-1:] not in ".!?;,\"'”’)"
            and 0 < len(sentence.text.split()) <= HEADING_WORDS
            and all(w[0].isupper() for w in words if len(w) >= 4)
        ):
            found.add(sentence.index)
    return found


#: A page reference glued to the text it cites, as Wikipedia-derived passages keep them
#: ("... string theory.:212–219"): its numbers are not targets.
_CITATION: Final = re.compile(r"(?:(?<=[\w.\])])|^):\d+(?:\s?[–-]\s?\d+)?")


# -- finding candidates --------------------------------------------------------------------------


def candidate_targets(
    passage_text: str, sentences: Sequence[Sentence], *, skip_headings: bool = True
) -> list[Target]:
    """Every plausible (fact, answer) in the passage, best first within each sentence's order.

    `sentences` must be spans of `passage_text` (as `split_sentences` returns them). Headings
    are no facts (`headings`), unless `skip_headings` is False (a fact the teacher pinned).
    """
    _check_sentences(passage_text, sentences)
    midsentence_caps = _midsentence_capitalised(sentences)
    frequency = _content_word_frequency(sentences)
    n_sentences = max(len(sentences), 1)
    found: list[Target] = []
    skipped = headings(sentences) if skip_headings else set()
    for sentence in sentences:
        if sentence.index in skipped:
            continue
        spans: list[tuple[int, int, TargetKind, float]] = []

        def claim(start: int, end: int, kind: TargetKind, bonus: float = 0.0) -> None:
            _claim(spans, sentence.text, start, end, kind, bonus)  # noqa: B023 (called in-loop)

        for start, end, _ in _defined_terms(sentence.text):
            claim(start, end, "term")
        for pattern in _DATE_PATTERNS:
            for m in pattern.finditer(sentence.text):
                claim(m.start(), m.end(), "date", 0.05)
        for m in _YEAR.finditer(sentence.text):
            claim(m.start(), m.end(), "date")
        cited = [c.span() for c in _CITATION.finditer(sentence.text)]
        for m in _QUANTITY.finditer(sentence.text):
            if any(a <= m.start() < b for a, b in cited):
                continue  # page numbers of a citation (":212–219"), not a fact of the text
            has_unit = not re.fullmatch(rf"-?(?:{_NUMBER})", m.group())
            # A lone small integer ("number 7", "3 times") is a weak target; units make it real.
            weak = not has_unit and len(m.group().strip("-")) < 2
            claim(m.start(), m.end(), "number", 0.05 if has_unit else (-0.3 if weak else 0.0))
        for start, end, words in _entities(sentence.text, midsentence_caps):
            claim(start, end, "entity", 0.05 * min(words - 1, 2))
        for start, end, weight in _noun_phrases(sentence.text, frequency):
            claim(start, end, "phrase", weight)

        spans = _dedupe_answers(sentence.text, spans)
        # Earlier sentences slightly first: passages usually open with their main point.
        position = 0.05 * (1 - sentence.index / n_sentences)
        for start, end, kind, bonus in spans:
            answer = sentence.text[start:end]
            if not _usable_answer(answer, sentence.text):
                continue
            found.append(
                Target(
                    fact=sentence.text,
                    fact_start=sentence.start,
                    answer=answer,
                    answer_start=sentence.start + start,
                    kind=kind,
                    sentence_index=sentence.index,
                    score=round(min(1.0, max(0.0, _BASE_SCORE[kind] + bonus + position)), 4),
                )
            )
    found.sort(key=lambda t: (t.sentence_index, -t.score, t.answer_start))
    return found


def concept_targets(
    passage_text: str, sentences: Sequence[Sentence], concepts: Iterable[str]
) -> list[Target]:
    """Targets for key concepts proposed by a model: each concept found (case-insensitive,
    whole words, any whitespace) in a sentence becomes a target at its first occurrence, in
    the passage's own spelling. Concepts that do not occur are left out (models invent them).
    """
    _check_sentences(passage_text, sentences)
    targets: list[Target] = []
    seen: set[str] = set()
    facts = [s for s in sentences if s.index not in headings(sentences)]
    for rank, concept in enumerate(concepts):
        words = concept.split()
        key = " ".join(words).casefold()
        if not words or key in seen or len(words) > MAX_ANSWER_WORDS:
            continue
        seen.add(key)
        pattern = re.compile(
            r"(?<!\w)" + r"\s+".join(re.escape(w) for w in words) + r"(?!\w)", re.IGNORECASE
        )
        for sentence in facts:
            m = pattern.search(sentence.text)
            if m and _usable_answer(m.group(), sentence.text):
                targets.append(
                    Target(
                        fact=sentence.text,
                        fact_start=sentence.start,
                        answer=m.group(),
                        answer_start=sentence.start + m.start(),
                        kind="concept",
                        sentence_index=sentence.index,
                        # The model lists the most important concepts first.
                        score=round(max(0.5, _BASE_SCORE["concept"] - 0.02 * rank), 4),
                    )
                )
                break
    return targets


# -- helpers -------------------------------------------------------------------------------------


def _claim(
    spans: list[tuple[int, int, TargetKind, float]],
    sentence: str,
    start: int,
    end: int,
    kind: TargetKind,
    bonus: float,
) -> None:
    """Record a span unless an earlier (higher-priority) finder already took part of it:
    defined terms before dates before numbers before names before phrases."""
    start, end = _trim(sentence, start, end)
    if end > start and not any(s < end and start < e for s, e, _, _ in spans):
        spans.append((start, end, kind, bonus))


def _dedupe_answers(
    sentence: str, spans: list[tuple[int, int, TargetKind, float]]
) -> list[tuple[int, int, TargetKind, float]]:
    """One candidate per answer text in a sentence: its first occurrence."""
    seen: set[str] = set()
    kept = []
    for span in sorted(spans, key=lambda s: s[0]):
        key = sentence[span[0] : span[1]].casefold()
        if key not in seen:
            seen.add(key)
            kept.append(span)
    return kept


def _check_sentences(passage_text: str, sentences: Sequence[Sentence]) -> None:
    for s in sentences:
        if passage_text[s.start : s.end] != s.text:
            raise ValueError(
                f"sentence {s.index} is not the passage's text at {s.start}:{s.end}; split the "
                "same text that is passed here."
            )


def _trim(text: str, start: int, end: int) -> tuple[int, int]:
    """Drop surrounding spaces and punctuation that regexes may have taken along."""
    while start < end and (text[start].isspace() or text[start] in ",;:"):
        start += 1
    while end > start and (text[end - 1].isspace() or text[end - 1] in ",;:"):
        end -= 1
    return start, end


def _usable_answer(answer: str, sentence: str) -> bool:
    words = answer.split()
    if not words or len(words) > MAX_ANSWER_WORDS:
        return False
    if answer.strip(" .,;:!?\"'") == sentence.strip(" .,;:!?\"'"):
        return False
    lowered = answer.casefold()
    return lowered not in STOPWORDS and lowered not in PRONOUNS
