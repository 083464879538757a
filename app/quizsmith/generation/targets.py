"""Choosing what to ask about: target facts (sentences) and answer spans inside them.

Answer-aware generation (DESIGN.md, "Generation") needs (fact, answer) pairs before any model
runs. This module finds them with rules only, so it works offline with nothing downloaded (no
spaCy or NLTK models):

- numbers and quantities: "42%", "3.5 million", "1,200 km", "$4.5 billion", "-12 °C";
- dates: "14 July 1789", "July 14, 1789", "June 1953", "the 1990s", "the 19th century",
  "1914–1918", "44 BC", and bare years 1000-2099 ("in 1963" -> "1963");
- named entities: runs of capitalised words joined by "of/the/de/von/..." ("King of Thebes",
  "Dedan Kimathi", "King's African Rifles"), acronyms ("ABC", "U.S."); a single capitalised
  word at the start of a sentence counts only when the passage also capitalises it mid-sentence
  (otherwise it is most likely just the first word: "Goldenson tried" vs "However, ...");
- key noun phrases by a small chunker: runs of lower-case content words (stopwords, verbs from
  a list, and -ly adverbs break a run; the last word must not look like a verb or adjective by
  its suffix), kept when a determiner, possessive or preposition introduces them (the usual
  shape of an English noun phrase) or when their words recur in the passage; scored by the
  passage frequency of their words, so repeated key terms rank first.

Limits, by design of a rule-based finder: no part-of-speech tagger, so a noun phrase may start
with a participle ("the planned attack" -> "planned attack") or miss one that no determiner
introduces; lower-case named things ("the mitochondria") count as phrases, not entities;
capitalised words in titles and headings look like entities; number words ("seven") and
relative dates ("last year") are not found; English only (a text in a script without spaces
between words, such as Chinese, yields no answers: `written_without_spaces`). LLM-proposed concepts
(`concept_targets`) and teacher pins cover what the rules miss.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Final, Literal

from quizsmith.generation.sentences import Sentence, split_sentences
from quizsmith.text import PassageError

TargetKind = Literal["number", "date", "entity", "phrase", "concept", "pinned"]

#: Longer answers stop being answers: they are clauses a student cannot produce or recognise.
MAX_ANSWER_WORDS: Final = 6


@dataclass(frozen=True)
class Target:
    """A fact to ask about and the answer inside it.

    `fact == passage[fact_start:fact_start + len(fact)]` and
    `answer == passage[answer_start:answer_start + len(answer)]`, with the answer inside the fact.
    """

    fact: str
    fact_start: int
    answer: str
    answer_start: int
    kind: TargetKind
    sentence_index: int
    score: float

    @property
    def fact_end(self) -> int:
        return self.fact_start + len(self.fact)

    @property
    def answer_end(self) -> int:
        return self.answer_start + len(self.answer)


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# -- word lists --------------------------------------------------------------------------------

STOPWORDS: Final = _words(
    """a about above across after afterwards again against all almost alone along already also
    although always am among amongst an and another any anyhow anyone anything anyway anywhere
    are around as at back be became because become becomes becoming been before beforehand
    behind being below beside besides between beyond both but by can cannot could did do does
    doing done down due during each either else elsewhere enough etc even ever every everyone
    everything everywhere except few for former formerly from further had has have having he
    hence her here hereafter hereby herein hers herself him himself his how however i if in
    indeed into is it its itself just last latter latterly least less many may me meanwhile
    might mine more moreover most mostly much must my myself namely neither never nevertheless
    next no nobody none noone nor not nothing now nowhere of off often on once one only onto or
    other others otherwise our ours ourselves out over own per perhaps please quite rather
    really same several she should since so some somehow someone something sometime sometimes
    somewhere still such than that the their theirs them themselves then thence there
    thereafter thereby therefore therein thereupon these they this those though through
    throughout thru thus to together too toward towards under until up upon us very via was we
    well were what whatever when whence whenever where whereas whereby wherein whereupon
    wherever whether which while whither who whoever whole whom whose why will with within
    without would yet you your yours yourself yourselves also aka i.e e.g etc vs"""
)
PRONOUNS: Final = _words(
    """i me my mine myself you your yours yourself yourselves he him his himself she her hers
    herself it its itself we us our ours ourselves they them their theirs themselves this that
    these those who whom whose which what one ones someone something anyone anything everyone
    everything nobody nothing"""
)
#: Frequent verbs (and verb forms) that a suffix rule cannot tell from nouns.
COMMON_VERBS: Final = _words(
    """is are was were be been being am has have had having do does did done doing say says
    said make makes made making go goes went gone going get gets got gotten take takes took
    taken come comes came see sees saw seen know knows knew known give gives gave given find
    finds found think thinks thought tell tells told become becomes became show shows showed
    shown leave leaves left feel feels felt put puts bring brings brought begin begins began
    begun keep keeps kept hold holds held write writes wrote written stand stands stood hear
    hears heard let lets mean means meant set sets meet meets met run runs ran pay pays paid
    sit sits sat speak speaks spoke spoken lie lies lay lead leads led read reads grow grows
    grew grown lose loses lost fall falls fell fallen send sends sent build builds built
    understand draw draws drew drawn break breaks broke broken spend spends spent cut cuts rise
    rises rose risen drive drives drove driven buy buys bought wear wears wore worn choose
    chooses chose chosen seek seeks sought throw throws threw thrown catch catches caught deal
    deals dealt win wins won forms uses used use include includes including contains contain
    called known remains remain seems seem appears appear occurs occur consists consist
    provides provide allows allow requires require helps help produces produce gives tends
    became can could may might must shall should will would"""
)
MONTHS: Final = (
    "January|February|March|April|May|June|July|August|September|October|November|December"
    "|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec"
)
_WEEKDAYS: Final = _words("monday tuesday wednesday thursday friday saturday sunday")
#: Lower-case words allowed inside a name: "Duke of the Abruzzi", "Charles de Gaulle".
_NAME_CONNECTORS: Final = _words("of the de du la le von van der den da di del for")
# "and" is deliberately not a connector: "CBS and NBC" are two names far more often than
# "Marks and Spencer" is one.
_DETERMINERS: Final = _words(
    """the a an this that these those its their his her our your my each every any some no
    of in on at by for from with into onto about against between among during through under
    over after before without within across toward towards upon as per"""
)
_NON_NOUN_SUFFIXES: Final = (
    "ly",
    "ed",
    "ous",
    "ful",
    "less",
    "ive",
    "ic",
    "ical",
    "able",
    "ible",
    "al",
    "ary",
    "est",
)
#: Nouns that the suffix rule would take for adjectives.
_NOUNS_WITH_ADJECTIVE_SUFFIX: Final = _words(
    """animal capital proposal arrival approval signal festival hospital crystal metal canal
    journal material potential principal rival survival terminal trial total interval mammal
    ritual manual individual official criminal general burial denial refusal removal dictionary
    library secretary boundary century summary salary anniversary military adjective objective
    executive representative detective relative native motive archive republic logic music
    topic clinic public fabric mechanic critic arithmetic rhetoric table cable variable vowel
    forest interest harvest protest contest conquest request test chest guest west quest"""
)
#: Frequent adjectives no suffix gives away; they modify a noun, they are not one.
_COMMON_ADJECTIVES: Final = _words(
    """able afraid alive alone aware bad better best big certain common current different
    difficult early easy entire false free full good great high important large late likely
    little long low main major many minor modern much new next old other own possible present
    real recent right same short similar simple small strong sure true various whole wide young
    worse worst larger largest smaller smallest higher highest lower lowest greater greatest
    older oldest newer newest former latter proper"""
)
_UNITS: Final = (
    r"%|percent|per\s?cent|km|kilomet(?:re|er)s?|m|met(?:re|er)s?|cm|centimet(?:re|er)s?|mm"
    r"|millimet(?:re|er)s?|mi|miles?|ft|feet|foot|inch(?:es)?|yards?|kg|kilograms?|g|grams?"
    r"|mg|milligrams?|lbs?|pounds?|ounces?|oz|tons?|tonnes?|t|l|litres?|liters?|ml|millilit"
    r"(?:re|er)s?|gallons?|acres?|hectares?|ha|sq\s?(?:km|mi|ft|m)|square\s(?:kilomet(?:re|er)s"
    r"|miles|met(?:re|er)s|feet)|km²|m²|°\s?[CF]?|degrees(?:\s(?:Celsius|Fahrenheit))?|K|kelvin"
    r"|mph|km/h|m/s|kph|knots?|Hz|kHz|MHz|GHz|W|kW|MW|GW|kWh|V|volts?|watts?|calories|kcal"
    r"|J|kJ|joules?|Pa|kPa|atm|bar|mol|ppm|years?|months?|weeks?|days?|hours?|h|hrs?|minutes?"
    r"|min|seconds?|s|ms|centur(?:y|ies)|decades?|millennia|bytes?|KB|MB|GB|TB"
    r"|dollars?|euros?|yen|francs?|pesos?|rupees?|marks?"
)
_SCALE: Final = r"hundred|thousand|million|billion|trillion|bn|mn"
_NUMBER: Final = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+"

_DATE_PATTERNS: Final = tuple(
    re.compile(p)
    for p in (
        # 14 July 1789, 1st of May 1886, 14 July
        rf"\b\d{{1,2}}(?:st|nd|rd|th)?\s(?:of\s)?(?:{MONTHS})\.?(?:,?\s\d{{3,4}})?\b",
        # July 14, 1789 / July 14th / July 1789
        rf"\b(?:{MONTHS})\.?\s\d{{1,2}}(?:st|nd|rd|th)?(?:,\s?\d{{3,4}})?\b(?![,.]\d)",
        rf"\b(?:{MONTHS})\s\d{{4}}\b",
        # the 1990s, the early 1950s, the mid-1960s, 1980s
        r"(?:\bthe\s)?(?:(?:early|mid|late)[\s-])?\b\d{2,3}0(?:s|'s)\b",
        # the 19th century, the nineteenth century, 5th century BC
        r"(?:\bthe\s)?(?:(?:early|mid|late)[\s-])?\b(?:\d{1,2}(?:st|nd|rd|th)|first|second|third"
        r"|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth|thirteenth|fourteenth"
        r"|fifteenth|sixteenth|seventeenth|eighteenth|nineteenth|twentieth|twenty-first)"
        r"[\s-]century(?:\s(?:BC|BCE|AD|CE))?\b",
        # 44 BC, AD 79, 3000 BCE
        r"\b\d{1,4}\s(?:BC|BCE|AD|CE)\b|\b(?:AD|CE)\s\d{1,4}\b",
        # 1914–1918, 1914-18
        r"\b1\d{3}\s?[–-]\s?(?:1\d{3}|\d{2})\b(?!\d)|\b20\d{2}\s?[–-]\s?(?:20\d{2}|\d{2})\b(?!\d)",
    )
)
# A year: 1000-2099, not part of a bigger number, a decimal, a money amount or a quantity.
_YEAR = re.compile(
    rf"(?<![\d.,$£€¥#])\b(?:1\d{{3}}|20\d{{2}})\b(?![.,]\d|\s?(?:{_UNITS}|{_SCALE})\b|%|\d)"
)
_QUANTITY = re.compile(
    rf"(?:[$£€¥]\s?|\b(?:US\$|USD|EUR|GBP)\s?)?(?<![\w.])-?(?:{_NUMBER})"
    rf"(?:\s?(?:{_SCALE})\b)?(?:\s?(?:{_UNITS})(?![\w]))?"
)
_WORD = re.compile(r"(?:[A-Z]\.){2,}|[^\W_][\w'’.-]*[^\W_]|[^\W_]")
_ACRONYM = re.compile(r"^(?:[A-Z]\.){2,}$|^[A-Z][A-Z0-9&-]*[A-Z0-9]s?$")
_HONORIFICS: Final = _words("mr mrs ms dr prof st mt sr jr gen col lt sgt rev")

_BASE_SCORE: Final[dict[str, float]] = {
    "date": 0.85,
    "number": 0.8,
    "entity": 0.75,
    "phrase": 0.45,
    "concept": 0.9,
    "pinned": 1.0,
}


#: Letters of scripts written without spaces between words (Chinese, Japanese kana and kanji,
#: Thai, Lao, Myanmar, Khmer). The finder's words and the item checks' word counts are
#: space-separated, so no answer is found in such text.
_UNSPACED_SCRIPT = re.compile(
    "[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u0e00-\u0eff"
    "\u1000-\u109f\u1780-\u17ff\U00020000-\U0002ffff]"
)
#: English with a quoted Chinese term stays English; a Chinese text with English names is not.
_UNSPACED_SHARE: Final = 0.5

ENGLISH_ONLY_NOTE: Final = (
    "The passage is written without spaces between words (Chinese, Japanese or Thai, for "
    "example): Quizsmith finds answers and checks questions by English words, and the bundled "
    "models are English-only, so it cannot make items from such text yet."
)


def written_without_spaces(text: str) -> bool:
    """Whether `text` is mostly in scripts that do not separate words by spaces, where
    rule-based targets and the question checks do not work. Each such character counts
    as much as a space-separated word of another script (a Chinese character is about a
    syllable), and at least half of the count must be theirs."""
    unspaced = len(_UNSPACED_SCRIPT.findall(text))
    if not unspaced:
        return False
    others = sum(
        any(ch.isalpha() for ch in word) for word in _UNSPACED_SCRIPT.sub(" ", text).split()
    )
    return unspaced / (unspaced + others) >= _UNSPACED_SHARE


# -- finding candidates --------------------------------------------------------------------------


def candidate_targets(passage_text: str, sentences: Sequence[Sentence]) -> list[Target]:
    """Every plausible (fact, answer) in the passage, best first within each sentence's order.

    `sentences` must be spans of `passage_text` (as `split_sentences` returns them).
    """
    _check_sentences(passage_text, sentences)
    midsentence_caps = _midsentence_capitalised(sentences)
    frequency = _content_word_frequency(sentences)
    n_sentences = max(len(sentences), 1)
    found: list[Target] = []
    for sentence in sentences:
        spans: list[tuple[int, int, TargetKind, float]] = []

        def claim(start: int, end: int, kind: TargetKind, bonus: float = 0.0) -> None:
            _claim(spans, sentence.text, start, end, kind, bonus)  # noqa: B023 (called in-loop)

        for pattern in _DATE_PATTERNS:
            for m in pattern.finditer(sentence.text):
                claim(m.start(), m.end(), "date", 0.05)
        for m in _YEAR.finditer(sentence.text):
            claim(m.start(), m.end(), "date")
        for m in _QUANTITY.finditer(sentence.text):
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
    for rank, concept in enumerate(concepts):
        words = concept.split()
        key = " ".join(words).casefold()
        if not words or key in seen or len(words) > MAX_ANSWER_WORDS:
            continue
        seen.add(key)
        pattern = re.compile(
            r"(?<!\w)" + r"\s+".join(re.escape(w) for w in words) + r"(?!\w)", re.IGNORECASE
        )
        for sentence in sentences:
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


# -- choosing ------------------------------------------------------------------------------------


def choose_targets(
    candidates: Sequence[Target],
    n: int,
    *,
    pinned_facts: Sequence[str] = (),
    pinned_answers: Sequence[str] = (),
    seed: int = 0,
    passage_text: str | None = None,
    sentences: Sequence[Sentence] | None = None,
) -> list[Target]:
    """Up to `n` targets that cover the passage: the teacher's pins first, then one target per
    sentence (best sentences first, varying the kinds of answer) before any sentence gets a
    second one. Answers are not repeated. The same inputs and seed give the same list.

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

    # A small seeded jitter breaks ties and lets another seed pick among near-equal targets.
    jitter = {id(t): rng.uniform(0.0, 0.03) for t in candidates}
    by_sentence: dict[int, list[Target]] = {}
    for target in candidates:
        by_sentence.setdefault(target.sentence_index, []).append(target)
    kind_count = Counter(t.kind for t in chosen)

    def value(t: Target) -> float:
        # Each earlier answer of the same kind costs a little: a quiz of ten dates is dull.
        return t.score + jitter[id(t)] - 0.08 * kind_count[t.kind]

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
            if not inside:
                inside = candidate_targets(
                    text, [Sentence(fact, start, end, 0, _sentence_index(sentences, start))]
                )
            if inside:
                best = max(inside, key=lambda t: (t.score, -t.answer_start))
                answer_at, answer = best.answer_start, best.answer
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


