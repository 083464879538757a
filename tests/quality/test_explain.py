"""The overall estimate explains itself (issue 27): the signals whose typical value would move
the estimate most, in words, with the direction of the item's own value."""

from __future__ import annotations

import math

from quizsmith.quality.explain import MIN_EFFECT, explain, reason_text, reference_values


def logistic(rows):
    # P = sigmoid(2*fluency + 0.5*overlap - 1): fluency matters four times as much.
    return [
        1 / (1 + math.exp(-(2 * r["sig.q_fluency"] + 0.5 * r["sig.overlap"] - 1))) for r in rows
    ]


def test_the_signal_that_moved_the_estimate_most_comes_first() -> None:
    feats = {"sig.q_fluency": -1.0, "sig.overlap": 1.0}
    refs = {"sig.q_fluency": 1.0, "sig.overlap": 0.0}
    reasons = explain(logistic, feats, ["sig.q_fluency", "sig.overlap"], refs)
    assert [r["feature"] for r in reasons] == ["sig.q_fluency", "sig.overlap"]
    base = logistic([feats])[0]
    expected = base - logistic([{"sig.q_fluency": 1.0, "sig.overlap": 1.0}])[0]
    assert math.isclose(reasons[0]["effect"], expected)  # hand-computed: about -0.59
    assert reasons[0]["effect"] < 0 and reasons[1]["effect"] > 0
    assert reasons[0]["text"] == "the question reads awkwardly (estimate down 74 points)"
    assert reasons[1]["text"] == "the passage holds the question's words (estimate up 3 points)"


def test_small_effects_missing_values_and_unknown_signals_are_left_out() -> None:
    feats = {"sig.q_fluency": 1.0, "sig.overlap": 0.01, "sig.sim": None}
    refs = {"sig.q_fluency": 1.0, "sig.overlap": 0.0, "sig.sim": 0.5}
    reasons = explain(logistic, feats, ["sig.q_fluency", "sig.overlap", "sig.sim"], refs)
    assert reasons == []  # fluency at its typical value; overlap's effect < MIN_EFFECT
    assert MIN_EFFECT > 0
    assert explain(logistic, feats, ["sig.q_fluency"], {}) == []


def test_k_limits_the_list() -> None:
    feats = {"sig.q_fluency": -1.0, "sig.overlap": 3.0}
    refs = {"sig.q_fluency": 1.0, "sig.overlap": 0.0}
    assert len(explain(logistic, feats, ["sig.q_fluency", "sig.overlap"], refs, k=1)) == 1


def test_the_reader_s_own_answer_is_quoted() -> None:
    text = reason_text("sig.reader_f1", 0.0, 1.0, -0.3, answer="condensation")
    assert text == (
        "a computer model reading the passage answers \u201ccondensation\u201d, not the answer "
        "key (estimate down 30 points)"
    )


def test_a_pull_against_the_words_is_said_to_be_unexpected() -> None:
    # Issue 47: "a model reading the passage picks another phrase than the key (raises the
    # estimate)" read as a contradiction.
    text = reason_text("sig.pick_f1", 0.0, 1.0, 0.04)
    assert text.startswith("asked to pick the answer from the passage, a computer model picks")
    assert "(estimate up 4 points, unexpectedly:" in text
    assert "unexpectedly" not in reason_text("sig.pick_f1", 0.0, 1.0, -0.04)
    # A high value that reads worse: the question names its own answer.
    assert "unexpectedly" not in reason_text("sig.key_in_stem", 1.0, 0.0, -0.1)
    assert "unexpectedly" not in reason_text("sig.stem_words", 20.0, 10.0, -0.1)


def test_reference_values_are_medians_of_present_values() -> None:
    rows = [{"a": 1.0, "b": None}, {"a": 3.0, "b": 2.0}, {"a": 2.0, "b": float("nan")}]
    assert reference_values(rows, ["a", "b", "c"]) == {"a": 2.0, "b": 2.0}


def test_the_evidence_says_why_or_why_it_cannot() -> None:
    from quizsmith.domain import ScoreResult
    from quizsmith.quality.metric import OverallMetric

    def evidence(reasons: object) -> str:
        result = ScoreResult(metric="overall", value=0.7, evidence={"reasons": reasons})
        return OverallMetric.evidence_html(result)

    text = {"feature": "sig.q_fluency", "text": "the question reads awkwardly (lowers it)"}
    assert "What moved it most" in evidence([text]) and "reads awkwardly" in evidence([text])
    assert "No single signal moved it" in evidence([])
    assert "cannot say" in evidence(None)
    assert "70%" in evidence([])
