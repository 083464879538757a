"""Cheap, reference-free signals of an item's quality, for the overall estimate.

The papers' procedures (NACo's chain of thought, MIRROR's reviews) need a model that can
reason; the bundled 135M/270M models cannot, but they can still tell how likely a text is.
These signals ask only for likelihoods and embeddings, which small models give reliably:

- answer likelihoods (a KDA-style gain for any item type): the key's mean token log-prob as
  the answer to the question after the passage, against the same with the question alone
  (does the passage make the key the answer?) and against the passage with a question that
  asks nothing (does *this question* point at the key?);
- answer selection by likelihood: the candidate spans of the passage most related to the
  question (entities, numbers, noun phrases) plus the key and the distractors, ranked by
  their likelihood as the answer; the key's share of the probability and the token F1 of the
  chosen span with the key (NACo's answerability, `a`, without free-text generation);
- the question's own likelihood under the instruct model (fluency);
- MiniLM similarity between the question and its best passage sentence, whether the key is
  in that sentence, how many of the question's content words the passage holds (a question
  about another text shares few), whether the stem gives the key away, stem length, whether
  the stem reads as a question, and whether the wh-word fits the key (who/person,
  when/date, how many/number, where/place);
- MiniLM cosine between the question and its key (a question very close to its key gives
  it away or asks for something else), and between the question and the passage sentence
  that holds the key, with the key blanked out (a question about the key's sentence reads
  like that sentence without its answer).

Every prompt starts with the text block that the KDA likelihood solver reads
(`Text: ...\\n`), so in the live set the passage's state is already kept for that model.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from quizsmith.domain import Item
from quizsmith.metrics.kda import STOPWORDS
from quizsmith.metrics.squad import f1_score, normalize_answer
from quizsmith.providers.base import Provider
from quizsmith.providers.nearest import cosine, nearest_sentences, sentence_vectors

#: The question that asks nothing: the key's likelihood after it is the passage's own prior.
NEUTRAL_QUESTION = "What is mentioned in the text?"
#: Preamble for the question's fluency under the instruct model (no passage: pure wording).
FLUENCY_PREFIX = "A well-written quiz question:\n"
#: How many passage sentences (most similar to the question) give candidate answers, and the
#: most candidates scored besides the key and the distractors.
CANDIDATE_SENTENCES = 1
MAX_CANDIDATES = 6

#: Bump when a signal's definition changes: cached signals are then computed afresh.
SIGNALS_VERSION = 2  # 2: cos_q_key and cos_q_masked

#: The signals the light models' likelihoods give (the passage reader's and the instruct
#: model's): `compute_signals` without a reader leaves them out, for an overall model that
#: reads none of them (the standard profile's, quality/metric.py).
LIKELIHOOD_SIGNALS: tuple[str, ...] = (
    "key_lp",
    "key_gain_passage",
    "key_gain_question",
    "key_share",
    "pick_f1",
    "q_fluency",
)
#: Every signal `compute_signals` lists (None where it could not be computed).
SIGNALS: tuple[str, ...] = (
    *LIKELIHOOD_SIGNALS,
    "sim",
    "key_in_sentence",
    "overlap",
    "key_in_stem",
    "stem_words",
    "is_question",
    "wh_match",
    "cos_q_key",
    "cos_q_masked",
)

_WORD = re.compile(r"[A-Za-z0-9]+(?:'[a-z]+)?")
# KDA's list of words that are not "the key's words" (articles, question words, be/do...),
# plus pronouns, which say nothing about what a question is about.
_PRONOUN_TEXT = (
    "than then there their they he she his her him them we you your our i me my into but"
)
_STOP = STOPWORDS | frozenset(_PRONOUN_TEXT.split(" "))
#: First words of a question (or of an imperative quiz stem: "Name the...", "List...").
_QUESTION_START_TEXT = (
    "what which who whom whose when where why how is are was were do does did can could will "
    "would should has have had in on at for from by to according name list give"
)
_QUESTION_START = frozenset(_QUESTION_START_TEXT.split(" "))
_MONTHS = "january february march april may june july august september october november december"
_DATE = re.compile(rf"\b(1[0-9]{{3}}|20[0-9]{{2}}|{'|'.join(_MONTHS.split())})\b", re.IGNORECASE)
_NUMBER = re.compile(
    r"\d|\b(one|two|three|four|five|six|seven|eight|nine|ten|hundred|thousand|million|billion)\b",
    re.I,
)


@dataclass
class Signals:
    """Signal values by name (None = could not be computed) and what a teacher can read."""

    values: dict[str, float | None] = field(default_factory=dict)
    evidence: dict[str, Any] = field(default_factory=dict)


def content_words(text: str) -> list[str]:
    return [w for w in (m.group().lower() for m in _WORD.finditer(text)) if w not in _STOP]


def is_question(stem: str) -> float:
    """1 when the stem reads as a question (a question mark, or a question word first)."""
    text = stem.strip()
    if not text:
        return 0.0
    first = text.split()[0].lower().strip("\"'(")
    return 1.0 if text.endswith("?") or first in _QUESTION_START else 0.0


def wh_match(stem: str, key: str) -> float:
    """Whether the wh-word fits the key: 1 fits, 0 clashes, 0.5 when the stem says nothing
    checkable (what/which, or no wh-word)."""
    words = stem.lower().split()
    has_number = bool(_NUMBER.search(key))
    capitalised = any(w[:1].isupper() for w in key.split())
    if "how many" in stem.lower() or "how much" in stem.lower():
        return 1.0 if has_number else 0.0
    if "when" in words or "what year" in stem.lower():
        return 1.0 if (_DATE.search(key) or has_number) else 0.0
    if "who" in words or "whom" in words:
        return 1.0 if capitalised and not has_number else 0.0
    if "where" in words:
        return 1.0 if capitalised else 0.3
    return 0.5


def key_in_stem(stem: str, key: str) -> float:
    """Share of the key's content words that the stem already contains (1: gives it away)."""
    key_words = set(content_words(key))
    if not key_words:
        return 0.0
    return len(key_words & set(content_words(stem))) / len(key_words)


