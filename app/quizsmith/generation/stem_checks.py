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
from typing import TYPE_CHECKING, Final

from quizsmith.generation.analysis import read_in_sentence
from quizsmith.generation.answer_kinds import kind_of
from quizsmith.generation.parser import parse

if TYPE_CHECKING:
    from spacy.tokens import Token

#: The nouns by which "what/which ...?" asks for a time ("In what year ...?", "Which
#: century ...?"): a matter of meaning the parser does not say (measured with the rest of
#: `asks_for_other_kind` in the `question_kinds` study).
TIME_NOUNS: Final = frozenset({"year", "century", "decade", "date", "month", "day", "era"})
#: The entity types no "when" or "how many" asks for.
_NAME_LABELS: Final = frozenset({"PERSON", "ORG", "GPE", "LOC", "NORP", "FAC"})
_WH_TAGS: Final = frozenset({"WDT", "WP", "WP$", "WRB"})


def asked_for(stem: str) -> tuple[str, str] | None:
    """What the question's own wh-word asks for, from the parse: ("someone", "") for who,
    whom, whose; ("time", noun) for when ("") or what/which year, century ... (the noun);
    ("place", "") for where; ("amount", "") for how many, how much, how old ...; ("name",
    "") for "What is the name of ...?" and "What name ...?"; else None.
    A wh-word inside a clause of its own is not the question's ("How many times did he have
    surgery when he was on the show?" asks for an amount: the "when" is the clause's)."""
    wh = next((t for t in parse(stem) if t.tag_ in _WH_TAGS and not _in_a_clause(t)), None)
    word = wh.lower_ if wh is not None else ""
    if wh is None or word not in ("who", "whom", "whose", "when", "where", "how", "what", "which"):
        return None
    if word.startswith("who"):
        return ("someone", "")
    if word in ("when", "where"):
        return ("time" if word == "when" else "place", "")
    if word == "how":
        follows = wh.head.i == wh.i + 1 and wh.head.pos_ in ("ADJ", "ADV")
        return ("amount", "") if follows else None
    noun = wh.head.lemma_.lower()
    if _asks_a_name(wh):
        return ("name", "")
    return ("time", noun) if wh.dep_ == "det" and noun in TIME_NOUNS else None


def _asks_a_name(wh: Token) -> bool:
    """ "What name did ...?" (the wh-word determines "name"), or "What is the (full) name of
    ...?" (the wh-word the attribute of a copula whose subject is "name")."""
    if wh.dep_ == "det":
        return wh.head.lemma_.lower() == "name"
    return wh.dep_ == "attr" and any(
        c.dep_ == "nsubj" and c.lemma_.lower() == "name" for c in wh.head.children
    )


def _in_a_clause(token: Token) -> bool:
    """Whether a wh-word stands in a clause below the question's own: a relative or an
    adverbial clause ("the year when ...", "... when he was five")."""
    return any(a.dep_ in ("relcl", "advcl", "acl") for a in [token, *token.ancestors][:-1])


def asks_for_other_kind(stem: str, answer: str, fact: str = "") -> str:
    """Why the question's wh-word asks for another kind of thing than the key is ("" when
    it does not): someone asked for with a date or a number as the key ("Who wrote ...?",
    key "fourteenth-century"), a time or an amount with a name, a place with a date, a year
    with a date within one. The key is read by the parser in its fact where it stands there
    (the analysis's constituent), else on its own. The `question_kinds` study
    (studies/README.md) measured it against the digit and pattern rules it replaced on
    4,696 QGEval and SQuAD questions."""
    asks = asked_for(stem)
    key = read_in_sentence(answer, fact) if asks else None
    if asks is None or key is None:
        return ""
    what, noun = asks
    if what in ("someone", "name") and key.kind in ("number", "date"):
        # "What is the name of the English physician who ...?" with the key 1628 (a light
        # bench item at acbb612): the few-shot profile has no QA model to ask "Is 1628 a
        # physician?" (measured in the `question_kinds` study, studies/README.md).
        wanted = "someone" if what == "someone" else "a name"
        return f"the question asks for {wanted}, but the key is a {key.kind}"
    if what == "place" and key.kind == "date":
        return "the question asks for a place, but the key is a date"
    if what in ("time", "amount") and key.kind == "name" and key.label in _NAME_LABELS:
        wanted = "a time" if what == "time" else "an amount"
        return f"the question asks for {wanted}, but the key is a name"
    if noun == "year" and kind_of(answer) == "date":
        # "In which year was it first aired?" with the key "August 1999": "October 1999"
        # is right too (generation-readings-6f607a1.txt, git history, item 8).
        return "the question asks for a year, but the key is a date within one"
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


