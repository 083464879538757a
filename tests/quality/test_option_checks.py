"""What an MCQ's wrong answers say, read by spaCy (quality/option_checks.py): each diagnostic
fires where it should and not where it should not, and the overall metric raises the flags
with the severities measured on CELA (bench/option_checks.py, metrics/flag_policy.py)."""

from __future__ import annotations

import pytest

from quizsmith.domain import Item, Passage, ScoreResult
from quizsmith.metrics.base import MetricContext
from quizsmith.metrics.flag_policy import FLAG_POLICY
from quizsmith.quality import option_checks
from quizsmith.quality.metric import OverallMetric, SignalsMetric
from quizsmith.quality.option_checks import (
    DUPLICATE,
    MAY_BE_CORRECT,
    OTHER_FORM,
    OTHER_KIND,
    OptionDiagnosis,
    diagnose,
    option_flags,
)

PASSAGE = (
    "Plants make their food by photosynthesis. In the leaves, chlorophyll captures light "
    "energy, which turns carbon dioxide and water into glucose. Oxygen is released as a "
    "by-product of photosynthesis. The glucose is stored as starch in the roots."
)


def _parts(found: list[OptionDiagnosis]) -> dict[str, set[str]]:
    return {d.text: {x.part for x in d.differences} for d in found}


def _codes(found: list[OptionDiagnosis]) -> list[str]:
    return [f.code for f in option_flags(found, "overall")]


def test_a_duplicate_of_the_key_and_of_another_option() -> None:
    found = diagnose("Which gas do plants release?", "Oxygen", ["oxygen.", "Nile.", "the Nile"])
    by_text = {d.text: d for d in found}
    # Case, punctuation and determiners aside, the same answer.
    assert by_text["oxygen."].duplicates_key and by_text["oxygen."].duplicate_of == "Oxygen"
    assert by_text["the Nile"].duplicate_of == "Nile." and not by_text["the Nile"].duplicates_key
    assert by_text["Nile."].duplicate_of is None  # the first of the two is no repeat
    assert _codes(found)[:2] == [MAY_BE_CORRECT, DUPLICATE]
    assert "\u201coxygen.\u201d says the same as the key" in by_text["oxygen."].reasons()[0]
    # Different words are no duplicates.
    assert all(d.duplicate_of is None for d in diagnose("?", "Oxygen", ["Nitrogen", "Helium"]))


def test_a_verb_among_nouns() -> None:
    found = diagnose(
        "Plants make their food by ____.", "photosynthesis", ["respiration", "running"]
    )
    assert _parts(found) == {"respiration": set(), "running": {"pos"}}
    assert _codes(found) == [OTHER_KIND]
    assert "\u201crunning\u201d is a verb where the key" in found[1].reasons()[0]


def test_a_plural_among_singulars() -> None:
    found = diagnose("She bought one ____ at the market.", "apple", ["pear", "banana", "oranges"])
    assert _parts(found) == {"pear": set(), "banana": set(), "oranges": {"tag"}}
    # Measured below the warning bar: a hint of its own, not "no one would choose".
    assert _codes(found) == [OTHER_FORM]
    assert "plural" in found[2].reasons()[0]


def test_a_person_among_places() -> None:
    stem = "The peace treaty was signed in ____ in 1919."
    found = diagnose(stem, "Paris", ["London", "Berlin", "Albert Einstein"])
    assert _parts(found) == {"London": set(), "Berlin": set(), "Albert Einstein": {"entity"}}
    assert "a person where the key \u201cParis\u201d is a place" in found[2].reasons()[0]
    # Shown as a reason; too few names on CELA to measure it, so it raises no flag.
    assert _codes(found) == []


def test_a_number_among_words() -> None:
    found = diagnose("The capital of France is ____.", "Paris", ["London", "1804", "Madrid"])
    assert "number" in _parts(found)["1804"]
    assert _parts(found)["London"] == _parts(found)["Madrid"] == set()
    assert _codes(found) == [OTHER_KIND]


def test_options_read_in_the_passage_sentence_or_alone() -> None:
    # A question's key the passage states: read in that sentence; else on its own.
    (placed,) = diagnose("Which gas do plants release?", "Oxygen", ["Nitrogen"], PASSAGE)
    (alone,) = diagnose("Which gas do plants release?", "Oxygen", ["Nitrogen"])
    assert (placed.reading, alone.reading) == ("sentence", "alone")
    (held,) = diagnose("Which gas?", "Oxygen", ["carbon dioxide"], PASSAGE)
    assert held.in_passage and not placed.in_passage
    # What the passage holds is a reason, never a flag: measured no sign of a second answer.
    assert _codes([held]) == []


