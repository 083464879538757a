"""Choosing what to ask about: among the targets (fact + answer) the passage analysis gives
(generation/constituent_targets.py), the ones a quiz asks, with the teacher's pins.

Coverage first (one target per sentence before a second in any), then the target's own value,
less what repeats an earlier answer's kind, a list member's or an answer asked before costs.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Sequence

from quizsmith.generation.analysis import PassageAnalysis, analyse
from quizsmith.generation.sentences import Sentence, split_sentences
from quizsmith.generation.target import Target, TargetKind
from quizsmith.text import PassageError

# -- choosing ------------------------------------------------------------------------------------

#: Taken off the value of a target whose answer an earlier run asked about: more than any
#: target's score (0-1) and jitter, so every answer not asked before comes first.
ASKED_PENALTY = 2.0
#: What each earlier answer of the same kind costs a target: a quiz of ten dates is dull.
REPEAT_COST = 0.08
#: The terms a passage defines cost less: they are what a textbook section teaches. At 0.08
#: the textbook section of bench/generation.py (nine defined terms) had four of them left out
#: of its ten targets (slip-off slope, levées, distributaries, estuary) for "river", "main
#: river", "Rivers" and "River Thames", which gave no item or a weak one.
TERM_REPEAT_COST = 0.02
#: Taken off a name, phrase or term that is one member of a list in its own sentence ("a
#: supergroup consisting of Bob Dylan, George Harrison, ... and Tom Petty"): a question
#: about it cannot single it out, since the list's other members answer it too. On QGEval
#: (studies/README.md, list_member_keys) such questions were accepted 0.23 [0.12, 0.35] of the time
#: against 0.69 [0.65, 0.73] for the rest (105 questions of 7 passages against 2,895 of 193);
#: on bench/generation.py two of the standard profile's three bad items were of this shape
#: ("Which job explains ...?", key erosion of "erosion, transportation and deposition").
#: 0.3 puts such a target below the passage's other names and terms (most score 0.8-1.0),
#: so it is asked about only when they run out; numbers and dates are exempt ("the first in
#: 1988 and the second in 1990": each is asked about on its own).
LIST_MEMBER_COST = 0.3
_LISTED_KINDS = frozenset({"entity", "phrase", "concept", "term"})


def listed_member(target: Target, analysis: PassageAnalysis) -> bool:
    """Whether the target's answer is one member of a list in its own sentence, which the
    list's other members answer too (`LIST_MEMBER_COST`; numbers and dates exempt)."""
    return target.kind in _LISTED_KINDS and bool(
        analysis.siblings(target.answer, sentence=target.fact)
    )


def choose_targets(
    candidates: Sequence[Target],
    n: int,
    *,
    pinned_facts: Sequence[str] = (),
    pinned_answers: Sequence[str] = (),
    seed: int = 0,
    passage_text: str | None = None,
    sentences: Sequence[Sentence] | None = None,
    asked_answers: Sequence[str] = (),
    asked_facts: Sequence[str] = (),
) -> list[Target]:
    """Up to `n` targets that cover the passage: the teacher's pins first, then one target per
    sentence (best sentences first, varying the kinds of answer) before any sentence gets a
    second one. Answers are not repeated. The same inputs and seed give the same list.

    `asked_answers` and `asked_facts` are what earlier runs on the passage asked about:
    sentences holding none of those facts come first, and among the rest, answers not
    asked before; the asked ones are chosen only when the passage has nothing else
    ("Generate" again wrote the same questions, issue 27).

    Pins are checked against `passage_text` (and its `sentences`, split here when omitted);
    without it, only the sentences that have candidates can be searched. A pinned answer must
    occur in the passage and a pinned fact must be a sentence or span of it, else
    `PassageError` says which one and why.
    """
    if n <= 0:
        return []
    rng = random.Random(seed)
    if passage_text is not None and sentences is None:
        sentences = split_sentences(passage_text)
    chosen = _pinned_targets(
        candidates, pinned_facts, pinned_answers, passage_text, list(sentences or [])
    )
    used_answers = {t.answer.casefold() for t in chosen}
    covered = {t.sentence_index for t in chosen}
    # Sentences asked about before count as covered: the first round goes to the others.
    covered |= {t.sentence_index for t in candidates if _asked_fact(t.fact, asked_facts)}
    asked = {" ".join(a.split()).casefold() for a in asked_answers}

    # A small seeded jitter breaks ties and lets another seed pick among near-equal targets.
    jitter = {id(t): rng.uniform(0.0, 0.03) for t in candidates}
    by_sentence: dict[int, list[Target]] = {}
    for target in candidates:
        by_sentence.setdefault(target.sentence_index, []).append(target)
    kind_count = Counter(t.kind for t in chosen)

    # Read once, before the rounds: `value` runs for every open candidate in each of them.
    # The parser's lists: the whole passage's where it is given, else each fact's own.
    listed = {id(t) for t in candidates if listed_member(t, analyse(passage_text or t.fact))}

    def value(t: Target) -> float:
        repeat = ASKED_PENALTY if " ".join(t.answer.split()).casefold() in asked else 0.0
        cost = TERM_REPEAT_COST if t.kind == "term" else REPEAT_COST
        member = LIST_MEMBER_COST if id(t) in listed else 0.0
        return t.score + jitter[id(t)] - cost * kind_count[t.kind] - repeat - member

    while len(chosen) < n:
        open_ = {
            i: [t for t in ts if t.answer.casefold() not in used_answers]
            for i, ts in by_sentence.items()
        }
        open_ = {i: ts for i, ts in open_.items() if ts}
        if not open_:
            break
        fresh = {i: ts for i, ts in open_.items() if i not in covered}
        if not fresh:
            # Every sentence with a candidate left holds a target: start the next round.
            covered.clear()
            fresh = open_
        best = max(
            (t for ts in fresh.values() for t in ts),
            key=lambda t: (value(t), -t.sentence_index, -t.answer_start),
        )
        chosen.append(best)
        used_answers.add(best.answer.casefold())
        covered.add(best.sentence_index)
        kind_count[best.kind] += 1
    return chosen


