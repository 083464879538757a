"""Checks of a written question against its key and its source sentence, beyond the
giveaway and copy checks of `writer.stem_problem`, which runs them: a wh-word that asks for
another kind of thing than the key (`asks_for_other_kind`), a thing the question points at
without naming it (`unnamed_referent`), several things asked where the key is one
(`asks_for_several`), "which ... is not ...?" from a sentence that negates nothing
(`negated_against`), and "similar to what?" from a sentence that compares nothing
(`likeness_against`). Each returns why the question cannot be used, or "". Found by reading the
generation bench's items (docs/generation.md, step 4).
"""

from __future__ import annotations

import re

from quizsmith.generation.analysis import parse_phrase
from quizsmith.generation.answer_kinds import kind_of
from quizsmith.generation.parser import parse

_ASKS_TIME = re.compile(
    r"\b(when|what year|which year|what date|which century|what century|"
    r"how long ago|in what year|what decade)\b",
    re.IGNORECASE,
)
_ASKS_YEAR = re.compile(r"\b(?:what|which)\s+year\b", re.IGNORECASE)
_NAMES_A_PERIOD = re.compile(r"\b(?:centur(?:y|ies)|decades?|millenni(?:um|a))\b", re.IGNORECASE)
_ASKS_AMOUNT = re.compile(
    r"\bhow (many|much|long|far|old|large|big|high|tall|fast)\b|"
    r"\bwhat (percentage|proportion|number|amount)\b",
    re.IGNORECASE,
)
_ASKS_PERSON_OR_PLACE = re.compile(
    r"^\s*(who|whom|whose|where)\b|\bwhat is the name\b|\bname of the\b", re.IGNORECASE
)


def answer_kind(answer: str) -> str:
    """`kind_of`, with the parser's reading of a number or date written in words: "fifteen",
    "two studio albums" and "three months" are numbers (a count, of time units too),
    "fourteenth-century" and "the second half of the third season" times (read as a year:
    "when" and "in which century" ask for them). `kind_of` finds digits only, so "How many
    fraternities ...? fifteen" was rejected as asking for an amount the key is not. Of 3,948
    QGEval and SQuAD questions, 64 with such keys were rejected, 27 of them written by
    people; now 1 is (the `word_form_keys` study, studies/README.md)."""
    kind = kind_of(answer)
    if kind not in ("name", "phrase"):
        return kind
    read = parse_phrase(answer)
    if read is None or read.kind not in ("number", "date"):
        return kind
    root = parse(answer)[:].root
    counts = any(child.dep_ == "nummod" for child in root.children)
    return "number" if read.kind == "number" or counts else "year"


def asks_for_other_kind(stem: str, answer: str) -> str:
    """A question whose wh-word asks for another kind of thing than the key is (a "when"
    question with a name as its key) does not have the key as its answer."""
    kind = answer_kind(answer)
    if kind in ("year", "date"):
        if _ASKS_AMOUNT.search(stem) or _ASKS_PERSON_OR_PLACE.search(stem):
            return "the question asks for something other than a date"
        if kind == "date" and _ASKS_YEAR.search(stem):
            # "In which year was it first aired?" with the key "August 1999": "October 1999"
            # is right too (generation-readings-6f607a1.txt, git history, item 8).
            return "the question asks for a year, but the key is a date within one"
    elif kind == "number":
        # "the 20th century" is a number and a time: "In which century ...?" fits it.
        asks_time = _ASKS_TIME.search(stem) and not _NAMES_A_PERIOD.search(answer)
        if asks_time or _ASKS_PERSON_OR_PLACE.search(stem):
            return "the question asks for something other than a number"
    elif _ASKS_TIME.search(stem) or _ASKS_AMOUNT.search(stem):
        return "the question asks for a date or an amount, but the key is neither"
    return ""


#: "What are the three jobs ...?", "Which two rivers ...?": a question for several things.
#: "Which of the three jobs ...?" asks for one and stays.
_ASKS_SEVERAL = re.compile(
    r"\b(?:what|which)\s+(?:(?:are|were)\s+)?(?:the\s+)?"
    r"(two|three|four|five|six|seven|eight|nine|ten|several|both)\s+[a-z-]+s\b",
    re.IGNORECASE,
)


