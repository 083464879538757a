"""Reader signals for the item types that are not questions: true/false statements and
fill-in-the-blank sentences (issue 27, "every item type judged").

The overall model was fitted on *questions* (QGEval: the chance a teacher accepts one), so
it is not applied to a statement or a cloze sentence: that would be an estimate measured on
nothing. Each of these types gets its own signal from the same reader the question signals
use, and its own calibration, measured on labelled cloze tests (CELA, bench/item_types.py,
docs/evaluation.md "True/false and fill-in-the-blank"):

- `tf_key_prob` (true/false): the reader's probability that the key is right, from the
  log-likelihoods of the answer words " True" and " False" after the passage, the statement
  and a fixed question. A small base model prefers one answer word whatever the statement
  says, so each word's log-probability after a content-free statement ("N/A") is subtracted
  first (contextual calibration, Zhao et al. 2021, "Calibrate before use"); the content-free
  prompt is the same for every item of a passage, so it costs one call per passage.
- `cloze_key_share` (fill-in-the-blank): the blank read as a question. The reader sees the
  passage with the cloze's own sentence taken out (else the passage gives the answer away)
  and the sentence with its blank, and scores the key and the alternatives as the answer;
  the key's share is the softmax of their mean token log-probabilities. Alternatives: the
  item's options when it has them, else phrases of the passage near the sentence.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from quizsmith.providers.base import Provider
from quizsmith.quality.signals import candidate_answers, softmax_share, text_block

#: The blank of a generated cloze (generation/builder.py BLANK); any run of 3+ underscores
#: reads as a blank, so an imported "___" is one too.
BLANK_PATTERN = re.compile(r"_{3,}")
TF_QUESTION = "Is the statement true or false according to the text? Answer:"
TF_WORDS = (" True", " False")
#: The content-free statement whose answer-word likelihoods are each word's prior.
CONTENT_FREE = "N/A"
CLOZE_QUESTION = "Fill in the blank"
#: What stands where the cloze's own sentence was in the passage the reader sees.
REMOVED = "…"
#: Passage sentences nearest the cloze sentence that give alternatives when it has no options.
ALTERNATIVE_SENTENCES = 2
#: Words after the blank read with each candidate (the sentence form of the cloze share).
FOLLOWING_WORDS = 8


@dataclass
class TypeSignals:
    values: dict[str, float | None] = field(default_factory=dict)
    evidence: dict[str, Any] = field(default_factory=dict)


def tf_prompt(passage: str, statement: str) -> str:
    return f"{text_block(passage)}Statement: {statement.strip()}\n{TF_QUESTION}"


def tf_margin(reader: Provider, passage: str, statement: str) -> tuple[float, float, float]:
    """(balanced margin for "True", raw log-prob of " True", of " False"): the log-odds of
    True over False after the statement minus the same after the content-free statement."""
    block = text_block(passage)
    true_lp, false_lp = reader.option_logprobs(
        tf_prompt(passage, statement), list(TF_WORDS), reuse_prefix=block
    )
    neutral_prompt = tf_prompt(passage, CONTENT_FREE)
    prior_true, prior_false = reader.option_logprobs(
        neutral_prompt, list(TF_WORDS), reuse_prefix=(block, neutral_prompt)
    )
    margin = (true_lp.total - false_lp.total) - (prior_true.total - prior_false.total)
    return margin, true_lp.total, false_lp.total


def tf_support(reader: Provider, passage: str, statement: str) -> float:
    """How well the passage supports the statement word for word: the lowest log-probability
    of any of the statement's tokens after the passage, from its third token on (its first
    tokens only say where in the passage it starts). A statement the passage holds is
    copied with every token likely; a changed word is one unlikely token."""
    block = text_block(passage)
    (scored,) = reader.option_logprobs(
        f"{block}Statement:", [" " + statement.strip()], reuse_prefix=block
    )
    tokens = scored.token_logprobs[2:] or scored.token_logprobs
    return float(min(tokens)) if tokens else 0.0


def tf_signals(
    reader: Provider, passage: str, statement: str, key: str, *, answer_words: bool = True
) -> TypeSignals:
    """`tf_support`: see `tf_support`; with `answer_words`, also `tf_margin_true`: the
    balanced log-odds of "True" over "False", `tf_margin_key`: the margin signed for the key
    (positive: the reader sides with the key) and `tf_key_prob`: its logistic, before
    calibration. The answer words did not separate true from falsified statements on CELA
    (docs/evaluation.md), so the app asks for them only when a calibration reads them: they
    cost two more calls, the slowest of the three."""
    out = TypeSignals()
    # First, right after the passage: the call that reuses the passage's kept state.
    out.values["tf_support"] = tf_support(reader, passage, statement)
    if not answer_words:
        return out
    margin, true_lp, false_lp = tf_margin(reader, passage, statement)
    signed = margin if key.strip().lower() == "true" else -margin
    out.values["tf_margin_true"] = margin
    out.values["tf_margin_key"] = signed
    out.values["tf_key_prob"] = 1.0 / (1.0 + math.exp(-max(-50.0, min(50.0, signed))))
    out.evidence["reader_says"] = "True" if margin >= 0 else "False"
    out.evidence["answer_logprobs"] = {"True": round(true_lp, 4), "False": round(false_lp, 4)}
    return out


def has_blank(stem: str) -> bool:
    return bool(BLANK_PATTERN.search(stem))


def blank_source(passage: str, stem: str) -> str | None:
    """The passage with the cloze's own sentence replaced by REMOVED (the words around the
    blank found in order, the blank matching up to 80 characters within one sentence); None
    when the passage does not hold the sentence."""
    parts = [r"\s+".join(re.escape(w) for w in p.split()) for p in BLANK_PATTERN.split(stem)]
    if not any(parts):
        return None
    # The blank: a few words, never across a sentence's end.
    pattern = r"\s*[^.!?\n]{1,80}?\s*".join(parts)
    found = re.search(pattern, passage, re.DOTALL)
    if found is None:
        return None
    return passage[: found.start()] + REMOVED + passage[found.end() :]


def cloze_prompt(passage: str, stem: str) -> str:
    return f"{text_block(passage)}{CLOZE_QUESTION}: {stem.strip()}\nAnswer:"


def cloze_alternatives(
    passage: str, stem: str, key: str, options: Sequence[str], embedder: Provider | None
) -> list[str]:
    """Key first, then the other options, or (no options) phrases of the passage sentences
    nearest the cloze sentence (signals.candidate_answers)."""
    if options:
        return candidate_answers(passage, [], key, options)
    from quizsmith.generation.sentences import split_sentences
    from quizsmith.providers.nearest import nearest_sentences

    sentences = [s.text for s in split_sentences(passage)] or [passage]
    near, _ = nearest_sentences(
        embedder, BLANK_PATTERN.sub(" ", stem), sentences, ALTERNATIVE_SENTENCES
    )
    return candidate_answers(passage, near, key, [])


def cloze_signals(
    reader: Provider,
    passage: str,
    stem: str,
    key: str,
    options: Sequence[str],
    embedder: Provider | None,
) -> TypeSignals:
    """`cloze_key_share`: the key's share among the alternatives as the blank's filler;
    `cloze_key_lp`: the key's mean token log-prob. None (share) with no alternative."""
    out = TypeSignals()
    blanked = blank_source(passage, stem)
    out.evidence["sentence_removed"] = blanked is not None
    reading = blanked if blanked is not None else passage
    candidates = cloze_alternatives(reading, stem, key, options, embedder)
    block = text_block(reading)
    scored = reader.option_logprobs(
        cloze_prompt(reading, stem), [" " + c for c in candidates], reuse_prefix=block
    )
    means = [s.mean for s in scored]
    out.values["cloze_key_lp"] = means[0]
    out.values["cloze_key_share"] = softmax_share(means, 0) if len(means) > 1 else None
    out.values["cloze_key_lead"] = means[0] - max(means[1:]) if len(means) > 1 else None
    if len(candidates) > 1 and has_blank(stem):
        # The same choice made by reading the sentence on with each candidate in place (the
        # way a language model solves a cloze: the candidate and the words after the blank,
        # up to FOLLOWING_WORDS of them, scored after the words before it): the key's share.
        before, after = BLANK_PATTERN.split(stem.strip(), maxsplit=1)
        rest = " ".join(after.split()[:FOLLOWING_WORDS])
        joiner = "" if not rest or rest[0] in ".,;:!?'\")" else " "
        filled = reader.option_logprobs(
            f"{block}{before.rstrip()}",
            [" " + c + joiner + rest for c in candidates],
            reuse_prefix=block,
        )
        totals = [f.total for f in filled]
        out.values["cloze_sentence_share"] = softmax_share(totals, 0)
        # The share saturates (whole-sentence totals differ by many nats): the key's lead
        # over the likeliest other candidate keeps the order.
        out.values["cloze_sentence_lead"] = totals[0] - max(totals[1:])
    out.evidence["candidates"] = [
        {"answer": c, "mean_logprob": round(m, 4)} for c, m in zip(candidates, means, strict=True)
    ]
    out.evidence["picked"] = candidates[max(range(len(means)), key=lambda i: means[i])]
    return out