def _claim(
    spans: list[tuple[int, int, TargetKind, float]],
    sentence: str,
    start: int,
    end: int,
    kind: TargetKind,
    bonus: float,
) -> None:
    """Record a span unless an earlier (higher-priority) finder already took part of it:
    dates before numbers before names before phrases."""
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


def _midsentence_capitalised(sentences: Sequence[Sentence]) -> set[str]:
    """Words the passage capitalises other than as a sentence's first word: names."""
    names: set[str] = set()
    for sentence in sentences:
        words = [m.group() for m in _WORD.finditer(sentence.text)]
        for word in words[1:]:
            if word[:1].isupper():
                names.add(_strip_possessive(word.rstrip(".")))
    return names


def _content_word_frequency(sentences: Sequence[Sentence]) -> Counter[str]:
    counts: Counter[str] = Counter()
    for sentence in sentences:
        for m in _WORD.finditer(sentence.text):
            word = m.group().casefold().rstrip(".")
            if word not in STOPWORDS and not word[:1].isdigit():
                counts[_stem(word)] += 1
    return counts


def _stem(word: str) -> str:
    """Crude plural folding so that "cell" and "cells" count together."""
    for suffix, repl in (("ies", "y"), ("sses", "ss"), ("s", "")):
        if word.endswith(suffix) and len(word) > len(suffix) + 2 and not word.endswith("ss"):
            return word[: -len(suffix)] + repl
    return word


