"""Why the overall estimate is what it is, in a teacher's words (issue 27).

The estimate is a fitted model over a dozen signals, so "p_accept 0.92" says nothing a
teacher can act on. For each signal the model used, the item's value is swapped for the
value typical of the training items (their median, kept in the model's info as
`reference_values`) and the estimate computed again, all in one batch: the signals whose
swap moves the estimate most are the ones that made this item's estimate. Each is told in
words with the direction of the item's value ("the question reads as fluent English",
"few of the question's words are in the passage") and whether it raised or lowered the
estimate. This is a one-at-a-time attribution, not an exact decomposition: with a
non-linear model the effects need not add up to the estimate.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

#: For each signal: what a high value and what a low value of it means, in words.
REASON_WORDS: dict[str, tuple[str, str]] = {
    "sig.key_lp": (
        "a computer model that reads the passage finds the answer key a likely answer",
        "a computer model that reads the passage finds the answer key an unlikely answer",
    ),
    "sig.key_gain_passage": (
        "the passage makes the key the answer",
        "the passage hardly makes the key more likely",
    ),
    "sig.key_gain_question": (
        "the question points at the key",
        "the question hardly points at the key",
    ),
    "sig.key_share": (
        "the key stands out among the passage's possible answers",
        "other phrases of the passage fit the question as well as the key",
    ),
    "sig.pick_f1": (
        "asked to pick the answer from the passage, a computer model picks the answer key",
        "asked to pick the answer from the passage, a computer model picks another phrase",
    ),
    "sig.q_fluency": (
        "the question reads as fluent English",
        "the question reads awkwardly",
    ),
    "sig.sim": (
        "the question is close to a sentence of the passage",
        "no sentence of the passage is close to the question",
    ),
    "sig.key_in_sentence": (
        "the key is in the sentence the question is about",
        "the key is not in the sentence the question is about",
    ),
    "sig.overlap": (
        "the passage holds the question's words",
        "few of the question's words are in the passage",
    ),
    "sig.key_in_stem": (
        "the key's words appear in the question",
        "the question does not give the key away",
    ),
    "sig.stem_words": ("the question is long", "the question is short"),
    "sig.is_question": ("it reads as a question", "it does not read as a question"),
    "sig.wh_match": (
        "the question word fits the key (who/when/where/how many)",
        "the question word does not fit the key",
    ),
    "sig.cos_q_key": (
        "the question and the key are close in meaning",
        "the question and the key are far apart in meaning",
    ),
    "sig.cos_q_masked": (
        "the question reads like the key's sentence without its answer",
        "the question reads unlike the key's sentence",
    ),
    "sig.reader_f1": (
        "a computer model reading the passage answers with the answer key",
        "a computer model reading the passage answers something else",
    ),
    "sig.reader_key_lp": (
        "the answer key is a likely answer for a computer model that reads the passage",
        "the answer key is an unlikely answer for a computer model that reads the passage",
    ),
}
#: Effects smaller than this (in probability) are not worth a teacher's attention.
MIN_EFFECT = 0.02
#: Signals whose high value reads as the worse item (the question gives its answer away), and
#: those that read neither way: for the others a high value reads as the better item.
WORSE_WHEN_HIGH = frozenset({"sig.key_in_stem"})
NEITHER_WAY = frozenset({"sig.stem_words"})


def reference_values(
    rows: Sequence[Mapping[str, float | None]], features: Sequence[str]
) -> dict[str, float]:
    """The median of each feature over the rows where it is present (the training items):
    the typical value an item's own value is compared with."""
    import numpy as np

    found = {}
    for name in features:
        values = [v for row in rows if (v := row.get(name)) is not None and np.isfinite(v)]
        if values:
            found[name] = float(np.median(values))
    return found


def reason_text(
    feature: str, value: float, reference: float, effect: float, answer: str | None = None
) -> str:
    high, low = REASON_WORDS.get(feature, (f"{feature} is high", f"{feature} is low"))
    words = high if value >= reference else low
    if feature == "sig.reader_f1" and answer:
        # The reader's own answer says more than "something else".
        verdict = "the answer key" if value >= reference else "not the answer key"
        words = f"a computer model reading the passage answers \u201c{answer[:60]}\u201d, {verdict}"
    # How much, in points of the percentage the chip shows: "raises the estimate" after a
    # fault read as a contradiction (issue 47).
    moved = f"estimate {'up' if effect > 0 else 'down'} {abs(effect) * 100:.0f} points"
    reads_better = (value >= reference) != (feature in WORSE_WHEN_HIGH)
    if feature not in NEITHER_WAY and feature in REASON_WORDS and reads_better != (effect > 0):
        # A fitted model's pull need not follow the words: say so rather than leave a
        # fault that raises the estimate unexplained.
        moved += ", unexpectedly: a pattern learned from teachers' past decisions"
    return f"{words} ({moved})"


def explain(
    predict: Any,
    feats: Mapping[str, float | None],
    used: Sequence[str],
    references: Mapping[str, float],
    k: int = 3,
    answer: str | None = None,
) -> list[dict[str, Any]]:
    """The k signals that moved this item's estimate most, largest first, each as
    {feature, value, effect, text}. `predict` maps a list of feature rows to probabilities;
    `answer` (the reading model's own answer) is quoted where the reader's F1 is a reason."""
    candidates = [
        f for f in used if f in references and feats.get(f) is not None and f in REASON_WORDS
    ]
    if not candidates:
        return []
    rows = [dict(feats)]
    for name in candidates:
        swapped = dict(feats)
        swapped[name] = references[name]
        rows.append(swapped)
    probabilities = list(predict(rows))
    base = probabilities[0]
    reasons: list[dict[str, Any]] = []
    for name, p in zip(candidates, probabilities[1:], strict=True):
        effect = float(base - p)
        if abs(effect) < MIN_EFFECT:
            continue
        value = float(feats[name])  # type: ignore[arg-type]  # present: filtered above
        text = reason_text(name, value, references[name], effect, answer)
        reasons.append({"feature": name, "value": value, "effect": effect, "text": text})
    reasons.sort(key=lambda r: -abs(r["effect"]))
    return reasons[:k]
