"""Distractor candidates and the filters they must pass, each drop with its reason.

Candidates come from three places: the generator model, other answers of the same kind found
in the passage (the classic "same-passage" distractors), and, for numbers and years, nearby
values. The filters are those of the generation issue: not the key or part of it, no
duplicates (text and embeddings), within a similarity band to the key (plausible, not a
synonym), the same kind as the key, and not also true per the passage (the QA model reading
the source must not prefer it to the key). Two more come from reading the items the
standard profile made (docs/generation.md): an option the question itself names ("Which
ruler stops Antigone...?" with "Antigone" among the options) is ruled out by any student,
and a name the passage gives the key in apposition ("Creon, the current King of Thebes") is
another right answer.

The survivors are ordered by how plausible the QA model finds each as the answer to the
question without the source (`qa_reading`): a distractor should be the wrong answer a student
who did not learn the fact would pick, not the first one a model happened to write. Without
a QA model that gives log-probabilities the order of the sources above is kept.

Last, where the question names the kind of thing it asks for ("Which playwright ...", "the
name of the waterfall that ..."), a QA model large enough for chat prompts is asked of each
kept candidate, most plausible first, "Is X a playwright?" (`asked_kind`, `kind_reading`):
the play's characters offered as its playwright were the commonest fault of the standard
profile's items (docs/generation.md).
"""

from __future__ import annotations

import math
import random
import re
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

from quizsmith.metrics.squad import normalize_answer
from quizsmith.providers.base import OptionLogprob, Provider
from quizsmith.providers.nearest import cosine

MONTHS = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
]
_NUMBER = re.compile(r"\d[\d,]*(?:\.\d+)?")
_CONNECTORS = {"of", "the", "de", "la", "von", "van", "and", "for", "in", "&"}
NAMED_IN_QUESTION = "named in the question (a student rules it out)"


@dataclass(frozen=True)
class FilterConfig:
    """Thresholds of the distractor filters (MiniLM cosine similarity to the key).

    Measured on MiniLM: a synonym or a misspelling of the key scores 0.86-0.97 ("car" /
    "automobile" 0.86), a plausible same-kind alternative 0.13-0.75 (two painters' names 0.13,
    "Atlantic Ocean" / "Pacific Ocean" 0.75), an unrelated word near 0.2 or below. Numbers are
    exempt from the upper bound because nearby values embed close (14 / 15: 0.88) while being
    clearly different answers.
    """

    min_similarity: float = 0.10
    max_similarity: float = 0.85
    max_between_distractors: float = 0.92
    max_words: int = 12
    wanted: int = 3


@dataclass
class FilterOutcome:
    kept: list[str] = field(default_factory=list)
    dropped: list[tuple[str, str]] = field(default_factory=list)
    #: Survivors beyond the wanted number, best first: a question that names one of the kept
    #: ones takes the next of these instead (`options_for`).
    spare: list[str] = field(default_factory=list)

    def drop(self, text: str, reason: str) -> None:
        self.dropped.append((text, reason))


def kind_of(text: str) -> str:
    """ "year", "date", "number", "name" or "phrase": what a distractor must match."""
    words = text.strip().split()
    lowered = text.lower()
    if re.fullmatch(r"(the )?\d{4}s?", lowered.strip()) or re.fullmatch(
        r"(in )?1\d{3}|20\d{2}", lowered.strip()
    ):
        return "year"
    if any(m in re.findall(r"[a-z]+", lowered) for m in MONTHS) and _NUMBER.search(text):
        return "date"
    if _NUMBER.search(text):
        return "number"
    content = [w for w in words if w.lower() not in _CONNECTORS]
    if content and all(w[:1].isupper() for w in content):
        return "name"
    return "phrase"


def same_kind(key_kind: str, candidate: str) -> bool:
    kind = kind_of(candidate)
    if key_kind in ("year", "number"):
        return kind in ("year", "number")
    if key_kind == "date":
        return kind in ("date", "year")
    return kind == key_kind


