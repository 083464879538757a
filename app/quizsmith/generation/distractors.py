"""Distractor candidates and the filters they must pass, each drop with its reason.

Candidates come from three places, in this order of preference: the generator model, other
answers of the same kind found in the passage (the classic "same-passage" distractors), and,
for numbers and years, nearby values. The filters are those of the generation issue: not the
key or part of it, no duplicates (text and embeddings), within a similarity band to the key
(plausible, not a synonym), the same kind as the key, and not also true per the passage
(the QA model reading the source must not prefer it to the key).
"""

from __future__ import annotations

import math
import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from quizsmith.metrics.squad import normalize_answer
from quizsmith.providers.base import Provider
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
    out: list[str] = []
    tries = 0
    while len(out) < count and tries < 50:
        tries += 1
        if is_year:
            new = value + rng.choice([-1, 1]) * rng.randint(2, 25)
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
    also_true: Callable[[list[str]], list[bool]] | None,
    config: FilterConfig | None = None,
) -> FilterOutcome:
    """Keep up to `config.wanted` candidates that pass every filter, in the given order."""
    cfg = config or FilterConfig()
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
    # The QA check costs a model call, so it runs once over the survivors, not per candidate.
    if also_true is not None and survivors:
        verdicts = also_true(survivors)
        checked = []
        for text, true in zip(survivors, verdicts, strict=True):
            if true:
                out.drop(
                    text,
                    "the QA model reading the source prefers it to the key (it may also be true)",
                )
            else:
                checked.append(text)
        survivors = checked
    out.kept = survivors[: cfg.wanted]
    for text in survivors[cfg.wanted :]:
        out.drop(text, "not needed (enough better candidates)")
    return out


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


def qa_prefers(
    qa: Provider, fact: str, question: str, key: str
) -> Callable[[list[str]], list[bool]]:
    """The "also true per the passage" check: the QA model reads the source sentence and the
    question; a distractor whose length-normalised log-likelihood as the answer beats the
    key's is reported as possibly true. Uses `option_logprobs`, so the shared prefix is
    evaluated once (KV cache) for all options."""

    def check(distractors: list[str]) -> list[bool]:
        reading = f"{' '.join(fact.split())}\n"
        prefix = f"{reading}Question: {question}\nAnswer:"
        options = [f" {key}", *(f" {d}" for d in distractors)]
        scores = qa.option_logprobs(prefix, options, reuse_prefix=reading)
        means = [s.mean if s.n_tokens else -math.inf for s in scores]
        return [m > means[0] for m in means[1:]]

    return check