def overlap(stem: str, passage: str) -> float:
    """Share of the stem's content words found in the passage."""
    words = content_words(stem)
    if not words:
        return 0.0
    held = set(content_words(passage))
    return sum(w in held for w in words) / len(words)


def masked_key_sentence(sentences: Sequence[str], key: str) -> str | None:
    """The first sentence holding the key (case-insensitive), with the key replaced by a
    blank; None when no sentence holds it word for word."""
    if not key.strip():
        return None
    pattern = re.compile(re.escape(key.strip()), re.IGNORECASE)
    for sentence in sentences:
        if pattern.search(sentence):
            return pattern.sub("___", sentence)
    return None


def key_cosines(
    embedder: Provider, stem: str, key: str, sentences: Sequence[str]
) -> tuple[float, float | None]:
    """(question vs key, question vs the key's sentence with the key blanked; None when no
    sentence holds the key)."""
    masked = masked_key_sentence(sentences, key)
    question = sentence_vectors(embedder, (stem,))[0]  # kept from nearest_sentences
    others = sentence_vectors(embedder, (key,) if masked is None else (key, masked))
    return cosine(question, others[0]), (None if masked is None else cosine(question, others[1]))


def softmax_share(scores: Sequence[float], index: int) -> float:
    top = max(scores)
    weights = [math.exp(s - top) for s in scores]
    return weights[index] / sum(weights)


def text_block(passage: str) -> str:
    """The passage as the KDA likelihood solver shows it (so its kept state is shared)."""
    from quizsmith.metrics.solvers import _context_block

    return _context_block(passage)


def candidate_answers(
    passage: str, sentences: Sequence[str], key: str, extra: Sequence[str]
) -> list[str]:
    """Key first, then the distractors, then spans of `sentences` (entities, numbers, noun
    phrases) that are not the key, without repeats, at most MAX_CANDIDATES after the key."""
    from quizsmith.generation.sentences import split_sentences
    from quizsmith.quality.rule_spans import candidate_targets

    seen = {normalize_answer(key)}
    out = [key.strip()]
    for text in extra:
        norm = normalize_answer(text)
        if text.strip() and norm and norm not in seen:
            seen.add(norm)
            out.append(text.strip())
    spans: list[str] = []
    for sentence in sentences:
        try:
            spans += [t.answer for t in candidate_targets(sentence, split_sentences(sentence))]
        except Exception:  # a sentence the span finder cannot take adds no candidates
            continue
    for span in spans:
        norm = normalize_answer(span)
        if norm and norm not in seen and len(out) <= MAX_CANDIDATES:
            seen.add(norm)
            out.append(span)
    return out


@dataclass(frozen=True)
class AnswerChoice:
    """Answer selection by likelihood: the candidates (key first) and their mean token
    log-probs as the answer after the passage and the question; `picked` is the likeliest."""

    candidates: tuple[str, ...]
    means: tuple[float, ...]

    @property
    def picked(self) -> str:
        return self.candidates[max(range(len(self.means)), key=lambda i: self.means[i])]


def distractors_of(item: Item) -> list[str]:
    return [o.text for o in item.options if not o.is_key]