def numeric_variants(answer: str, rng: random.Random, count: int = 4) -> list[str]:
    """Nearby values for the first number in the answer, keeping its format and units."""
    match = _NUMBER.search(answer)
    if not match:
        return []
    raw = match.group(0)
    value = float(raw.replace(",", ""))
    decimals = len(raw.split(".")[1]) if "." in raw else 0
    # A four-digit number in a date ("January 2013") is a year too: it moves by years, not by
    # a factor (which would give "January 3020").
    is_year = decimals == 0 and "," not in raw and len(raw) == 4 and 1000 <= value <= 2100
    # The day of a date ("24 April 1954") moves within a month: a factor gave "72 April 1954".
    is_day = decimals == 0 and 1 <= value <= 31 and kind_of(answer) == "date"
    out: list[str] = []
    tries = 0
    while len(out) < count and tries < 50:
        tries += 1
        if is_year:
            new = value + rng.choice([-1, 1]) * rng.randint(2, 25)
        elif is_day:
            new = min(28, max(1, value + rng.choice([-1, 1]) * rng.randint(1, 12)))
        elif value == 0:
            new = rng.randint(1, 10)
        else:
            new = value * rng.choice([0.5, 0.75, 1.25, 1.5, 2.0, 3.0])
        text = _format_like(new, raw, decimals)
        candidate = answer[: match.start()] + text + answer[match.end() :]
        if text != raw and candidate not in out and (not is_year or 1000 <= new <= 2100):
            out.append(candidate)
    return out


def _format_like(value: float, raw: str, decimals: int) -> str:
    if decimals:
        return f"{value:.{decimals}f}"
    number = round(value)
    return f"{number:,}" if "," in raw else str(number)


def filter_distractors(
    key: str,
    candidates: Sequence[str],
    *,
    embed: Callable[[Sequence[str]], list[list[float]]] | None,
    reader: Callable[[list[str]], list[Reading]] | None,
    question: str = "",
    aliases: Collection[str] = (),
    config: FilterConfig | None = None,
    kind: KindCheck | None = None,
) -> FilterOutcome:
    """Keep up to `config.wanted` candidates that pass every filter.

    `reader` reads each candidate (`qa_reading`): one the QA model prefers to the key may also
    be true and is dropped; the rest are kept most plausible first. Without it the given
    order stands. `aliases` are other names of the key (`appositives`); an option that
    `question` names is dropped. `kind` (`kind_reading`) drops, in that order, candidates
    that are not the kind of thing the question asks for, until enough have passed."""
    cfg = config or FilterConfig()
    alias_norms = {normalize_answer(a) for a in aliases}
    out = FilterOutcome()
    key_norm = normalize_answer(key)
    key_kind = kind_of(key)
    textual: list[str] = []
    seen: set[str] = set()
    for raw in candidates:
        text = raw.strip()
        norm = normalize_answer(text)
        reason = ""
        if not norm:
            reason = "empty"
        elif norm == key_norm:
            reason = "the same as the key"
        elif f" {norm} " in f" {key_norm} ":
            reason = "part of the key"
        elif f" {key_norm} " in f" {norm} ":
            reason = "contains the key"
        elif norm in seen:
            reason = "a duplicate of another candidate"
        elif norm in alias_norms:
            reason = "another name the passage gives the key (also right)"
        elif question and named_in(text, question):
            reason = NAMED_IN_QUESTION
        elif len(text.split()) > max(cfg.max_words, 3 * len(key.split())):
            reason = "much longer than the key"
        elif not same_kind(key_kind, text):
            reason = f"not the same kind as the key (the key is a {key_kind})"
        if reason:
            out.drop(text, reason)
            continue
        seen.add(norm)
        textual.append(text)
    if not textual:
        return out
    survivors = textual
    if embed is not None:
        survivors = _similarity_band(key, key_kind, textual, embed, cfg, out)
    # The QA check costs model calls, so it runs once over the survivors, not per candidate.
    if reader is not None and survivors:
        readings = reader(survivors)
        checked: list[tuple[float, str]] = []
        for text, read in zip(survivors, readings, strict=True):
            if read.margin > 0:
                out.drop(
                    text,
                    "the QA model reading the source prefers it to the key (it may also be true)",
                )
            else:
                checked.append((read.plausibility, text))
        # sorted() is stable: equally plausible candidates keep their sources' order.
        survivors = [text for _, text in sorted(checked, key=lambda pair: -pair[0])]
    if kind is not None and survivors:
        survivors = _of_the_asked_kind(key, survivors, kind, cfg.wanted + KIND_SPARES, out)
    out.kept = survivors[: cfg.wanted]
    out.spare = survivors[cfg.wanted :]
    for text in out.spare:
        out.drop(text, "not needed (enough better candidates)")
    return out


