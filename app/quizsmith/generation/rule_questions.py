"""The rule-made question: the answer's phrase replaced by a question phrase, moved to the
front with the clause inverted as English asks ("In 1628 Harvey published his account." ->
"In what year did Harvey publish his account?"), all from the parse.

Classic rule-based question generation (Heilman and Smith's overgenerate-and-rank): no model,
always about the fact, and the key is right by construction. It is a few-shot generator's
first candidate and, where it passes the checks, its only one (`builder.RULE_ATTEMPT`): the
light profile's tiny models mostly ask for something else than the key. The parser says
what the rule needs: which words make the answer's phrase and what it counts ("how many
symphonies", not "what number"), whose it is ("whose surface"), what kind of person it names
("which German chemist"), where the subject and the verb are and which auxiliary inverts
("did ... publish", "was ... proposed"). Where the phrase cannot be moved (in a clause of
its own, a phrase with a clause after it, a sentence that opens with
something else), it stays in place as an echo question ("... completed in what year?").
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Final

from quizsmith.generation import true_false, writer
from quizsmith.generation.answer_kinds import date_precision, kind_of
from quizsmith.generation.parser import parse
from quizsmith.generation.target import Target, written_without_spaces
from quizsmith.generation.web_marks import masked

if TYPE_CHECKING:
    from spacy.tokens import Doc, Token

#: The auxiliary that carries a question's tense where the verb has none ("did ... publish").
_DO: Final = {"VBD": "did", "VBZ": "does", "VBP": "do"}
#: A date as precise as the key asks for ("day": "15 January 1954").
_DATE_NOUNS: Final = {"day": "date", "month": "month and year", "year": "year"}
_SUBJECTS: Final = frozenset({"nsubj", "nsubjpass", "expl", "csubj"})
_PREPOSITIONS: Final = frozenset({"prep", "agent", "dative"})
#: The roles of a phrase that moves to the front of its question (not its subject).
_MOVABLE: Final = frozenset({"dobj", "attr", "oprd", *_PREPOSITIONS})
#: Roles in which the answer only modifies a larger phrase ("the fastest land animal"):
#: replacing it asks nothing a student could answer.
_MODIFIERS: Final = frozenset({"amod", "compound", "nmod", "advmod", "acomp", "quantmod"})


@dataclass(frozen=True)
class _Phrase:
    """The words the question phrase replaces (token indices), the question phrase, and the
    phrase's head; `movable` is False where the phrase reads only in place."""

    replaced: frozenset[int]
    words: str
    top: Token
    movable: bool = True


def rule_stem(target: Target) -> writer.Written:
    """The target's rule-made question as a student sees it, checked as a written question
    is (`writer.stem_problem`, which may quote the fact), or None with the reason."""
    if written_without_spaces(target.fact):
        # The rule puts an English question phrase into the sentence: "叶绿体含有 what ，...?"
        return writer.Written(None, "no rule-made question: the rule writes English only")
    at = target.answer_start - target.fact_start
    # Made from the fact as a student sees it: a web page's citation marks and pronunciation
    # guides went into the copied question ("... up to how many people.[7]?": 7 of the light
    # profile's 60 bench items at 9f3c715). Masking keeps every offset.
    stem = wh_question(masked(target.fact).rstrip(), target.answer, at)
    if stem is None:
        return writer.Written(None, "no rule-made question for this answer")
    stem = true_false.shown_statement(stem)
    reason = writer.stem_problem(stem, target.answer, target.fact, may_quote_fact=True)
    return writer.Written(None if reason else stem, reason)


def wh_question(fact: str, answer: str, answer_at: int) -> str | None:
    """A question made from the fact with a question phrase in place of the answer, moved to
    the front where the parse allows; None where no grammatical question comes of it (the
    answer cuts a word, is no constituent, or only modifies a larger phrase)."""
    if not 0 <= answer_at <= len(fact) - len(answer) or fact[answer_at:].find(answer) != 0:
        return None
    doc = parse(fact)
    end = answer_at + len(answer)
    span = [t for t in doc if answer_at <= t.idx < end]
    if not span or span[0].idx != answer_at or span[-1].idx + len(span[-1]) != end:
        return None
    if _quoted_within(doc, span):
        return None  # a word of a title or a quotation ("Only One"): no question asks it
    phrase = _question_phrase(span, answer)
    if phrase is None:
        return None
    phrase = _with_quotes(doc, phrase)
    return _fronted(doc, phrase) or _in_place(doc, phrase)