def asks_for_several(stem: str, answer: str) -> str:
    """Why the question asks for several things where the key is one ("" when it does not):
    "What are the three jobs described by geographers ...?" with the key "erosion" (the
    standard profile's item on bench/generation.py's textbook section at b007ecf). A key that
    lists ("erosion and deposition", "Mars, Venus") fits it."""
    match = _ASKS_SEVERAL.search(stem)
    if not match or " and " in f" {answer} " or "," in answer:
        return ""
    return (
        f"the question asks for {match.group(1).lower()} things, but the key is one "
        f"(\u201c{answer}\u201d)"
    )


#: "Which process does not ...?", "What military force did not ...?": a question for the one
#: thing of which something is not so ("not only" is no negation).
_ASKS_WHICH_NOT = re.compile(
    r"^\s*(?:which|what)\b[^?]*?\b(?:is|are|was|were|do|does|did|has|have|had|can|could|"
    r"would|will)(?:\s+not\b(?!\s+only)|n't\b)",
    re.IGNORECASE,
)
_NEGATION = re.compile(r"\b(?:not|never|no|neither|nor|none|except|without)\b|n't\b", re.IGNORECASE)


def negated_against(stem: str, fact: str) -> str:
    """Why a "which ... is not ...?" question cannot have the key of a sentence that negates
    nothing ("" when it can): the sentence states the key positively, so the key is one of
    those of which it is so. Both such questions of the standard profile's bench items at
    14d4272 were bad ("Which process does not describe how valleys ... look?", key erosion),
    and in QGEval the three of this shape whose answer sentence negates nothing were rated
    1.0, 2.7 and 1.7 for answer consistency (mean of all questions 2.6), where the 30 whose
    sentence does negate read like the rest ("What type of plants do not require light to
    form chloroplasts?", 3.0). A direction, not a measurement (n 3)."""
    if not _ASKS_WHICH_NOT.search(stem) or _NEGATION.search(fact):
        return ""
    return "the question asks for what is not so, but its source sentence states the key positively"


#: A question asking what something resembles ("... move in a way that is similar to what?").
_ASKS_LIKENESS = re.compile(
    r"\b(?:similar to|resembles?|resembling|like|compared to|compared with)\s+(?:what|which)\b",
    re.IGNORECASE,
)
#: A sentence that compares: only then is "similar to what?" one it answers.
_COMPARES = re.compile(
    r"\b(?:similar|like|likes|resembl\w*|compar\w*|as if|as though|akin)\b", re.IGNORECASE
)


def likeness_against(stem: str, fact: str) -> str:
    """Why a question asking what something resembles cannot have the key of a sentence that
    compares nothing ("" when it can): the sentence names the key ("... in a series of short
    jumps, called saltation"), so the key is what the thing is, not what it is like.
    "Pebbles in a series of short jumps move in a way that is similar to what?" (key
    saltation) was a standard bench item at 4082bbf and 402a529, read bad both times; QGEval
    has no question of this shape to measure it on."""
    if not _ASKS_LIKENESS.search(stem) or _COMPARES.search(fact):
        return ""
    return "the question asks what something is like, but its source sentence compares nothing"


#: "this endeavor", "these jobs": a demonstrative pointing at something the passage named.
#: Capitalised only at the start, so a title ("This American Life") is not one.
_DEMONSTRATIVE = re.compile(r"\b(?:[Tt]his|[Tt]hese|[Tt]hose)\s+([A-Za-z]+)")
#: Words after "those"/"this" that make no reference back ("those who ...", "this is ...").
_NO_REFERENCE_AFTER = frozenset(
    ["who", "whom", "that", "which", "of", "in", "is", "was", "are", "were"]
)


def unnamed_referent(stem: str) -> str:
    """Why the question points at something it does not name ("What do geographers group
    these jobs together to explain?"; "" when it does not): the student sees the question,
    not the sentence it came from. Read as faults in the generation bench's items
    (docs/generation.md); in QGEval, where raters saw the passage, the 21 questions with such
    a phrase were rated unclear four times as often as the rest (19% against 5%). A phrase
    whose noun the question names earlier ("10 Years is a band ... this band") refers back
    within the question and stays."""
    for match in _DEMONSTRATIVE.finditer(stem):
        if match.group(0)[0] == "T" and match.start() > 0:
            continue
        noun = match.group(1).lower()
        if noun in _NO_REFERENCE_AFTER:
            continue
        stem_before = stem[: match.start()].lower()
        if re.search(rf"\b{re.escape(noun.rstrip('s'))}", stem_before):
            continue
        return (
            f"it refers to \u201c{match.group(0)}\u201d without naming it (a student who sees "
            "only the question cannot tell what is meant)"
        )
    return ""