#: Candidates checked beyond the wanted number: spares for a target's other questions that
#: name a kept one (`options_for`). Each check is a model call, so the rest go unchecked.
KIND_SPARES = 2
#: How far below the key's reading (or below an even Yes/No) a candidate may read and stay.
#: On nine hand-made cases from the generation bench's items (the 1.5B model, 2026-11-27):
#: margin 0 dropped 23 of 27 wrong-kind candidates and 2 of 25 fitting ones, 1.0 dropped
#: 19 of 27 and none of the fitting ones. The cases come from the items it was built for,
#: so these counts are a check that it works, not a measure of how well.
KIND_MARGIN = 1.0


class KindCheck(NamedTuple):
    """The kind of thing a question asks for and the QA model's reading of one candidate
    (log-odds of "Yes" over "No" to "Is <candidate> a <kind>?")."""

    kind: str
    says_yes: Callable[[str], float]


def _of_the_asked_kind(
    key: str, ordered: list[str], check: KindCheck, enough: int, out: FilterOutcome
) -> list[str]:
    """The candidates, in order, the QA model takes for the asked kind nearly as readily as
    the key, until `enough` have passed; the rest are not read.

    Relative to the key because the model says No to what it does not know: "Is Shoushi Li
    a calendar?" reads -1.2 for the right answer; and with a margin (KIND_MARGIN) because it
    doubts real but obscure names too (Warũhiũ Itote as a person: -0.5), and dropping those
    lets the model's invented ones in ("John Smith", seen on bench/generation.py's items).
    Wrong kinds read far lower: Creon as a playwright -2.8 against Sophocles +2.7."""
    bar = min(0.0, check.says_yes(key)) - KIND_MARGIN
    kept: list[str] = []
    for index, text in enumerate(ordered):
        if len(kept) >= enough:
            for rest in ordered[index:]:
                out.drop(rest, "not needed (enough better candidates)")
            break
        if check.says_yes(text) < bar:
            article = indefinite_article(check.kind)
            out.drop(
                text,
                f"not {article} {check.kind}, the kind of thing the question asks for (the QA "
                f"model answers No to \u201cIs {text} {article} {check.kind}?\u201d)",
            )
        else:
            kept.append(text)
    return kept


def indefinite_article(noun: str) -> str:
    return "an" if noun[:1].lower() in "aeiou" else "a"


def kind_reading(qa: Provider, kind: str) -> KindCheck:
    """Ask the QA model whether a candidate is a `kind`: the log-odds of " Yes" over " No" as
    the answer to "Q: Is X a kind?". A plain question, not the chat template: measured on the
    1.5B model it separated the asked kind from the rest (Sophocles +2.7, Euripides +2.3;
    Creon -2.8, King of Thebes -2.1), where a chat prompt asking whether each candidate is
    "the same kind of thing" as the key stayed within -0.3 and +0.7 for every one
    (docs/generation.md). The 135M model reads no difference (all within -1.5 and +1.2), so
    the pipeline asks only a QA model large enough for chat prompts."""
    article = indefinite_article(kind)

    def says_yes(candidate: str) -> float:
        yes, no = qa.option_logprobs(f"Q: Is {candidate} {article} {kind}?\nA:", [" Yes", " No"])
        return yes.total - no.total

    return KindCheck(kind, says_yes)


def _word_set(text: str) -> frozenset[str]:
    return frozenset(text.split())