def _asked_fact(fact: str, asked_facts: Sequence[str]) -> bool:
    """Whether a sentence is one an earlier item tested (its target fact is the sentence, a
    part of it, or holds it), compared without case and spacing."""
    key = " ".join(fact.split()).casefold()
    for asked in asked_facts:
        other = " ".join(asked.split()).casefold()
        if other and (other in key or key in other):
            return True
    return False


def _pinned_targets(
    candidates: Sequence[Target],
    pinned_facts: Sequence[str],
    pinned_answers: Sequence[str],
    passage_text: str | None,
    sentences: list[Sentence],
) -> list[Target]:
    if not sentences:
        # Without the passage, the candidates' facts are the sentences we know about.
        known = {t.sentence_index: (t.fact_start, t.fact) for t in candidates}
        sentences = [
            Sentence(text=f, start=s, end=s + len(f), paragraph=0, index=i)
            for i, (s, f) in sorted(known.items())
        ]
    text = passage_text if passage_text is not None else _sparse_passage(sentences)
    pinned: list[Target] = []
    answers_left = [a for a in (" ".join(a.split()) for a in pinned_answers) if a]
    for raw_fact in pinned_facts:
        if not raw_fact.strip():
            continue
        start, end = _find_flexible(text, raw_fact)
        if start < 0:
            raise PassageError(
                f'The pinned fact "{_short(raw_fact)}" is not in the passage.',
                "Pin a sentence (or part of one) copied from the passage, or edit the passage.",
            )
        fact = text[start:end]
        # Prefer a pinned answer inside this fact, then the best candidate inside it.
        answer_at = -1
        answer = ""
        kind: TargetKind = "pinned"
        for a in answers_left:
            s, e = _find_flexible(fact, a)
            if s >= 0:
                answer_at, answer = start + s, fact[s:e]
                answers_left.remove(a)
                break
        if answer_at < 0:
            inside = [t for t in candidates if start <= t.answer_start and t.answer_end <= end]
            if inside:
                best = max(inside, key=lambda t: (t.score, -t.answer_start))
                answer_at, answer = best.answer_start, best.answer
            elif parts := [
                c for c in analyse(text).constituents if start <= c.start < c.end <= end
            ]:
                # A pinned heading or caption: no fact by itself, but the teacher chose it.
                answer_at, answer = parts[0].start, parts[0].text
            else:
                # Nothing answer-like inside: the fact itself is the target (true/false items).
                answer_at, answer = start, fact
        pinned.append(
            Target(
                fact=fact,
                fact_start=start,
                answer=answer,
                answer_start=answer_at,
                kind=kind,
                sentence_index=_sentence_index(sentences, start),
                score=1.0,
            )
        )
    for raw_answer in answers_left:
        s, e = _find_flexible(text, raw_answer)
        if s < 0:
            raise PassageError(
                f'The pinned answer "{_short(raw_answer)}" does not occur in the passage.',
                "Pin a word or phrase exactly as the passage has it, or edit the passage.",
            )
        first = _sentence_covering(sentences, s)
        last = _sentence_covering(sentences, e - 1)
        if first is None or last is None:
            raise PassageError(
                f'The pinned answer "{_short(raw_answer)}" is not inside a sentence.',
                "Pin a word or phrase from the passage's sentences.",
            )
        pinned.append(
            Target(
                fact=text[first.start : last.end],
                fact_start=first.start,
                answer=text[s:e],
                answer_start=s,
                kind="pinned",
                sentence_index=first.index,
                score=1.0,
            )
        )
    return pinned


# -- helpers -------------------------------------------------------------------------------------


def _sparse_passage(sentences: Sequence[Sentence]) -> str:
    """The known sentences at their offsets, spaces elsewhere (offsets stay valid)."""
    if not sentences:
        return ""
    chars = [" "] * max(s.end for s in sentences)
    for s in sentences:
        chars[s.start : s.end] = s.text
    return "".join(chars)


def _find_flexible(text: str, needle: str) -> tuple[int, int]:
    """First occurrence of `needle` in `text`: exact, else ignoring case and whitespace."""
    needle = needle.strip()
    if not needle:
        return -1, -1
    at = text.find(needle)
    if at >= 0:
        return at, at + len(needle)
    words = needle.split()
    m = re.search(
        r"(?<!\w)" * bool(re.match(r"\w", words[0]))
        + r"\s+".join(re.escape(w) for w in words)
        + r"(?!\w)" * bool(re.search(r"\w$", words[-1])),
        text,
        re.IGNORECASE,
    )
    return (m.start(), m.end()) if m else (-1, -1)


def _sentence_covering(sentences: Sequence[Sentence], offset: int) -> Sentence | None:
    for s in sentences:
        if s.start <= offset < s.end:
            return s
    return None


def _sentence_index(sentences: Sequence[Sentence], offset: int) -> int:
    found = _sentence_covering(sentences, offset)
    return found.index if found is not None else -1


def _short(text: str, limit: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