def test_read_alone_a_difference_is_a_hint_only() -> None:
    (alone,) = diagnose("Which gas do plants release?", "Oxygen", ["1804"])
    assert alone.reading == "alone" and "number" in {d.part for d in alone.differences}
    assert _codes([alone]) == [OTHER_FORM]


def test_evidence_round_trip() -> None:
    found = diagnose("She bought one ____.", "apple", ["apple!", "oranges", "pear"], PASSAGE)
    back = [OptionDiagnosis.from_dict(d.to_dict()) for d in found]
    assert back == found
    assert OptionDiagnosis.from_dict({"no": "text"}) is None


def test_the_policy_gives_each_flag_its_measured_severity() -> None:
    assert FLAG_POLICY[OTHER_KIND].severity == "warning"
    assert FLAG_POLICY[OTHER_KIND].precision is not None
    assert FLAG_POLICY[OTHER_KIND].precision >= 0.6
    assert FLAG_POLICY[MAY_BE_CORRECT].severity == "warning"
    assert FLAG_POLICY[OTHER_FORM].severity == "info"
    assert FLAG_POLICY[DUPLICATE].severity == "info"
    assert set(option_checks.FLAG_CODES) <= set(OverallMetric.flag_codes)


class _StandInModel:
    """The overall model's place without a fitted file: a fixed, acceptable estimate."""

    def predict(self, scores: object) -> ScoreResult:
        return ScoreResult(metric="overall", value=0.8, evidence={"features": {}})


@pytest.fixture
def stand_ins(monkeypatch: pytest.MonkeyPatch) -> None:
    """Signals and the overall model without a language model loaded: every item reads as a
    question and is estimated acceptable, so only its options can raise a flag."""
    from quizsmith.quality import overall_model

    def signals(self: SignalsMetric, item: Item, ctx: MetricContext) -> ScoreResult:
        return ScoreResult(metric="signals", value=0.9, values={"is_question": 1.0})

    monkeypatch.setattr(SignalsMetric, "score", signals)
    monkeypatch.setattr(overall_model, "load_active_model", lambda profile=None: _StandInModel())


def _mcq(distractors: list[str]) -> Item:
    return Item(
        type="mcq",
        stem="Which gas do plants release?",
        key="Oxygen",
        options=Item.make_options("Oxygen", distractors),
        passage=Passage(text=PASSAGE),
    )


@pytest.mark.usefixtures("stand_ins")
def test_the_overall_metric_flags_a_bad_mcq_and_not_a_good_one() -> None:
    from quizsmith.jobs import run_to_end
    from quizsmith.metrics.runner import score_items

    bad = _mcq(["oxygen.", "1804", "Nitrogen"])
    good = _mcq(["Nitrogen", "Carbon dioxide", "Helium"])
    run_to_end(score_items([bad, good], ["overall"], MetricContext()))
    flags = {f.code: f for f in bad.flags}
    assert flags[MAY_BE_CORRECT].severity == "warning"  # it puts the item in the review queue
    assert "\u201coxygen.\u201d says the same as the key" in flags[MAY_BE_CORRECT].message
    assert flags[OTHER_KIND].severity == "warning"
    assert "\u201c1804\u201d is a number" in flags[OTHER_KIND].message
    assert all(f.metric == "overall" for f in bad.flags)
    assert not [f for f in good.flags if f.code in option_checks.FLAG_CODES]
    # The diagnoses travel with the result, so a stored result raises the same flags.
    stored = bad.scores["overall"]
    assert len(stored.evidence[option_checks.EVIDENCE_KEY]) == 3
    assert OverallMetric().flags(stored, {}) == [f for f in bad.flags if f.metric == "overall"]


def test_a_cloze_estimate_carries_its_option_flags() -> None:
    # No cloze estimate ships today (it does not apply); once one does, its flags come too.
    found = diagnose("Plants make their food by ____.", "photosynthesis", ["running"])
    result = ScoreResult(
        metric="overall",
        value=0.9,
        evidence={
            "estimate": "cloze",
            "flag_below": 0.2,
            option_checks.EVIDENCE_KEY: [d.to_dict() for d in found],
        },
    )
    flags = OverallMetric().flags(result, {})
    assert [(f.code, f.severity) for f in flags] == [(OTHER_KIND, "warning")]