#: Words that end the noun after "what"/"which": verbs, prepositions, determiners.
_NOT_A_NOUN = _word_set(
    "is was are were be been do does did has have had can could will would should may might "
    "must shall of in on at for to by from with about as that which who whom whose the a an "
    "this these those it its their his her he she they one two three four five first last"
)
#: Nouns that ask for a number, a time or nothing in particular: the kind filter of
#: `same_kind` covers the first two, and "Is X a name?" asks nothing.
_NO_KIND = _word_set(
    "year date day month century decade time period number percentage percent amount age "
    "name kind type sort way reason part thing much many long far often"
)
#: Verbs that follow "what" as its subject ("What causes erosion?"): no kind is named.
_VERB_AFTER_WHAT = _word_set(
    "happens causes makes helps allows leads means results occurs forms shows explains "
    "describes determines affects controls keeps gives takes comes goes produces protects "
    "carries moves drives stops starts lives eats becomes remains seems contains includes"
)
_ADJECTIVE_ENDINGS = ("al", "ary", "ic", "ive", "ous", "ern", "ian", "ish", "ese", "ful")
_KIND_PATTERNS = (
    re.compile(r"\b(?i:what|which) (?:kind|type|sort) of ([a-z]+(?: [a-z]+)?)"),
    re.compile(r"\bthe name of (?:the |a |an )?([a-z]+(?: [a-z]+)?)"),
    re.compile(r"\b(?i:what|which) ([a-z]+(?: [a-z]+)?)"),
    re.compile(r"\b(?i:what) (?:is|was|are|were) the ([a-z]+) (?:of|that|which|where|at|in)\b"),
)


def asked_kind(question: str) -> str | None:
    """The kind of thing a question asks for, as a singular noun ("Which playwright wrote
    ...?": "playwright"; "What military force was ...?": "military force"; "What is the name
    of the waterfall that ...?": "waterfall"), or None where it names none ("Who ...?", "What
    do ...?") or asks for a number or a time (those are `same_kind`'s). Only of a question:
    a true/false item's "Complete: ..." statement names no kind."""
    if not question.rstrip().endswith("?") or question.startswith("Complete:"):
        return None
    for pattern in _KIND_PATTERNS:
        match = pattern.search(question)
        if not match:
            continue
        words: list[str] = []
        for word in match.group(1).split():
            if word in _NOT_A_NOUN:
                break
            words.append(word)
        if words and (words[0] in _VERB_AFTER_WHAT or words[0].endswith("ed")):
            return None  # "What causes ...", "What happened ...": "what" is the subject
        # A second word only after an adjective ("military force", "chemical element"):
        # otherwise it is the verb ("Which playwright wrote ...", "Which rivers join ...").
        if len(words) == 2 and not words[0].endswith(_ADJECTIVE_ENDINGS):
            words = words[:1]
        if not words:
            continue
        if words[-1] in _NO_KIND or any(w in _NO_KIND for w in words):
            return None
        words[-1] = _singular(words[-1])
        return " ".join(words)
    return None


def _plural(noun: str) -> bool:
    return noun.endswith("s") and not noun.endswith(("ss", "us", "is", "as"))


def _singular(noun: str) -> str:
    if noun.endswith("ies") and len(noun) > 4:
        return noun[:-3] + "y"
    return noun[:-1] if _plural(noun) else noun


def named_in(option: str, question: str) -> bool:
    """True when the question already names the option (whole words, case and articles
    ignored): "Creon" for "Which son does Creon try to keep from burial?"."""
    norm = normalize_answer(option)
    return bool(norm) and f" {norm} " in f" {normalize_answer(question)} "


def options_for(question: str, outcome: FilterOutcome, wanted: int) -> list[str]:
    """The distractors for one of a target's questions: the best survivors it does not name.
    A target's candidate questions share one filtered set, built for the first of them."""
    return [d for d in [*outcome.kept, *outcome.spare] if not named_in(d, question)][:wanted]


#: Words that open an apposition after a name ("Creon, the current King of Thebes,") and
#: before it ("the former King of Thebes, Oedipus,"). A plain list ("bankers, accountants, and
#: cost engineers") has none of them. "the Nile, the Ganges, ..." does, and loses a good
#: distractor: a cheaper mistake than offering a second right answer.
_AFTER_NAME = r"(?:the|a|an)"
_BEFORE_NAME = r"(?:former|current|late|then|present)"