def _strip_possessive(word: str) -> str:
    for suffix in ("'s", "’s", "'", "’"):
        if word.endswith(suffix):
            return word[: -len(suffix)]
    return word


_OPENERS: Final = _words(
    """later then today yesterday tomorrow meanwhile finally first second third next soon still
    instead afterwards eventually initially similarly consequently additionally furthermore
    nevertheless nonetheless however thus hence therefore also although though while when
    after before since during in on at by for from with without under over yes no today's"""
)


def _is_opener(word: str) -> bool:
    lowered = word.casefold()
    return (
        lowered in STOPWORDS
        or lowered in PRONOUNS
        or lowered in _OPENERS
        or (lowered.endswith("ly") and len(lowered) > 4)
    )


def _is_capitalised(word: str) -> bool:
    return word[:1].isupper()


def _entities(sentence: str, midsentence_caps: set[str]) -> list[tuple[int, int, int]]:
    """(start, end, word count) of name-like runs of capitalised words in a sentence."""
    words = [(m.start(), m.end(), m.group()) for m in _WORD.finditer(sentence)]
    found: list[tuple[int, int, int]] = []
    i = 0
    while i < len(words):
        word = words[i][2]
        if not _is_capitalised(word) or word.casefold().rstrip(".") in _HONORIFICS:
            i += 1
            continue
        run = [i]
        j = i + 1
        while j < len(words):
            between = sentence[words[j - 1][1] : words[j][0]]
            if between.strip() not in ("", "-", "&"):  # punctuation ends a name
                break
            if _is_capitalised(words[j][2]):
                run.append(j)
                j += 1
                continue
            # Up to two connectors, then a capitalised word: "Isle of the Dead".
            k = j
            while (
                k < len(words)
                and k - j < 2
                and words[k][2] in _NAME_CONNECTORS
                and sentence[words[k - 1][1] : words[k][0]].strip() == ""
            ):
                k += 1
            if (
                k > j
                and k < len(words)
                and _is_capitalised(words[k][2])
                and sentence[words[k - 1][1] : words[k][0]].strip() == ""
            ):
                run.extend(range(j, k + 1))
                j = k + 1
                continue
            break
        i = j
        names = [words[r][2] for r in run]
        # A sentence-initial function word or adverb is not part of the name: "The Home
        # Guard", "Later Goldenson".
        while run and run[0] == 0 and _is_opener(names[0]):
            run, names = run[1:], names[1:]
        while names and names[0].casefold() in _NAME_CONNECTORS:
            run, names = run[1:], names[1:]
        if not run:
            continue
        if run[0] == 0 and len(run) == 1:
            bare = _strip_possessive(names[0].rstrip("."))
            if not (_ACRONYM.match(bare) or bare in midsentence_caps):
                continue  # just the sentence's first word
        if len(run) == 1:
            bare = names[0].casefold().rstrip(".")
            if bare in STOPWORDS or bare in PRONOUNS or bare in _WEEKDAYS:
                continue
        s = words[run[0]][0]
        e = words[run[-1]][1]
        text = sentence[s:e]
        # A sentence-final period belongs to the sentence, unless the name is an acronym
        # ("U.S.") or an initial.
        if text.endswith(".") and not re.search(r"(?:^|[\s.])[A-Z]\.$", text):
            e -= 1
            text = text[:-1]
        stripped = _strip_possessive(text)
        e -= len(text) - len(stripped)
        if e > s:
            found.append((s, e, len(run)))
    return found