def _quoted_within(doc: Doc, span: list[Token]) -> bool:
    """Whether the answer is part of a quotation or title without being all of it."""
    sentence = span[0].sent
    opened = sum(t.is_quote for t in doc[sentence.start : span[0].i]) % 2 == 1
    if not opened:
        return False
    whole = (
        doc[span[0].i - 1].is_quote and span[-1].i + 1 < len(doc) and doc[span[-1].i + 1].is_quote
    )
    return not whole


def _with_quotes(doc: Doc, phrase: _Phrase) -> _Phrase:
    """The phrase with the quotation marks around it: a title asked for goes, quotes and
    all ("She was named \"World's Most Beautiful Woman\"" -> "She was named what?")."""
    first, last = min(phrase.replaced), max(phrase.replaced)
    if first > 0 and last + 1 < len(doc) and doc[first - 1].is_quote and doc[last + 1].is_quote:
        return replace(phrase, replaced=phrase.replaced | {first - 1, last + 1})
    return phrase


def _question_phrase(span: list[Token], answer: str) -> _Phrase | None:
    inside = {t.i for t in span}
    roots = [t for t in span if t.head.i not in inside or t.head.i == t.i]
    if len(roots) != 1:
        return None
    head = roots[0]
    before = [t for t in head.subtree if t.i < span[0].i]
    kind = kind_of(answer)
    numeric = kind in ("year", "date", "number") or all(t.like_num for t in span)
    if head.dep_ == "poss" and not numeric:  # "the Earth's surface" -> "whose surface"
        owned = head.head
        rest = [t for t in owned.subtree if t.i > span[-1].i and t.dep_ != "case"]
        return _Phrase(_indices(owned), _words("whose", rest), owned)
    if numeric:
        return _number_phrase(head, span, before, kind, answer)
    noun = head.head
    if head.dep_ == "compound" and noun.pos_ == "NOUN" and noun.i == span[-1].i + 1:
        # A name that says which of a kind: "Tajik people" -> "what people".
        kept = {t.i for t in noun.subtree if t.i < span[0].i and t.dep_ != "det"}
        return _Phrase(_indices(noun) - kept - _right_of(noun), f"what {noun.text}", noun)
    if head.dep_ in _MODIFIERS or head.dep_ == "poss":
        return None
    after = [t for t in head.subtree if t.i > span[-1].i]
    own = {t.i for t in head.subtree}
    glossed = span[0].i > 0 and span[0].nbor(-1).text == "("  # "this suffering (dukkha)"
    if head.dep_ == "appos" and head.head.pos_ == "NOUN" and head.head.i < head.i and not glossed:
        # "the Italian painter Michelangelo Buonarroti" -> "which Italian painter"
        noun = head.head
        described = [*(t for t in noun.lefts if t.dep_ not in ("det", "poss")), noun]
        if not all(t.is_alpha for t in described):
            return None
        later = {t.i for t in noun.subtree if t.i > span[-1].i and not t.is_punct}
        return _Phrase(_indices(noun) - later, _words("which", described), noun, not later)
    appositive = next((c for c in head.children if c.dep_ == "appos" and c.i > head.i), None)
    set_off = appositive is not None and appositive.left_edge.nbor(-1).text == ","
    if appositive is not None and set_off and head.pos_ == "PROPN" and appositive.pos_ == "NOUN":
        # "Konrad Lorenz, the Austrian ethologist," -> "which Austrian ethologist"
        described = [*(t for t in appositive.lefts if t.dep_ != "det"), appositive]
        return _Phrase(frozenset(own), _words("which", described), head)
    described = [t for t in before if t.dep_ != "det"]
    if head.pos_ == "PROPN" and _describes(described, span[0]):
        # "the German chemist Dmitri Mendeleev" -> "which German chemist"
        return _Phrase(frozenset(own), _words("which", described), head, not after)
    # Otherwise the answer and its own determiner: a parse that hangs more on the answer's
    # head ("the phrase \"Open the door\"") keeps those words in the question.
    replaced = inside | {t.i for t in before if t.dep_ in ("det", "poss") and t.i == span[0].i - 1}
    # The phrase's own head says whether it names a person: "Shakespeare's Globe" is a
    # theatre, "a process known as the Calvin cycle" no one (studies/rule_question_shapes.py).
    person = head.ent_type_ == "PERSON"
    return _Phrase(frozenset(replaced), "who" if person else "what", head, not after)


