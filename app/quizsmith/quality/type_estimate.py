"""The headline estimate of a true/false or fill-in-the-blank item (issue 27, item 3).

No teacher-acceptance ratings exist for these types, so their estimate says something
narrower than a question's "chance you accept it", and says so in words:

- true/false: the estimated chance that the key is right, as a model reading the passage sees
  it;
- fill-in-the-blank: the estimated chance that the blank has exactly one right answer, the
  key.

Each is a logistic calibration of the reader signals of `quality/item_types.py`, fitted on
labelled cloze tests (CELA) by `python -m quizsmith.evaluation.train_estimator --config
packaging/estimators/item_types.toml` and shipped with its provenance in
resources/item_type_calibration.json. A type the file has no calibration for (its signal did
not separate the labels) is "does not apply", with the measured reason from the file.
"""

from __future__ import annotations

import json
import math
from functools import lru_cache
from pathlib import Path
from typing import Any

from quizsmith.domain import Flag, Item, ScoreResult
from quizsmith.errors import QuizsmithError
from quizsmith.metrics.base import MetricContext, below_text
from quizsmith.metrics.display import esc
from quizsmith.quality.item_types import BLANK_PATTERN, cloze_signals, has_blank, tf_signals

CALIBRATION_FILE = "item_type_calibration.json"
#: The item types with an estimate of their own (the others: the overall model's).
TYPES = ("tf", "cloze")
#: What each type's estimate is, as the evidence and the chip's tooltip say it.
WHAT = {
    "tf": "Estimated chance the key is right, as a model reading the passage sees it",
    "cloze": "Estimated chance the blank has exactly one right answer (the key)",
}
#: "blank-ambiguous" is raised only once a cloze calibration ships (none does: its signal did
#: not separate, docs/evaluation.md); then OverallMetric.flag_codes and FLAG_POLICY list it.
FLAG_CODES = {"tf": "reader-disagrees", "cloze": "blank-ambiguous"}
TF_QUESTION_FLAG = "statement-is-question"


def calibration_path() -> Path:
    from quizsmith import paths

    return paths.resources_dir() / CALIBRATION_FILE


@lru_cache(maxsize=4)
def _load(path: str, mtime: float) -> dict[str, Any]:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise QuizsmithError(
            f"The item-type calibration {path} cannot be read ({exc}).",
            "Reinstall Quizsmith, or rebuild it: python -m quizsmith.evaluation.train_estimator "
            "--config packaging/estimators/item_types.toml",
        ) from exc
    if not isinstance(data, dict):
        raise QuizsmithError(f"The item-type calibration {path} is not a JSON object.", "")
    return data


def calibrations() -> dict[str, Any]:
    """The shipped file (empty when it is missing: every type then does not apply)."""
    path = calibration_path()
    if not path.exists():
        return {}
    return _load(str(path), path.stat().st_mtime)


def calibration(item_type: str) -> dict[str, Any] | None:
    found = calibrations().get(item_type)
    return found if isinstance(found, dict) and "coef" in found else None


def not_applicable(item: Item) -> str | None:
    """Why a true/false or fill-in-the-blank item gets no estimate (None: it can): first what
    is wrong with the item itself, then a type with no measured calibration."""
    if item.type == "tf" and item.key.strip().lower() not in ("true", "false"):
        return "The key of a true/false item must be True or False."
    if item.type == "cloze":
        if not has_blank(item.stem):
            return "The sentence has no blank to fill: mark it with a run of underscores (___)."
        if len(BLANK_PATTERN.findall(item.stem)) > 1:
            return "The sentence has more than one blank; the estimate reads one blank only."
        if not item.key.strip():
            return "The item needs a key (the word or words that fill the blank)."
    if calibration(item.type) is None:
        measured = (calibrations().get("not_shipped") or {}).get(item.type)
        return str(measured) if measured else f"No calibration is shipped for {item.type} items."
    return None


def type_signals(item: Item, reader: Any, ctx: MetricContext) -> tuple[dict[str, Any], dict]:
    """The reader signals of a true/false or fill-in-the-blank item: (values, evidence)."""
    passage = item.passage.text if item.passage else ""
    if item.type == "tf":
        cal = calibration("tf") or {}
        words = "tf_margin_true" in cal.get("features", ())
        found = tf_signals(reader, passage, item.stem, item.key, answer_words=words)
    else:
        distractors = [o.text for o in item.options if not o.is_key]
        found = cloze_signals(reader, passage, item.stem, item.key, distractors, ctx.embedder())
    for name, value in found.values.items():
        if value is not None and not math.isfinite(value):
            found.values[name] = None
    return found.values, found.evidence


def headline_signal(item_type: str, values: dict[str, Any]) -> float:
    """The signals metric's own value (0-1) for these types: for a statement the reader's
    probability of its least expected token after the passage, for a cloze the key's share
    (1 when it had nothing to compare the key with)."""
    if item_type == "tf":
        return math.exp(min(0.0, float(values.get("tf_support") or 0.0)))
    value = values.get("cloze_key_share")
    return float(value) if value is not None else 1.0