def likelihood_answer(
    reader: Provider,
    passage: str,
    stem: str,
    key: str,
    distractors: Sequence[str],
    sentences: Sequence[str],
) -> AnswerChoice:
    """Rank the key, the distractors and the spans of `sentences` (the passage sentences
    nearest the question) by their mean token log-prob as the answer. Length-normalised, so
    a long span is not penalised for its length (as the KDA likelihood solver does)."""
    block = text_block(passage)
    candidates = candidate_answers(passage, sentences, key, distractors)
    scored = reader.option_logprobs(
        f"{block}Question: {stem.strip()}\nAnswer:",
        [" " + c for c in candidates],
        reuse_prefix=block,
    )
    return AnswerChoice(tuple(candidates), tuple(lp.mean for lp in scored))


def compute_signals(
    item: Item,
    reader: Provider | None,
    fluency: Provider | None,
    embedder: Provider | None,
) -> Signals:
    """All signals of one item. `reader`: a model with log-probs (the passage reader; None:
    the `LIKELIHOOD_SIGNALS` are skipped, fluency too); `fluency`: the instruct model (None:
    skipped); `embedder`: sentence embeddings (None: the similarity signals are skipped).
    Provider errors propagate (the caller turns them into "not scored: reason")."""
    from quizsmith.generation.sentences import split_sentences

    passage = item.passage.text if item.passage else ""
    stem = item.stem.strip()
    key = item.key.strip()
    out = Signals()
    v = out.values
    v["stem_words"] = float(len(stem.split()))
    v["is_question"] = is_question(stem)
    v["key_in_stem"] = key_in_stem(stem, key)
    v["wh_match"] = wh_match(stem, key)
    v["overlap"] = overlap(stem, passage)
    sentences = [s.text for s in split_sentences(passage)] or [passage]
    best, sims = nearest_sentences(embedder, stem, sentences, CANDIDATE_SENTENCES)
    if sims:
        v["sim"] = max(sims)
        v["key_in_sentence"] = 1.0 if normalize_answer(key) in normalize_answer(best[0]) else 0.0
        out.evidence["best_sentence"] = best[0]
    if embedder is not None:
        v["cos_q_key"], v["cos_q_masked"] = key_cosines(embedder, stem, key, sentences)
    if reader is not None:
        _likelihood_signals(out, reader, fluency, item, best)
    for name in SIGNALS:
        value = v.get(name)
        # Every signal is listed; one that could not be computed (no embedder, no instruct
        # model, a non-finite number) is None, which the overall model treats as missing.
        v[name] = value if value is not None and math.isfinite(value) else None
    return out


def _likelihood_signals(
    out: Signals, reader: Provider, fluency: Provider | None, item: Item, best: Sequence[str]
) -> None:
    """The item's `LIKELIHOOD_SIGNALS`, into `out` (`best`: the passage sentences nearest the
    question, whose spans are candidate answers)."""
    passage = item.passage.text if item.passage else ""
    item_stem, key = item.stem.strip(), item.key.strip()
    block = text_block(passage)
    choice = likelihood_answer(reader, passage, item_stem, key, distractors_of(item), best)
    candidates, means = choice.candidates, choice.means
    alone = reader.option_logprobs(f"Question: {item_stem}\nAnswer:", [" " + key])
    neutral_prompt = f"{block}Question: {NEUTRAL_QUESTION}\nAnswer:"
    # The whole neutral prompt is the same for every item of a passage: kept as a prefix.
    neutral = reader.option_logprobs(
        neutral_prompt, [" " + key], reuse_prefix=(block, neutral_prompt)
    )
    v = out.values
    key_lp = means[0]
    v["key_lp"] = key_lp
    v["key_gain_passage"] = key_lp - alone[0].mean
    v["key_gain_question"] = key_lp - neutral[0].mean
    v["key_share"] = softmax_share(means, 0) if len(means) > 1 else None
    v["pick_f1"] = f1_score(choice.picked, key)
    out.evidence["candidates"] = [
        {"answer": c, "mean_logprob": round(m, 4)} for c, m in zip(candidates, means, strict=True)
    ]
    out.evidence["picked"] = choice.picked
    if fluency is not None:
        lp = fluency.option_logprobs(FLUENCY_PREFIX, [item_stem])
        v["q_fluency"] = lp[0].mean


def item_fingerprint(item: Item) -> str:
    """What the signals depend on: passage, stem, key and options."""
    import hashlib
    import json

    blob = json.dumps(
        [
            item.passage.text if item.passage else "",
            item.stem,
            item.key,
            [o.text for o in item.options],
        ]
    )
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()[:16]