#: Words that point back at something named before: demonstratives ("these jobs", "do
#: this") and third-person pronouns ("his report"). "it" is left out, as most questions' "it"
#: is no reference ("What is it called when ...?"), and "that", which the small parser often
#: reads as a determiner where it is a relative pronoun or a conjunction.
_DEMONSTRATIVES: Final = frozenset({"this", "these", "those"})
_A_PERSON: Final = frozenset({"he", "him", "his", "she", "her", "hers"})
_OTHERS: Final = frozenset({"they", "them", "their", "theirs", "its"})
#: The roles in which a noun before "he" or "she" may be who the pronoun means ("the actor
#: ... his images"): not "the title of his report", whose noun is the copula's attribute.
_REFERRED_ROLES: Final = frozenset({"nsubj", "nsubjpass", "dobj", "pobj", "appos", "conj"})


def unnamed_referent(stem: str) -> str:
    """Why the question points at something it does not name ("What do geographers group
    these jobs together to explain?", "What is the title of his report?"; "" when it does
    not): the student sees the question, not the sentence it came from. From the parse: a
    demonstrative determiner whose noun the question does not name before it, a bare
    demonstrative ("do this"; not "those who ..."), "he" or "she" with no one in the question
    it can mean, "they" or "its" with no noun outside its own phrase. A capitalised word
    within the question is a title ("This American Life", "Through His Eyes"). Measured in
    the `unnamed_referents` study."""
    doc = parse(stem)
    for token in doc:
        word = token.lower_
        if token.i > 0 and token.text[0].isupper():
            continue
        if word in _DEMONSTRATIVES and token.tag_ == "DT":
            if token.dep_ == "det":
                noun = token.head
                if any(t.lemma_.lower() == noun.lemma_.lower() for t in doc[: token.i]):
                    continue  # named before: "... a band ... this band"
                return _points_at(f"{token.text} {noun.text}")
            if token.pos_ == "PRON" and not list(token.children):
                return _points_at(token.text)
        elif token.tag_ in ("PRP", "PRP$") and word in _A_PERSON | _OTHERS:
            own = set(token.head.subtree) if token.tag_ == "PRP$" else {token}
            if not any(_may_mean(t, token) for t in doc if t not in own):
                return _points_at(token.text)
    return ""


def _may_mean(noun: Token, pronoun: Token) -> bool:
    """Whether `noun` may be what `pronoun` means: any name (the small model's entity types
    are too unsure to tell a person's from a place's: "Genghis Khan" a place, "Cromford" an
    organisation); for "they" or "its", any noun; for "he" or "she", "who" ("Who wrote his
    first novel ...?") or a noun before it in a role a person may have that the question does
    not ask for ("which year", "What is the title of his report?")."""
    if noun.pos_ == "PROPN" or pronoun.lower_ not in _A_PERSON:
        return noun.pos_ in ("NOUN", "PROPN")
    if noun.i > pronoun.i:
        return False
    if noun.lower_ in ("who", "whom"):
        return True
    asked = any(c.tag_ in _WH_TAGS for c in noun.children) or (
        noun.head.lemma_ == "be" and any(c.tag_ in _WH_TAGS for c in noun.head.children)
    )
    return noun.pos_ == "NOUN" and noun.dep_ in _REFERRED_ROLES and not asked


def _points_at(words: str) -> str:
    return (
        f"it refers to \u201c{words}\u201d without naming it (a student who sees only the "
        "question cannot tell what is meant)"
    )