def appositives(passage: str, key: str, candidates: Iterable[str]) -> list[str]:
    """The candidates the passage puts in apposition to the key: other names of it, so they
    would be right answers too: "KEY, the X," / "KEY (X)" / "KEY (aka X)" / "the former X,
    KEY"."""
    found = []
    key_re = re.escape(key.strip())
    for cand in candidates:
        c = re.escape(cand.strip())
        if not c or cand.strip() == key.strip():
            continue
        after = rf"{key_re}\s*(?:,\s*{_AFTER_NAME}\b[\w\s]{{0,20}}?|\(\s*(?:aka\s+)?){c}\s*[,.;)]"
        before = rf"\b{_BEFORE_NAME}\s+{c}\s*,\s*{key_re}(?!\w)"
        if re.search(after, passage, re.IGNORECASE) or re.search(before, passage, re.IGNORECASE):
            found.append(cand)
    return found


def _similarity_band(
    key: str,
    key_kind: str,
    texts: list[str],
    embed: Callable[[Sequence[str]], list[list[float]]],
    cfg: FilterConfig,
    out: FilterOutcome,
) -> list[str]:
    vectors = embed([key, *texts])
    key_vec, rest = vectors[0], vectors[1:]
    kept: list[tuple[str, list[float]]] = []
    numeric = key_kind in ("year", "number", "date")
    for text, vec in zip(texts, rest, strict=True):
        sim = cosine(key_vec, vec)
        if sim < cfg.min_similarity:
            out.drop(text, f"unrelated to the key (similarity {sim:.2f})")
        elif sim > cfg.max_similarity and not numeric:
            out.drop(text, f"too close to the key, possibly a synonym (similarity {sim:.2f})")
        elif any(cosine(vec, other) > cfg.max_between_distractors for _, other in kept):
            out.drop(text, "nearly the same as another distractor")
        else:
            kept.append((text, vec))
    return [text for text, _ in kept]


#: The closed-book prompt's question that asks nothing: what an option scores after it is
#: how likely its words are anyway, which plausibility takes out.
NEUTRAL_QUESTION = "What is the answer?"


class Reading(NamedTuple):
    """What the QA model makes of one distractor (log-probabilities)."""

    #: Per token, as the answer after the source and the question, minus the key's: above 0
    #: the model prefers it to the key, so it may also be true.
    margin: float
    #: As the answer to the question alone, with no source, minus as the answer to a question
    #: that asks nothing: how much more likely *this question* makes it, i.e. how likely a
    #: student who did not read the source would pick it (KDA's view of a working distractor).
    plausibility: float


def qa_reading(
    qa: Provider, fact: str, question: str, key: str
) -> Callable[[list[str]], list[Reading]]:
    """The "also true per the passage" check and the plausibility order: `option_logprobs`
    calls over all the distractors at once (each shared prefix is evaluated once, KV cache;
    the neutral one once for all targets).

    Plausibility is read without the source on purpose: with it, the model favours any name
    the source contains whatever the question asks (a play's characters offered as its
    playwright, seen on bench/generation.py's SQuAD paragraph). And it is a difference of
    whole-answer log-probabilities, not a mean per token: by the mean, a long name whose
    later words follow from its first ("Queen Margaret College") outscored fitting answers
    to "Which theory combines the electroweak and strong forces?" (surface-form competition,
    Holtzman et al. 2021, whose remedy, the ratio to an uninformative question, this is)."""

    def read(distractors: list[str]) -> list[Reading]:
        reading = f"{' '.join(fact.split())}\n"
        prefix = f"{reading}Question: {question}\nAnswer:"
        options = [f" {key}", *(f" {d}" for d in distractors)]
        means = _means(qa.option_logprobs(prefix, options, reuse_prefix=reading))
        asked = qa.option_logprobs(f"Question: {question}\nAnswer:", options[1:])
        neutral_prompt = f"Question: {NEUTRAL_QUESTION}\nAnswer:"
        prior = qa.option_logprobs(neutral_prompt, options[1:], reuse_prefix=neutral_prompt)
        plausible = [a.total - p.total for a, p in zip(asked, prior, strict=True)]
        if not math.isfinite(means[0]):  # no key to compare with: none is preferred to it
            return [Reading(-math.inf, p) for p in plausible]
        return [Reading(m - means[0], p) for m, p in zip(means[1:], plausible, strict=True)]

    return read


def _means(scores: Sequence[OptionLogprob]) -> list[float]:
    return [s.mean if s.n_tokens else -math.inf for s in scores]