def _describes(words: list[Token], name: Token) -> bool:
    """Whether `words`, just before a name, are what the name is called: a noun's own
    modifiers ending in that noun ("German chemist", not "Apple's co-founder")."""
    return (
        any(t.pos_ == "NOUN" for t in words)
        and words[-1].i == name.i - 1
        and words[-1].pos_ in ("NOUN", "PROPN")
        and all(t.dep_ in ("amod", "compound") and t.is_alpha for t in words)
    )


def _number_phrase(
    head: Token, span: list[Token], before: list[Token], kind: str, answer: str
) -> _Phrase | None:
    """A year, a date or a number asked as one: "what year", "on what date", "how many
    symphonies" (the noun it counts, and what follows that noun), "which century"."""
    inside = {t.i for t in span}
    if "%" in answer or "percent" in answer.lower():
        top = head.head if head.dep_ == "nummod" else head
        replaced = frozenset(t.i for t in top.subtree if t.i <= top.i)  # "of the vote" stays
        alone = top is head and not _right_of(top)
        return _Phrase(replaced, "what percentage", top, movable=alone)
    if kind in ("year", "date"):
        # A date that modifies a noun ("the 1543 edition", or a year the small parser hangs
        # on the next name: "In 1543 Copernicus ...") asks nothing in place.
        modifies = head.dep_ in _MODIFIERS or head.dep_ == "nummod"
        if modifies or any(t.dep_ not in ("det", "advmod") for t in before):
            return None
        noun = "decade" if answer.rstrip().endswith("s") else _DATE_NOUNS[date_precision(answer)]
        return _Phrase(_indices(head), f"what {noun}", head)
    ordinal = next((t for t in span if t.i != head.i and _ordinal(t)), None)
    if ordinal is not None and head.pos_ == "NOUN" and head.i == span[-1].i:
        # "the 20th century" -> "which century"
        after = [t for t in head.subtree if t.i > span[-1].i]
        return _Phrase(_indices(head), _words("which", [head, *after]), head)
    counted = head.head if head.dep_ == "nummod" and head.head.pos_ == "NOUN" else None
    if counted is None and head.pos_ == "NOUN" and head.i in inside:
        counted = head  # "9 symphonies", "7,000 litres"
    if counted is not None and (
        counted.dep_ in _MODIFIERS
        or counted.tag_ != "NNS"
        or counted.like_num
        or not counted.is_alpha
    ):
        # "the 14-story library": the number only describes a thing; "fiscal year 2007"
        # names one ("how many" asks a plural).
        return None
    if counted is None:
        if head.dep_ in _MODIFIERS or any(c.dep_ in ("acl", "relcl") for c in head.children):
            return None  # "to one based on industry": a pronoun, no count
        return _Phrase(_indices(head), "how many", head, movable=False)
    # The noun counted and what it is of ("litres of blood"); its other phrases stay in the
    # clause ("How many symphonies did Beethoven write in Vienna?").
    of = [t for c in counted.rights if c.dep_ == "prep" and c.lower_ == "of" for t in c.subtree]
    number = next((t for t in span if t.like_num), head)
    kinds = [
        t
        for k in counted.lefts
        if k.dep_ in ("compound", "amod") and k.i > number.i
        for t in k.subtree
    ]
    named = sorted([*kinds, counted, *of], key=lambda t: t.i)
    counts = {t.i for t in counted.subtree if t.i <= counted.i} | {t.i for t in of}
    # A bound the verb needs stays with the number: "range up to how many people"; "more
    # than" or "about" goes ("How many volumes does it hold?").
    bound = [t for t in before if t.dep_ != "det"]
    wh = "how many"
    if bound and all(t.pos_ in ("ADP", "PART") for t in bound):
        wh = f"{_words('', bound)} how many"
    return _Phrase(frozenset(counts), _words(wh, named), counted)


def _ordinal(token: Token) -> bool:
    """ "20th", "third": the parser's ordinal (its entity type, or an adjective of digits)."""
    return token.ent_type_ == "ORDINAL" or (token.tag_ == "JJ" and token.text[:1].isdigit())