def estimate(item: Item, signals: ScoreResult, profile: str) -> ScoreResult:
    """The calibrated estimate, with its reasons in words; "not scored" when a signal it
    reads is missing."""
    cal = calibration(item.type)
    if cal is None:
        return ScoreResult.not_scored("overall", not_applicable(item) or "no calibration")
    features = list(cal["features"])
    x = [signals.values.get(name) for name in features]
    if any(v is None for v in x):
        missing = [f for f, v in zip(features, x, strict=True) if v is None]
        return ScoreResult.not_scored(
            "overall",
            "The reader could not compare the key with any other answer"
            if item.type == "cloze"
            else f"A signal could not be computed ({', '.join(missing)}).",
        )
    z = float(cal["intercept"])
    for coef, value in zip(cal["coef"], x, strict=True):
        z += float(coef) * float(value or 0.0)
    z = max(-50.0, min(50.0, z))
    calibrated = 1.0 / (1.0 + math.exp(-z))
    p = calibrated
    if item.type == "tf" and item.key.strip().lower() == "false":
        p = 1.0 - p  # the calibration says how likely the statement is true
    evidence: dict[str, Any] = {
        "estimate": item.type,
        "reasons": reasons(item, signals, cal, p_true=calibrated),
        "flag_below": float(cal["flag_below"]),
        "measured": str(cal.get("measured", "")),
        "signals": dict(signals.values),
        "signals_evidence": signals.evidence,
    }
    if item.type == "tf":
        evidence["statement_is_question"] = item.stem.strip().endswith("?")
    if profile != "light":
        evidence["note"] = (
            f"Read by the light profile's model: the calibration for {item.type} items was "
            f"measured with it, and the {profile} profile's own model has not been measured "
            "on these items, so the light one is used as it was measured."
        )
    return ScoreResult(
        metric="overall",
        value=p,
        values={"p": p, **{name: signals.values.get(name) for name in features}},
        evidence=evidence,
        model_config={"calibration": cal.get("provenance", {}), "profile": profile},
    )


def _quoted(text: object) -> str:
    return f"\u201c{text}\u201d"


def reasons(
    item: Item, signals: ScoreResult, cal: dict[str, Any], p_true: float
) -> list[dict[str, str]]:
    """What the estimate rests on, in a teacher's words, each a phrase that reads after
    "mostly," (the first is the chip tooltip's and the CLI's reason). `p_true`: the
    calibrated chance that a statement is true (what its support says, the key aside)."""
    v, ev = signals.values, signals.evidence
    texts = []
    reader = "a model reading the passage"
    if item.type == "tf":
        says, key = ev.get("reader_says"), item.key.strip().capitalize()
        agree = "they agree" if says == key else "they differ"
        # Only what the calibration reads is a reason (the answer words may not be).
        if "tf_margin_true" in cal["features"]:
            texts.append(f"{reader} leans towards {_quoted(says)}; the key is {key}: {agree}")
        if v.get("tf_support") is not None:
            texts.append(
                "every word of the statement is what the passage leads one to expect"
                if p_true >= 0.5
                else "a word of the statement is unlikely after reading the passage: it may "
                "not say what the passage says"
            )
    else:
        picked, key = ev.get("picked"), item.key.strip()
        others = [c["answer"] for c in ev.get("candidates", [])[1:]]
        reader = "a model reading the text around the blank"
        if picked and picked != key:
            texts.append(f"{reader} prefers {_quoted(picked)} to the key {_quoted(key)}")
        elif others:
            texts.append(
                f"{reader} prefers the key to {len(others)} other answer(s), e.g. "
                f"{_quoted(others[0])}"
            )
        if not ev.get("sentence_removed", True):
            texts.append(
                "the sentence was not found in the passage, so the model read the whole "
                "passage (which may give the answer away)"
            )
    return [{"text": text} for text in texts]


def flags(result: ScoreResult, metric: str) -> list[Flag]:
    kind = result.evidence.get("estimate")
    found = []
    if result.evidence.get("statement_is_question"):
        found.append(
            Flag(
                TF_QUESTION_FLAG,
                "This true/false item ends with a question mark: students answer True or "
                "False to a statement, not to a question.",
                metric,
            )
        )
    limit = result.evidence.get("flag_below")
    value = result.value
    if kind in FLAG_CODES and isinstance(limit, float) and value is not None and value < limit:
        what = (
            "A model reading the passage doubts the key: estimated chance the key is right"
            if kind == "tf"
            else "More than one answer may fit the blank: estimated chance it has exactly one "
            "(the key)"
        )
        found.append(Flag(FLAG_CODES[kind], f"{what} {below_text(value, limit)}.", metric))
    return found


def evidence_html(result: ScoreResult, chip: str) -> str:
    kind = str(result.evidence.get("estimate"))
    parts = [f"<p>{esc(WHAT.get(kind, 'Estimate'))}: <b>{chip}</b>.</p>"]
    reasons_found = result.evidence.get("reasons") or []
    if reasons_found:
        items = "".join(f"<li>{esc(str(r.get('text', '')))}</li>" for r in reasons_found)
        parts.append(f"<p>What it rests on:</p><ul>{items}</ul>")
    measured = result.evidence.get("measured")
    if measured:
        parts.append(f"<p>{esc(str(measured))}</p>")
    parts.append(
        "<p>No teacher ratings exist for this item type, so this is not the chance you accept "
        "the item; wording and difficulty are not judged.</p>"
    )
    note = result.evidence.get("note")
    if note:
        parts.append(f"<p><i>{esc(str(note))}</i></p>")
    return "".join(parts)
