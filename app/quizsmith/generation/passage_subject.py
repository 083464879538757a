"""The passage's subject, named in a question that speaks of it by its class: "Where does the
river enter Serbia?" on a passage about the Danube reads, on its own, as any river's (the
standard bench's blind reading: "'the river' not named", about one item in eight). Where the
passage opens by saying what its subject is ("The Danube is a major river of ..."), a
question's bare "the river" becomes "the Danube".

All from the parse of the first sentence that states something: its subject, and the nouns
the copula gives it (the attribute's head, conjuncts included: "a German composer and
pianist") and its own head ("The periodic table is a chart": "table"). Measured on the later
sentences of QGEval's, CELA's, SQuAD's and 160 project-written passages, read blind: the
replaced words meant the subject in 127 of 138 (studies/passage_subject.py); passages that
join two articles are where it errs.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from quizsmith.generation.analysis import PassageAnalysis, fact_sentences
from quizsmith.generation.parser import parse

_SUBJECTS = ("nsubj", "nsubjpass")
#: "is a river", "is the largest hot desert": an attribute that says what the subject is,
#: not "is broken into pieces".
_ARTICLES = ("a", "an", "the")
_BRACKETED = re.compile(r"\s*\([^()]*\)")


@dataclass(frozen=True)
class Subject:
    """The passage's subject as the passage writes it ("the Danube", "Magna Carta") and the
    nouns (lemmas) it says the subject is."""

    text: str
    nouns: frozenset[str]


def subject_of(analysis: PassageAnalysis) -> Subject | None:
    """The subject of the passage's first statement where it is one with "be" ("X is a Y"),
    or None (a passage that opens otherwise names no subject this way)."""
    facts = fact_sentences(analysis)
    if not facts:
        return None
    # A pronunciation guide or a gloss in brackets ("The Danube (/ˈdænjuːb/; German: Donau) is
    # ...") is no part of the clause, and the parser hangs the rest on it.
    doc = parse(_BRACKETED.sub("", facts[0].text))
    root = next((t for t in doc if t.dep_ == "ROOT"), None)
    if root is None or root.lemma_ != "be":
        return None
    subject = next((c for c in root.children if c.dep_ in _SUBJECTS), None)
    attribute = next((c for c in root.children if c.dep_ == "attr"), None)
    if (
        subject is None
        or attribute is None
        or subject.tag_ not in ("NN", "NNP")  # one thing, not "Forces"
        or not any(c.dep_ == "det" and c.lower_ in _ARTICLES for c in attribute.children)
    ):
        return None
    if any(c.dep_ == "neg" for c in root.children):
        return None  # "The outer shell of the Earth is not a single solid piece."
    # The subject with what stands before it and its "of" phrase ("The outer shell of the
    # Earth"), not a clause after it ("Apis mellifera, known as the western honey bee, ...").
    end = max(
        [subject.i]
        + [c.right_edge.i for c in subject.rights if c.dep_ == "prep" and c.lower_ == "of"]
    )
    span = doc[subject.left_edge.i : end + 1]
    if span[0].lower_ in ("a", "an"):
        return None  # "A sonnet is a poem ...": any sonnet, not one to name
    if any(t.tag_ in ("DT", "PRP$") and t.lower_ != "the" for t in span):
        return None  # "This process is ...", "Its capital is ...": points back, names nothing
    nouns = {t.lemma_.lower() for t in (attribute, *attribute.conjuncts) if t.pos_ == "NOUN"}
    nouns.add(subject.lemma_.lower())  # "the Globe Theatre": "the theatre"
    text = span.text
    if span[0].lower_ == "the":
        text = "the" + text[3:]
    elif text[:1].lower() + text[1:] in analysis.text:
        text = text[:1].lower() + text[1:]  # "Photosynthesis is ...", mid-question
    return Subject(text, frozenset(nouns))


def naming_the_subject(question: str, key: str, subject: Subject | None) -> str:
    """`question` with its first bare "the <noun>" that the passage says its subject is ("the
    river") replaced by the subject ("the Danube"); unchanged where there is none, where the
    question names the subject already, or where the key is the subject (the question would
    name its answer)."""
    if subject is None:
        return question
    bare = subject.text.removeprefix("the ").casefold()
    if bare in question.casefold() or bare in key.casefold() or key.casefold() in bare:
        return question
    doc = parse(question)
    for token in doc:
        if _bare_class_noun(token, subject):
            det = doc[token.i - 1]
            name = subject.text
            if det.i == 0:
                name = name[:1].upper() + name[1:]
            return question[: det.idx] + name + question[token.idx + len(token.text) :]
    return question


def _bare_class_noun(token: Any, subject: Subject) -> bool:
    """A singular common noun the subject is, with "the" right before it and nothing else
    of its own (no adjective, compound, "of" phrase or clause that would say which one)."""
    if token.tag_ != "NN" or token.lemma_.lower() not in subject.nouns or token.i == 0:
        return False
    children = list(token.children)
    return (
        len(children) == 1
        and children[0].i == token.i - 1
        and children[0].lower_ == "the"
        and children[0].dep_ == "det"
    )