def _fronted(doc: Doc, phrase: _Phrase) -> str | None:
    """The question with its phrase at the front and the clause inverted, or None where the
    parse does not allow it (see the module's docstring)."""
    top, replaced, words = phrase.top, set(phrase.replaced), phrase.words
    if not phrase.movable:
        return None
    preposition = top.head if top.dep_ == "pobj" and top.head.dep_ in _PREPOSITIONS else None
    if preposition is not None and preposition.i == min(replaced) - 1:
        replaced.add(preposition.i)
        # "in 15 January 1954" is asked "on what date" (a day); "by whom", not "by who".
        word = "on" if words == "what date" else preposition.lower_
        words = f"{word} {'whom' if words == 'who' else words}"
        top = preposition
    verb = top.head
    if verb.dep_ != "ROOT" or top.dep_ not in _MOVABLE or verb.i == top.i:
        return None
    if min(replaced) > 0 and doc[min(replaced) - 1].text == ",":
        return None  # set off by a comma (", including 12.5 million animals,"): an aside
    within = {t.i for c in verb.children if c.dep_ in _SUBJECTS for t in c.subtree}
    if not within:
        return None
    subject = list(range(min(within), max(within) + 1))
    # Nothing but the phrase itself (and a comma after it) may stand before the subject.
    opening = [
        t for t in doc[: subject[0]] if t.i not in replaced and t.text != "," and not t.is_space
    ]
    if opening:
        return None
    auxiliaries = [c for c in verb.children if c.dep_ in ("aux", "auxpass") and c.i < verb.i]
    if auxiliaries:
        inverted, dropped = auxiliaries[0].lower_, {auxiliaries[0].i}
        shown_verb = verb.text
    elif verb.lemma_ == "be":
        inverted, dropped, shown_verb = verb.lower_, {verb.i}, ""
    elif verb.tag_ in _DO:
        inverted, dropped, shown_verb = _DO[verb.tag_], set(), verb.lemma_
    else:
        return None
    # A clause joined to the verb by "and" is another statement: the question leaves it out.
    # Anything else joined to it ("..., and another in Edinburgh") would be left dangling.
    clauses = [c for c in verb.children if c.dep_ == "conj" and c.pos_ in ("VERB", "AUX")]
    joining = [c for c in verb.children if c.dep_ in ("conj", "cc", "preconj")]
    if any(c.dep_ == "conj" and c not in clauses for c in joining):
        return None
    joined = {t.i for c in joining for t in c.subtree}
    skip = replaced | dropped | joined | set(subject)
    rest = []
    for t in doc:
        if t.i in skip or (t.i < subject[0] and t.text == ","):
            continue
        rest.append(shown_verb + t.whitespace_ if t.i == verb.i else t.text_with_ws)
    clause = "".join(rest).strip()
    question = f"{words} {inverted} {_subject_text(doc, subject)} {clause}"
    return _finished(question)


def _in_place(doc: Doc, phrase: _Phrase) -> str | None:
    """The fact with the question phrase where the answer's phrase stood (an echo question:
    "The Hesburgh Library was completed in what year?"); None where it stands before the
    subject it is not part of, or opens the sentence without being its subject ("In what year
    the astronomer published ...?" is no question)."""
    first, last = min(phrase.replaced), max(phrase.replaced)
    root = phrase.top.sent.root
    subjects = [t for c in root.children if c.dep_ in _SUBJECTS for t in c.subtree]
    asked_first = all(t.pos_ == "ADP" or t.is_punct or t.is_space for t in doc[:first])
    before_subject = bool(subjects) and last < min(t.i for t in subjects)
    if (asked_first or before_subject) and phrase.top.dep_ not in _SUBJECTS:
        return None
    parts = []
    for t in doc:
        if t.i == first:
            parts.append(phrase.words + doc[last].whitespace_)
        elif t.i not in phrase.replaced:
            parts.append(t.text_with_ws)
    return _finished("".join(parts))


def _subject_text(doc: Doc, subject: list[int]) -> str:
    text = doc[subject[0] : subject[-1] + 1].text
    first = doc[subject[0]]
    # Not a name the parser calls a noun ("Link navigates ..."): a plural common noun is none.
    common = first.pos_ not in ("PROPN", "NOUN") or (first.tag_ == "NNS" and not first.ent_type_)
    if first.i == 0 and common and first.text != "I":
        return text[:1].lower() + text[1:]
    return text


def _finished(question: str) -> str:
    text = " ".join(question.split()).rstrip(" .!;:,")
    text = text.replace(" ,", ",")
    return text[:1].upper() + text[1:] + "?"


def _right_of(token: Token) -> frozenset[int]:
    return frozenset(t.i for t in token.subtree if t.i > token.i)


def _indices(token: Token) -> frozenset[int]:
    return frozenset(t.i for t in token.subtree)


def _words(wh: str, tokens: list[Token]) -> str:
    """The question word before the tokens as the passage spaces them, without quotes and
    stray punctuation ("which \"high-style\" mobile game" -> "which high-style mobile game")."""
    kept = [t for t in tokens if not (t.is_quote or (t.is_punct and t.text != "-"))]
    text = "".join(t.text_with_ws for t in kept).strip()
    return f"{wh} {text}".strip()