def _looks_like_noun(word: str) -> bool:
    lowered = word.casefold()
    if lowered in COMMON_VERBS or lowered in STOPWORDS or lowered in _COMMON_ADJECTIVES:
        return False
    singular = _stem(lowered)
    if singular in _NOUNS_WITH_ADJECTIVE_SUFFIX:
        return True
    if lowered.endswith("ing") and len(lowered) > 5:
        return False  # mostly verbs; nouns in -ing ("building") are lost, a stated limit
    return not singular.endswith(_NON_NOUN_SUFFIXES)


def _noun_phrases(sentence: str, frequency: Counter[str]) -> list[tuple[int, int, float]]:
    """(start, end, score bonus) of lower-case noun-phrase-like runs, at most 4 words."""
    words = [(m.start(), m.end(), m.group()) for m in _WORD.finditer(sentence)]
    found: list[tuple[int, int, float]] = []
    i = 0
    while i < len(words):
        run: list[int] = []
        j = i
        while j < len(words):
            word = words[j][2]
            lowered = word.casefold()
            joined = not run or sentence[words[j - 1][1] : words[j][0]].strip() == ""
            if (
                not joined
                or not word[:1].islower()
                or lowered in STOPWORDS
                or lowered in COMMON_VERBS
                or lowered.endswith("ly")
                or not re.fullmatch(r"[^\W\d_][^\W\d_'’-]*", lowered.strip("-"))
            ):
                break
            run.append(j)
            j += 1
        if not run:
            i += 1
            continue
        i = j
        # The head (last word) must look like a noun; drop trailing verb/adjective look-alikes.
        while run and not _looks_like_noun(words[run[-1]][2]):
            run.pop()
        # A leading participle without a determiner is usually a verb: "also cited interest".
        while (
            run
            and run[0] > 0
            and words[run[0] - 1][2].casefold() not in _DETERMINERS
            and (words[run[0]][2].endswith(("ed", "ing")))
        ):
            run.pop(0)
        run = run[-4:]
        if not run:
            continue
        after = words[run[-1] + 1] if run[-1] + 1 < len(words) else None
        if (
            after is not None
            and _is_capitalised(after[2])
            and sentence[words[run[-1]][1] : after[0]].strip() == ""
        ):
            continue  # a modifier of a name ("the current King"), not a phrase of its own
        previous = words[run[0] - 1][2].casefold() if run[0] > 0 else ""
        introduced = previous in _DETERMINERS or previous.endswith(("'s", "’s"))
        stems = [_stem(words[r][2].casefold()) for r in run]
        recurring = max(frequency[s] for s in stems)
        if not introduced and recurring < 2:
            continue
        if len(run) == 1 and len(words[run[0]][2]) < 4:
            continue  # "war", "act": too short alone to be a good key phrase
        # Key terms repeat: weight by how often the head and its modifiers recur, capped.
        bonus = min(0.3, 0.06 * (sum(frequency[s] for s in stems) / len(stems) - 1))
        bonus += 0.04 * (len(run) - 1)
        found.append((words[run[0]][0], words[run[-1]][1], bonus))
    return found
