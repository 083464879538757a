"""Targets from the passage analysis (generation/analysis.py): every constituent of a sentence
that states something is a candidate answer, with that sentence as its fact; a model's key
concepts count only where one of them is a constituent of the passage.

The rule-made spans of quality/rule_spans serve the scoring signals alone (finder.py there
says why they stay).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from typing import Final

from quizsmith.generation.analysis import (
    Constituent,
    PassageAnalysis,
    fact_sentences,
    whole_phrases,
)
from quizsmith.generation.target import Target, TargetKind
from quizsmith.metrics.squad import normalize_answer

#: A constituent's kind as a target's: what choose_targets varies and scores by.
_TARGET_KIND: Final[dict[str, TargetKind]] = {
    "name": "entity",
    "number": "number",
    "date": "date",
    "term": "term",
    "phrase": "phrase",
}
#: Base values by kind, as the rule finder has them (quality/rule_spans/finder.py): a term the
#: passage defines first (what a textbook section teaches), then dates, numbers, names; noun
#: phrases last, raised by how often their head recurs (the passage's key terms).
_BASE: Final[dict[str, float]] = {
    "term": 0.95,
    "concept": 0.9,
    "date": 0.85,
    "number": 0.8,
    "entity": 0.75,
    "phrase": 0.45,
}
#: What each further mention of a phrase's head noun adds, up to three.
RECURRING_HEAD = 0.1
#: A bare count of one digit ("3 times") is a weak answer; a unit makes it a fact.
BARE_DIGIT_COST = 0.3


def passage_targets(analysis: PassageAnalysis) -> list[Target]:
    """Every (fact, constituent) of the passage, in sentence order, best first within each."""
    n = max(len(analysis.sentences), 1)
    found: list[Target] = []
    for sentence in fact_sentences(analysis):
        if _lacks_subject(sentence.text):
            continue
        position = 0.05 * (1 - sentence.index / n)
        seen: set[str] = set()
        for c in analysis.in_sentence(sentence.index):
            if c.text.casefold() in seen or _whole_sentence(c, sentence.text):
                continue
            seen.add(c.text.casefold())
            kind = _TARGET_KIND[c.kind]
            score = _BASE[kind] + _bonus(c, analysis) + position
            found.append(_target(c, sentence.text, sentence.start, kind, score))
    found.sort(key=lambda t: (t.sentence_index, -t.score, t.answer_start))
    return found


def concept_targets(analysis: PassageAnalysis, concepts: Iterable[str]) -> list[Target]:
    """A model's key concepts, in its order, that are constituents of a fact sentence, each at
    its first occurrence; an invented concept or a cut through a clause gives none."""
    facts = {s.index: s for s in fact_sentences(analysis)}
    targets: list[Target] = []
    seen: set[str] = set()
    for rank, concept in enumerate(concepts):
        wanted = " ".join(concept.split()).casefold()
        if not wanted or wanted in seen:
            continue
        seen.add(wanted)
        for c in analysis.constituents:
            sentence = facts.get(c.sentence_index)
            if sentence is not None and c.text.casefold() == wanted:
                score = max(0.5, _BASE["concept"] - 0.02 * rank)
                targets.append(_target(c, sentence.text, sentence.start, "concept", score))
                break
    return targets


def followed_target(
    analysis: PassageAnalysis, target: Target, answer: str, avoid: set[str]
) -> Target | None:
    """`target` with the answer a model wrote for its fact, where that answer is a whole
    constituent of the fact (case, articles and punctuation aside) not in `avoid` (keys
    already asked, casefolded); None where it is none."""
    wanted = normalize_answer(answer)
    if not wanted:
        return None
    askable = [
        c
        for c in analysis.constituents
        if target.fact_start <= c.start
        and c.end <= target.fact_end
        and c.text.casefold() not in avoid
    ]
    exact = [c for c in askable if normalize_answer(c.text) == wanted]
    # Else a count the model gave without the noun it counts ("118" of "118 confirmed
    # elements"): the key is the passage's number with its noun, the form its wrong answers
    # then share.
    counted = [
        c
        for c in askable
        if c.kind == "number" and normalize_answer(c.text).startswith(f"{wanted} ")
    ]
    if exact or counted:
        c = (exact or counted)[0]
        return replace(target, answer=c.text, answer_start=c.start, kind=_TARGET_KIND[c.kind])
    # A whole noun chunk or entity with its qualifier ("less than 100 millimetres" where the
    # constituent is "100 millimetres"): the model asks for the fact as stated, and an
    # answer-aware question about the bare number read it as a minimum (2026-11-29).
    for a, b in whole_phrases(analysis, target.fact_start, target.fact_end):
        text = analysis.text[a:b]
        if normalize_answer(text) == wanted and text.casefold() not in avoid:
            inner = next(c for c in analysis.constituents if a <= c.start and c.end <= b)
            kind = _TARGET_KIND[inner.kind]
            return replace(target, answer=text, answer_start=a, kind=kind)
    return None


def _target(c: Constituent, fact: str, fact_start: int, kind: TargetKind, score: float) -> Target:
    return Target(
        fact=fact,
        fact_start=fact_start,
        answer=c.text,
        answer_start=c.start,
        kind=kind,
        sentence_index=c.sentence_index,
        score=round(min(1.0, max(0.0, score)), 4),
    )


def _bonus(c: Constituent, analysis: PassageAnalysis) -> float:
    if c.kind == "phrase":
        return RECURRING_HEAD * min(analysis.head_counts[c.head] - 1, 3)
    if c.kind == "name":
        return 0.05 * min(len(c.text.split()) - 1, 2)
    if c.kind == "number" and not c.head and len(c.text.strip("-")) < 2:
        return -BARE_DIGIT_COST
    return 0.0


def _whole_sentence(c: Constituent, sentence: str) -> bool:
    return c.text.strip(" .,;:!?\"'") == sentence.strip(" .,;:!?\"'")


def _lacks_subject(sentence: str) -> bool:
    """A fragment of two words or fewer ("See below.") holds no fact to ask about."""
    return len(sentence.split()) <= 2
