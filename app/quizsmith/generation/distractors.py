"""Distractor candidates and the filters they must pass, each drop with its reason.

Candidates come from three places: the generator model, the passage's own words (the classic
"same-passage" distractors: the key's siblings in its lists, the other targets' answers and the
terms it defines and its constituents of the key's kind, generation/analysis.py), and, for
numbers and years, nearby values. The filters are those of the generation issue: not the key
or part of it, no duplicates (text and embeddings), within a similarity band to the key
(plausible, not a synonym), the same kind as the key (a date as precise as the key: a day's
wrong answers are days), and not also true per the passage (the QA model reading
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
kept candidate, most plausible first, "Is X a playwright?" (`distractor_kinds`):
the play's characters offered as its playwright were the commonest fault of the standard
profile's items (docs/generation.md). Where none names one, `wrong_answer_sets` chooses the
kind (the key's entity type, or the QA model's word for a common noun: `key_kinds`).
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

# What kind of answer a text is, and nearby numbers (their own module); reachable here too.
from quizsmith.generation.analysis import Constituent, PassageAnalysis, parse_in_place, parse_phrase
from quizsmith.generation.analysis import same_kind as same_constituent_kind
from quizsmith.generation.answer_kinds import LAST_CENTURY as LAST_CENTURY
from quizsmith.generation.answer_kinds import MONTHS as MONTHS
from quizsmith.generation.answer_kinds import date_precision as date_precision
from quizsmith.generation.answer_kinds import grouped, is_decade_of
from quizsmith.generation.answer_kinds import kind_of as kind_of
from quizsmith.generation.answer_kinds import numeric_variants as numeric_variants
from quizsmith.generation.answer_kinds import ordinal as ordinal
from quizsmith.generation.answer_kinds import same_kind as same_kind
from quizsmith.generation.answer_kinds import same_value as same_value

# The kind check (its own module); its names stay reachable here, where callers look for them.
from quizsmith.generation.distractor_kinds import BROADER_FROM as BROADER_FROM
from quizsmith.generation.distractor_kinds import KEY_NOT_ASKED_BELOW as KEY_NOT_ASKED_BELOW
from quizsmith.generation.distractor_kinds import KIND_FLOOR as KIND_FLOOR
from quizsmith.generation.distractor_kinds import KIND_MARGIN as KIND_MARGIN
from quizsmith.generation.distractor_kinds import KIND_SPARES as KIND_SPARES
from quizsmith.generation.distractor_kinds import PLACE as PLACE
from quizsmith.generation.distractor_kinds import KindCheck as KindCheck
from quizsmith.generation.distractor_kinds import asked_kind as asked_kind
from quizsmith.generation.distractor_kinds import broader_reading as broader_reading
from quizsmith.generation.distractor_kinds import first_that_pass, singular
from quizsmith.generation.distractor_kinds import key_of_another_kind as key_of_another_kind
from quizsmith.generation.distractor_kinds import kind_asked_of_key as kind_asked_of_key
from quizsmith.generation.distractor_kinds import kind_of_entity as kind_of_entity
from quizsmith.generation.distractor_kinds import kind_of_stems as kind_of_stems
from quizsmith.generation.distractor_kinds import kind_reading as kind_reading
from quizsmith.generation.placeholder_names import invented_name
from quizsmith.generation.writer import names_its_answer
from quizsmith.metrics.squad import normalize_answer
from quizsmith.providers.base import Fixed, OptionLogprob, Provider
from quizsmith.providers.nearest import cosine

NAMED_IN_QUESTION = "named in the question (a student rules it out, or takes it as right)"
#: "not foreign forces like the British Army and King's African Rifles": asked from that
#: sentence, a question whose key is King's African Rifles has the British Army right too (a
#: standard bench item offered it, 4082bbf to 0a1ee79). The key's siblings in the passage's
#: other sentences stay candidates.
FELLOW_MEMBER = (
    "named beside the key in a list of its source sentence, which says the same of both (right too)"
)
INVENTED_NAME = "a made-up placeholder name the passage never mentions (a student rules it out)"


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
    #: The fewest wrong answers an item is made with: two good ones make a three-option item
    #: rather than none, or a fourth option of another kind. Three options serve as well as
    #: four where no fourth is plausible (Rodriguez 2005, "Three options are optimal for
    #: multiple-choice items", a meta-analysis of 80 years of research), and the bench's
    #: items to fix were mostly one such fourth option ("Gustave Caillebotte" among names for
    #: a group of painters; "passenger's motion" beside friction and momentum).
    fewest: int = 2


#: The reason recorded for a survivor beyond the wanted number: it passed every check, so
#: the editor offers it to replace a wrong answer (operations/wrong_answers.py).
NOT_NEEDED = "not needed (enough better candidates)"


@dataclass
class FilterOutcome:
    kept: list[str] = field(default_factory=list)
    dropped: list[tuple[str, str]] = field(default_factory=list)
    #: Survivors beyond the wanted number, best first: a question that names one of the kept
    #: ones takes the next of these instead (`options_for`).
    spare: list[str] = field(default_factory=list)
    #: Those of `kept` and `spare` that stand in for want of others (`last`): likely another
    #: kind of answer than the key.
    stand_ins: list[str] = field(default_factory=list)

    def drop(self, text: str, reason: str) -> None:
        self.dropped.append((text, reason))


def filter_distractors(
    key: str,
    candidates: Sequence[str],
    *,
    embed: Callable[[Sequence[str]], list[list[float]]] | None,
    reader: Callable[[list[str]], list[Reading]] | None,
    question: str = "",
    aliases: Collection[str] = (),
    fellow_members: Collection[str] = (),
    config: FilterConfig | None = None,
    kind: KindCheck | None = None,
    broader: Callable[[str], float] | None = None,
    passage: str = "",
    analysis: PassageAnalysis | None = None,
    last: Collection[str] = (),
) -> FilterOutcome:
    """Keep up to `config.wanted` candidates that pass every filter.

    `reader` reads each candidate (`qa_reading`): one the QA model prefers to the key may also
    be true and is dropped; the rest are kept most plausible first. Without it the given
    order stands. `aliases` are other names of the key (`appositives`), `fellow_members` the
    other members of a list its source sentence names it in (right too); an option that
    `question` names is dropped, and so is a made-up placeholder name ("John Smith") that
    `passage` does not mention (`invented_name`). `kind` (`kind_reading`) drops, in that order,
    candidates that are not the kind of thing the question asks for, and `broader`
    (`broader_reading`, for a key that is a phrase, not a name) those the key is a kind of,
    until enough have passed. `analysis` (the passage's) drops candidates of another kind or
    form than the key (`kind_and_form`). Candidates in `last` stand in only for want of others.
    """
    cfg = config or FilterConfig()
    alias_norms = {normalize_answer(a) for a in aliases}
    fellow_norms = {normalize_answer(m) for m in fellow_members}
    out = FilterOutcome()
    key_norm = normalize_answer(key)
    key_kind = kind_of(key)
    key_precision = date_precision(key) if key_kind == "date" else ""
    key_c = (analysis.find(key) or parse_phrase(key)) if analysis is not None else None
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
        elif _number_free(norm) == _number_free(key_norm):
            # "meander" for the key "meanders" (the 1.5B model's, bench/generation.py).
            reason = "the key in the singular or the plural"
        elif f" {norm} " in f" {key_norm} ":
            reason = "part of the key"
        elif f" {key_norm} " in f" {norm} ":
            reason = "contains the key"
        elif norm in seen:
            reason = "a duplicate of another candidate"
        elif norm in alias_norms:
            reason = "another name the passage gives the key (also right)"
        elif norm in fellow_norms:
            reason = FELLOW_MEMBER
        elif question and named_in(text, question):
            reason = NAMED_IN_QUESTION
        elif passage and invented_name(text, passage, key):
            reason = INVENTED_NAME
        elif len(text.split()) > max(cfg.max_words, 3 * len(key.split())):
            reason = "much longer than the key"
        elif not same_kind(key_kind, text):
            reason = f"not the same kind as the key (the key is a {key_kind})"
        elif key_kind == "year" and is_decade_of(key) != is_decade_of(text):
            # "1925" or "1889s" beside "the 1920s", "1920s" beside 1925: odd by their form.
            reason = "a decade beside a year, or a year beside a decade (odd by its form)"
        elif key_precision and (precision := date_precision(text)) != key_precision:
            reason = f"a {precision} where the key is a {key_precision} (the odd one out by form)"
        elif analysis is not None and (why := kind_and_form(key_c, key, text, analysis)):
            reason = why
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
    survivors = sorted(survivors, key=lambda text: text in last)  # stable: the order stands
    if key_kind != "phrase":
        # "Is 1954 a kind of 1955?" asks nothing; a name's wrong answers are names (the kind
        # filter above), and a broader term is a common noun ("educational institutions"),
        # so for a name it would cost a model call per candidate and find nothing.
        broader = None
    if (kind is not None or broader is not None) and survivors:
        survivors = first_that_pass(
            key, survivors, cfg.wanted + KIND_SPARES, out.drop, kind=kind, broader=broader
        )
    out.kept = survivors[: cfg.wanted]
    out.spare = survivors[cfg.wanted :]
    out.stand_ins = [text for text in survivors if text in last]
    for text in out.spare:
        out.drop(text, NOT_NEEDED)
    return out


def _number_free(norm: str) -> str:
    """A normalised answer with its last word in the singular: "meanders" and "meander" meet."""
    head, _, last = norm.rpartition(" ")
    return f"{head} {singular(last)}".strip()


def named_in(option: str, question: str) -> bool:
    """True when the question already names the option (whole words, case and articles
    ignored): "Creon" for "Which son does Creon try to keep from burial?"; or names every
    content word of it in another form (Porter stems, `writer.names_its_answer`): "bank
    erosion" for "What type of erosion does the river undergo as it wears away its banks and
    bed?" (key lateral erosion; a standard bench item at 4082bbf): an option the question
    describes in its own words reads as right, or as its echo."""
    norm = normalize_answer(option)
    if not norm:
        return False
    return f" {norm} " in f" {normalize_answer(question)} " or names_its_answer(question, option)


def options_for(question: str, outcome: FilterOutcome, wanted: int) -> list[str]:
    """The distractors for one of a target's questions: the best survivors it does not name.
    A target's candidate questions share one filtered set, built for the first of them."""
    return [d for d in [*outcome.kept, *outcome.spare] if not named_in(d, question)][:wanted]


def same_passage_candidates(
    analysis: PassageAnalysis, key: str, rng: random.Random, others: Iterable[str] = ()
) -> list[str]:
    """The passage's own phrases as wrong answers for the key: its siblings in the
    passage's lists, in the passage's order; then the other constituents of its kind (entity
    group, unit, date; for a common-noun phrase, those of its head noun) shuffled; then the
    defined terms and `others` (the quiz's other answers); each once, never the key.

    A phrase key's other phrases share its head noun ("vertical erosion" for lateral erosion):
    any noun phrase is a phrase ("Heavy snowstorms" came for a mountain); where this acts, bad
    items fell from 79% to 47% (studies/phrase_wrong_answers.py). Terms and `others` of
    another kind come last in `filter_distractors` (`wrong_answer_sets.unlike_the_key`)."""
    key_c = analysis.find(key) or parse_phrase(key)
    siblings = analysis.siblings(key)
    wanted = key.casefold()
    rest = [
        c.text
        for c in analysis.constituents
        if c.text.casefold() != wanted
        and c.text not in siblings
        and key_c is not None
        and c.group == key_c.group
        and (key_c.kind not in ("phrase", "term") or c.head == key_c.head)
    ]
    rest = list(dict.fromkeys(rest))
    rng.shuffle(rest)
    terms = [t for t in [*analysis.terms, *others] if t.casefold() != wanted and t not in siblings]
    return list(dict.fromkeys([*siblings, *rest, *terms]))


def kind_and_form(key_c: Constituent | None, key: str, text: str, analysis: PassageAnalysis) -> str:
    """Why `text` is not of the key's kind or form, or "": the analysis reads both (the
    passage's constituent where it is one, else the text on its own); a name's wrong answer
    is a name of its entity type, a number's one of its unit, a date's a date; and a number
    is written as the key writes its numbers (digit grouping)."""
    other = analysis.find(text) or (
        parse_in_place(analysis, key_c, text) if key_c is not None else parse_phrase(text)
    )
    if not same_constituent_kind(key_c, other):
        what = other.group if other is not None else "no noun phrase"
        return (
            f"not of the key's kind (the key is a {key_c.group if key_c else '?'}, this is {what})"
        )
    if key_c is not None and key_c.kind == "number" and grouped(key) != grouped(text):
        return "its digits are grouped otherwise than the key's (the odd one out by form)"
    return ""


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
        elif numeric and any(same_value(text, other) for other, _ in kept):
            out.drop(text, "the same value as another distractor")
        elif not numeric and any(
            cosine(vec, other) > cfg.max_between_distractors for _, other in kept
        ):
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
        prior = qa.option_logprobs(neutral_prompt, options[1:], reuse_prefix=Fixed(neutral_prompt))
        plausible = [a.total - p.total for a, p in zip(asked, prior, strict=True)]
        if not math.isfinite(means[0]):  # no key to compare with: none is preferred to it
            return [Reading(-math.inf, p) for p in plausible]
        return [Reading(m - means[0], p) for m, p in zip(means[1:], plausible, strict=True)]

    return read


def _means(scores: Sequence[OptionLogprob]) -> list[float]:
    return [s.mean if s.n_tokens else -math.inf for s in scores]
