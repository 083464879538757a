"""Distractors of the kind the question asks for: "Which playwright ...?" wants playwrights,
not the play's characters, the commonest fault of the standard profile's items
(docs/generation.md). `asked_kind` finds the kind a question names; `kind_reading` asks the
QA model "Is X a playwright?"; `of_the_asked_kind` keeps the candidates that pass
(`distractors.filter_distractors` calls it last).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from functools import lru_cache
from typing import Any, NamedTuple

from quizsmith.providers.base import Provider, Transient

#: Candidates checked beyond the wanted number: spares for a target's other questions that
#: name a kept one (`options_for`). Each check is a model call, so the rest go unchecked.
KIND_SPARES = 2
#: How far below the key's reading (or below an even Yes/No) a candidate may read and stay.
#: On twelve cases written for it (studies/README.md, kind_margin; the 1.5B model):
#: margin 0.5 dropped 36 of 48 wrong-kind answers and none of 47 real ones, 1.0 dropped 33,
#: 0 dropped 37 but also 2 real ones. An obscure real name reads near -0.5 (Warũhiũ Itote as
#: a person): where it is lost, the passage's names and the model's others stand in, since
#: invented placeholders are dropped before this check (`placeholder_names`).
KIND_MARGIN = 0.5
#: The bar never falls below this, however much the model doubts the key: "Is Mau Mau a
#: group?" reads -1.55, which let "The Demon" pass as a group (generation bench). On twelve
#: more hand-written cases (study kind_margin) the key read below 0 in four (a regiment, a
#: dynasty, a script, a militia); there a floor of -1.0 dropped 15 of 16 wrong-kind answers
#: against 6 without it, and 4 of 16 real ones against 2 (obscure real names the model doubts
#: as much as the key). A wrong kind costs an item a fix; a real answer lost is replaced by
#: the passage's answers and the model's others. Where the key reads 0 or more it changes
#: nothing (the bar is then -KIND_MARGIN).
KIND_FLOOR = -1.0
#: A candidate the key is "a kind of" at these log-odds or more is a broader term that takes
#: the key in, so it would be right too (`broader_reading`). On the 66 wrong answers of the
#: standard profile's bench items at 00f2025 only one read above +1.0: "educational
#: institutions" for "private schools", +2.4 (the rest -2.5 to +0.8). On hand-written pairs
#: (docs/generation.md) broader terms read water/liquid +3.3, oxygen/gas +3.4, the
#: Nile/river +2.4, Sophocles/playwright +2.0, and the Shoushi Li/Chinese Calendar only
#: -0.4 (the model does not know it); answers of the same level read at most +1.8
#: (erosion/weathering, a wrong answer teachers use) and mostly below 0.
BROADER_FROM = 2.0
#: The kind a "Who ...?" question asks for. Another kind a target's question names is more
#: telling ("Which playwright ...": Creon is a person, not a playwright), so it comes first
#: (`kind_of_stems`).
PERSON = "person"
_ASKS_WHERE = re.compile(r"\s*[Ww]here\b")
#: What "Where ...?" asks its key to be (`kind_asked_of_key`).
PLACE = "place"
#: A key that reads this low as the kind its question asks for is not one, so the question
#: asks for something else ("Where does the channel deepen in a V-shaped valley?", key
#: abrasion: "Is abrasion a place?" -3.0; bench/generation.py at 402a529). On
#: the kind_margin study's 24 cases the 119 answers of the asked kind (keys and others, some
#: obscure) read -2.25 at the lowest, and 26 of the 96 of another kind read below this.
#: Answers of "Where ...?" questions read higher as places: chloroplasts +0.8, the
#: mitochondria +0.4, the leaves -0.6, the upper course -0.1 (2026-11-27, 1.5B model).
KEY_NOT_ASKED_BELOW = -2.5
#: "Who ...?", or "who" after an opening phrase ("In Sophocles' play Antigone, who is trying to
#: stop her ...?"): the 1.5B model writes both, and the second, unread, let invented first
#: names through as Creon's rivals (generation-readings-56c637b.txt, git history, item 2).
_ASKS_WHO = re.compile(
    r"\s*(?:(?:In|At|On|During|According to|After|Before|By|Since|Until|Within)\b[^?,]*,\s*)?"
    r"[Ww]ho(?:m)?\b"
)


class KindCheck(NamedTuple):
    """The kind of thing a question asks for and the QA model's reading of one candidate
    (log-odds of "Yes" over "No" to "Is <candidate> a <kind>?")."""

    kind: str
    says_yes: Callable[[str], float]
    #: What the question puts for a candidate ("Is a bend a process?" for "meanders", which
    #: the passage calls bends: `kind_reading`); the candidate itself by default.
    subject: Callable[[str], str] = str


def first_that_pass(
    key: str,
    ordered: list[str],
    enough: int,
    drop: Callable[[str, str], None],
    *,
    kind: KindCheck | None = None,
    broader: Callable[[str], float] | None = None,
) -> list[str]:
    """The candidates, in order, that pass the QA model's checks, until `enough` have passed;
    the rest are not read (each check is a model call).

    `kind`: the candidate must read as the asked kind nearly as readily as the key. Relative
    to the key because the model says No to what it does not know: "Is Shoushi Li a
    calendar?" reads -1.2 for the right answer; and with a margin (KIND_MARGIN) because it
    doubts real but obscure names too (Warũhiũ Itote as a person: -0.5), and dropping those
    lets the model's invented ones in ("John Smith", seen on bench/generation.py's items).
    Wrong kinds read far lower: Creon as a playwright -2.8 against Sophocles +2.7. The bar
    stops at KIND_FLOOR, so a key the model doubts does not let every wrong kind through.

    `broader` (`broader_reading`): a candidate the key is a kind of would be right too
    ("educational institutions" for "private schools"), so it goes."""
    bar = max(min(0.0, kind.says_yes(key)) - KIND_MARGIN, KIND_FLOOR) if kind else 0.0
    kept: list[str] = []
    for index, text in enumerate(ordered):
        if len(kept) >= enough:
            for rest in ordered[index:]:
                drop(rest, "not needed (enough better candidates)")
            break
        if kind is not None and kind.says_yes(text) < bar:
            article = indefinite_article(kind.kind)
            drop(
                text,
                f"not {article} {kind.kind}, the kind of thing the question asks for (the QA "
                f"model answers No to \u201cIs {kind.subject(text)} {article} {kind.kind}?\u201d)",
            )
        elif broader is not None and broader(text) >= BROADER_FROM:
            drop(
                text,
                f"a broader term that takes in the key, so right too (the QA model answers Yes "
                f"to \u201cIs {key} a kind of {text}?\u201d)",
            )
        else:
            kept.append(text)
    return kept


def indefinite_article(noun: str) -> str:
    return "an" if noun[:1].lower() in "aeiou" else "a"


def kind_reading(
    qa: Provider, kind: str, described: Mapping[str, str | None] | None = None
) -> KindCheck:
    """Ask the QA model whether a candidate is a `kind`: the log-odds of " Yes" over " No" as
    the answer to "Q: Is X a kind?". A plain question, not the chat template: measured on the
    1.5B model it separated the asked kind from the rest (Sophocles +2.7, Euripides +2.3;
    Creon -2.8, King of Thebes -2.1), where a chat prompt asking whether each candidate is
    "the same kind of thing" as the key stayed within -0.3 and +0.7 for every one
    (docs/generation.md). The 135M model reads no difference (all within -1.5 and +1.2), so
    the pipeline asks only a QA model large enough for chat prompts.

    `described`: the noun the passage calls a term it defines ("bends known as meanders"),
    asked in the term's place: "Is meanders a process?" read +1.4 on the 1.5B model, as high
    as the key abrasion (+1.5), where "Is a bend a process?" reads -1.3 (the model does not
    know the term, and knows the noun; docs/generation.md)."""
    article = indefinite_article(kind)

    def subject(candidate: str) -> str:
        noun = (described or {}).get(candidate)
        return f"{indefinite_article(noun)} {noun}" if noun else candidate

    def says_yes(candidate: str) -> float:
        yes, no = qa.option_logprobs(
            f"Q: Is {subject(candidate)} {article} {kind}?\nA:", [" Yes", " No"]
        )
        return yes.total - no.total

    return KindCheck(kind, says_yes, subject)


def broader_reading(qa: Provider, key: str) -> Callable[[str], float]:
    """The log-odds of " Yes" over " No" to "Q: Is <key> a kind of <candidate>?": high where
    the candidate is a broader term the key belongs to (a wrong answer that is right too).
    The question's head is the same for all of a target's candidates, so it is read once
    (Transient: its state serves the calls that follow, and is not kept after)."""
    head = f"Q: Is {key} a kind of"

    def says_yes(candidate: str) -> float:
        yes, no = qa.option_logprobs(
            f"{head} {candidate}?\nA:", [" Yes", " No"], reuse_prefix=Transient(head)
        )
        return yes.total - no.total

    return says_yes


#: Nouns that ask for a number, a time or nothing in particular: the kind filter of
#: `analysis.same_kind` covers the first two, and "Is X a name?" asks nothing. (Which nouns
#: do is a matter of meaning, not of grammar: the parser does not say it.)
NO_KIND = frozenset(
    "year date day month century decade time period number percentage percent amount age "  # noqa: SIM905
    "name kind type sort way reason part thing".split()
)
#: Nouns through which a question names its kind: "what kind of rock", "the name of the
#: waterfall".
_THROUGH = frozenset({"kind", "type", "sort", "name"})
_WH_TAGS = frozenset({"WDT", "WP", "WP$", "WRB"})


def asked_kind(question: str) -> str | None:
    """The kind of thing a question asks for, as the lemma of the noun it names, read from
    the parse ("Which playwright wrote ...?": "playwright"; "What is the name of the
    waterfall that ...?": "waterfall"; "What are these structures?": "structure"; "Who
    ...?": "person"), or None where it names none ("What causes ...?", "What do ...?"), names
    a proper noun or a count ("the current King of Thebes", "which two rivers"), or asks for
    a number or a time (those are `same_kind`'s). Only of a question: a true/false item's
    "Complete: ..." statement names no kind."""
    text = question.strip()
    if not text.endswith("?") or text.startswith("Complete:"):
        return None
    if _ASKS_WHO.match(text):
        return PERSON
    return _kind_in_parse(text)


@lru_cache(maxsize=256)
def _kind_in_parse(question: str) -> str | None:
    from quizsmith.generation.parser import parse

    doc = parse(question)
    # The first wh-word of the question itself, not a relative pronoun.
    wh = next((t for t in doc if t.tag_ in _WH_TAGS and not _in_clause(t)), None)
    if wh is None or wh.lower_ not in ("what", "which") or _asks_a_name(doc, wh):
        return None
    if wh.dep_ == "det":  # "Which playwright ...", "What kind of ..."
        return _kind_of_noun(wh.head)
    following = doc[wh.i + 1] if wh.i + 1 < len(doc) else None
    if following is not None and following.text.islower() and following.pos_ in _NOUNISH:
        # "Which organelle releases ...?": the small English model tags the noun a proper
        # noun and "which" a subject of its own; the word after "which" is the kind.
        noun = following
        while noun.dep_ in ("compound", "amod") and noun.head.i > noun.i:
            noun = noun.head  # "which rock band": the noun the modifiers lead to
        return _kind_of_noun(noun, True)
    if wh.head.lemma_ == "be":  # "What is the capital of ...?", "What are these ...?"
        other = next(
            (
                c
                for c in wh.head.children
                if c.i != wh.i and c.dep_ in ("nsubj", "nsubjpass", "attr")
            ),
            None,
        )
        if other is not None and other.pos_ == "NOUN":
            return _kind_of_noun(other)
    return None


_NOUNISH = frozenset({"NOUN", "PROPN", "ADJ"})


def _asks_a_name(doc: Any, wh: Any) -> bool:
    """ "What are the large bends called / known as?": the question asks for the name of a
    bend, so a wrong answer that is a bend would be right too (tried at d71cd03,
    docs/generation.md): the naming verb governs the wh-word, or ends the question."""
    from quizsmith.generation.analysis import NAMING_AS_VERBS, NAMING_VERBS

    last = next((t for t in reversed(doc) if not t.is_punct), None)
    for t in doc:
        naming = t.tag_ == "VBN" and (
            t.lemma_ in NAMING_VERBS
            or (t.lemma_ in NAMING_AS_VERBS and t.i + 1 < len(doc) and doc[t.i + 1].lower_ == "as")
        )
        if naming and (
            t.i in (wh.head.i, wh.head.head.i) or (last is not None and last.i in (t.i, t.i + 1))
        ):
            return True
    return False


def _in_clause(token: Any) -> bool:
    """Whether a wh-word is the relative pronoun of a relative clause (the word its clause
    begins with: "the king, who ruled", "the waterfall that has moved"), not the question's
    own ("a boxer who challenged for what title")."""
    clause = token
    while clause.dep_ != "relcl" and clause.head.i != clause.i:
        clause = clause.head
    return clause.dep_ == "relcl" and clause.left_edge.i == token.i


def _kind_of_noun(noun: Any, lenient: bool = False) -> str | None:
    """A noun's lemma as the kind, through "kind of" / "the name of", with a common noun
    compound before it ("cell theory"); None for a proper noun, a count or a time."""
    for _ in range(3):
        if noun.lemma_.lower() not in _THROUGH:
            break
        of = next((c for c in noun.children if c.dep_ == "prep" and c.lower_ == "of"), None)
        noun = next((c for c in of.children if c.dep_ == "pobj"), None) if of else None
        if noun is None:
            return None
    if noun.pos_ != "NOUN" and not (lenient and noun.text.islower()):
        return None
    if any(c.dep_ == "nummod" for c in noun.children):
        return None  # "Which two rivers ...": two answers
    lemma = noun.lemma_.lower() if noun.pos_ == "NOUN" else singular(noun.lower_)
    if lemma in NO_KIND:
        return None
    compound = [
        c.lower_
        for c in noun.children
        if c.dep_ == "compound" and c.pos_ == "NOUN" and c.i == noun.i - 1
    ]
    return " ".join([*compound, lemma])


def kind_asked_of_key(question: str) -> str | None:
    """The kind a question asks its key to be, where it says so: the noun it names
    (`asked_kind`), or a place for "Where ...?". Not a person for "Who ...?": groups and
    bodies answer those too ("Who defeated the rebels?": the Home Guard)."""
    if _ASKS_WHERE.match(question) and question.rstrip().endswith("?"):
        return PLACE
    if _ASKS_WHO.match(question):
        return None
    return asked_kind(question)


def key_of_another_kind(qa: Provider, question: str, key: str, read: dict[str, float]) -> str:
    """Why the question asks for another kind of thing than its key, or "": the QA model
    answers No to "Is <key> a <kind>?" for the kind it asks for (`kind_asked_of_key`), below
    KEY_NOT_ASKED_BELOW. `read` keeps the key's reading per kind: a target's questions share
    one key."""
    kind = kind_asked_of_key(question)
    if kind is None:
        return ""
    if kind not in read:
        read[kind] = kind_reading(qa, kind).says_yes(key)
    if read[kind] >= KEY_NOT_ASKED_BELOW:
        return ""
    article = indefinite_article(kind)
    return (
        f"it asks for {article} {kind}, and the key is not one (the QA model answers No to "
        f"\u201cIs {key} {article} {kind}?\u201d)"
    )


#: The kind a wrong answer must be where no question names one and the key is a name the
#: passage's parse types as a person or a place ("Where was Beethoven born?": "Is Ludwig van
#: Beethoven a place?", a composer among places on the generation bench). The parser's label
#: in context, asked of the QA model like a kind a question names. Measured on 150 QGEval
#: passages none of it was written for (studies/entity_kinds.py; docs/generation.md, step 5):
#: other groups (organisations, nationalities ...) are left out, where the model's Yes/No
#: does not separate them.
ENTITY_KINDS = {"name:PERSON": PERSON, "name:place": PLACE}


def kind_of_entity(group: str | None) -> str | None:
    """The kind asked of a key's wrong answers from its constituent group (`analysis.
    Constituent.group`), where one is in ENTITY_KINDS."""
    return ENTITY_KINDS.get(group or "")


def kind_of_stems(stems: list[str]) -> str | None:
    """The kind a target's questions ask for (they share a key, so one kind): the most
    telling one any of them names, "person" (from a "Who ...?") only when none names more."""
    kinds = [kind for stem in stems if (kind := asked_kind(stem))]
    return next((k for k in kinds if k != PERSON), kinds[0] if kinds else None)


def _plural(noun: str) -> bool:
    return noun.endswith("s") and not noun.endswith(("ss", "us", "is", "as"))


def singular(noun: str) -> str:
    if noun.endswith("ies") and len(noun) > 4:
        return noun[:-3] + "y"
    return noun[:-1] if _plural(noun) else noun
