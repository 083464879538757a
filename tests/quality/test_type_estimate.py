"""True/false and fill-in-the-blank items get an estimate of their own (issue 27, item 3):
the calibration formula, the reasons for items it cannot read, the flags, and on the real
bundled models a right statement above its falsified twin, a clear blank above an ambiguous
one, and the estimate through the metric runner and `quizsmith score`."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from quizsmith.domain import Item, Option, Passage, ScoreResult
from quizsmith.metrics.base import MetricContext
from quizsmith.metrics.flag_policy import FLAG_POLICY
from quizsmith.quality import type_estimate
from quizsmith.quality.metric import OverallMetric

PASSAGE = (
    "The Nile is the longest river in Africa. It flows north through eleven countries and "
    "reaches the Mediterranean Sea in Egypt. The Aswan High Dam, finished in 1970, controls "
    "its yearly flood."
)
CALIBRATION = {
    "tf": {
        "features": ["tf_margin_true", "tf_support"],
        "coef": [2.0, 0.5],
        "intercept": 1.0,
        "flag_below": 0.3,
        "typical_support": {"true": -2.0, "false": -9.0},
        "measured": "Measured on test statements.",
    },
    "cloze": {
        "features": ["cloze_key_share"],
        "coef": [4.0],
        "intercept": -1.0,
        "flag_below": 0.5,
        "measured": "Measured on test blanks.",
    },
    "not_shipped": {},
}


@pytest.fixture
def calibrated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict:
    path = tmp_path / "item_type_calibration.json"
    path.write_text(json.dumps(CALIBRATION), encoding="utf-8")
    monkeypatch.setattr(type_estimate, "calibration_path", lambda: path)
    return CALIBRATION


def _tf(statement: str, key: str = "True") -> Item:
    options = [Option("True", key == "True", 0), Option("False", key == "False", 1)]
    return Item(type="tf", stem=statement, key=key, options=options, passage=Passage(text=PASSAGE))


def _cloze(stem: str, key: str, distractors: tuple[str, ...] = ()) -> Item:
    options = Item.make_options(key, list(distractors)) if distractors else []
    return Item(type="cloze", stem=stem, key=key, options=options, passage=Passage(text=PASSAGE))


def _signals(values: dict) -> ScoreResult:
    return ScoreResult(metric="signals", value=0.5, values=values, evidence={})


def test_the_calibration_formula_on_hand_computed_inputs(calibrated: dict) -> None:
    values = {"tf_margin_true": 0.5, "tf_support": -4.0}
    # z = 1 + 2 * 0.5 + 0.5 * -4 = 0: the statement is true with probability 0.5.
    result = type_estimate.estimate(_tf("The Nile flows north."), _signals(values), "light")
    assert result.value == pytest.approx(0.5)
    values["tf_margin_true"] = 1.5  # z = 2
    true_p = 1 / (1 + math.exp(-2.0))
    assert type_estimate.estimate(
        _tf("The Nile flows north."), _signals(values), "light"
    ).value == pytest.approx(true_p)
    # A False key is right when the statement is false.
    false_key = type_estimate.estimate(_tf("The Nile flows south.", "False"), _signals(values), "")
    assert false_key.value == pytest.approx(1 - true_p)
    cloze = type_estimate.estimate(
        _cloze("The Nile reaches the _____ Sea.", "Mediterranean"),
        _signals({"cloze_key_share": 0.75}),
        "light",
    )
    assert cloze.value == pytest.approx(1 / (1 + math.exp(-(4.0 * 0.75 - 1.0))))


def test_the_evidence_says_what_the_number_is(calibrated: dict) -> None:
    values = {"tf_margin_true": -1.0, "tf_support": -8.0}
    signals = ScoreResult(
        metric="signals", value=0.3, values=values, evidence={"reader_says": "False"}
    )
    result = type_estimate.estimate(_tf("The Nile flows south."), signals, "standard")
    html = OverallMetric.evidence_html(result)
    assert "Estimated chance the key is right, as a model reading the passage sees it" in html
    assert "not the chance you accept" in html and "Measured on test statements." in html
    assert "light profile" in html  # the standard profile uses the light calibration
    assert OverallMetric.chip_reason(result) == (
        "a model reading the passage leans towards \u201cFalse\u201d; the key is True: they differ"
    )
    assert "unlikely after reading the passage" in html
    assert OverallMetric.chip_meaning(result).startswith("Estimated chance the key is right")
    question = OverallMetric.chip_meaning(ScoreResult(metric="overall", value=0.5))
    assert "raters accept" in question


def test_items_it_cannot_read_get_a_reason(calibrated: dict) -> None:
    ctx = MetricContext()
    metric = OverallMetric()
    no_blank = metric.score(_cloze("The Nile reaches the Mediterranean Sea.", "Mediterranean"), ctx)
    assert not no_blank.scored and "no blank" in (no_blank.not_scored_reason or "")
    two = metric.score(_cloze("The _____ reaches the _____ Sea.", "Nile"), ctx)
    assert "more than one blank" in (two.not_scored_reason or "")
    maybe = metric.score(_tf("The Nile flows north.", key="Maybe"), ctx)
    assert "must be True or False" in (maybe.not_scored_reason or "")


def test_a_type_without_a_measured_calibration_does_not_apply_with_the_reason(
    calibrated: dict, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "only_tf.json"
    reason = "Not estimated: the signal did not tell ambiguous blanks apart (AUC 0.52)."
    path.write_text(json.dumps({"tf": CALIBRATION["tf"], "not_shipped": {"cloze": reason}}))
    monkeypatch.setattr(type_estimate, "calibration_path", lambda: path)
    result = OverallMetric().score(
        _cloze("The Nile reaches the _____ Sea.", "Mediterranean"), ctx=MetricContext()
    )
    assert result.not_scored_reason == reason and result.evidence.get("not_applicable")


def test_flags_on_known_bad_items(calibrated: dict) -> None:
    metric = OverallMetric()
    values = {"tf_margin_true": -3.0, "tf_support": -9.0}
    question = _tf("Does the Nile flow north?")
    flags = metric.flags(type_estimate.estimate(question, _signals(values), "light"), {})
    codes = {f.code: f for f in flags}
    assert set(codes) == {"statement-is-question", "reader-disagrees"}
    assert codes["statement-is-question"].severity == "warning"
    assert codes["reader-disagrees"].severity == FLAG_POLICY["reader-disagrees"].severity
    assert "estimated chance the key is right" in codes["reader-disagrees"].message
    ambiguous = type_estimate.estimate(
        _cloze("The Nile is a _____ river.", "long"), _signals({"cloze_key_share": 0.2}), "light"
    )
    (flag,) = metric.flags(ambiguous, {})
    assert flag.code == "blank-ambiguous" and "More than one answer may fit" in flag.message
    clear = type_estimate.estimate(
        _cloze("The Nile is a _____ river.", "long"), _signals({"cloze_key_share": 0.9}), "light"
    )
    assert metric.flags(clear, {}) == []
    # A low estimate of these types is no "low-overall" (no teacher chance was estimated).
    assert "low-overall" not in codes


# --- On the real bundled models and the shipped calibration ---------------------------------


def _shipped(item_type: str) -> None:
    if type_estimate.calibration(item_type) is None:
        pytest.skip(f"no calibration shipped for {item_type} items")


@pytest.mark.slow
def test_a_right_statement_scores_above_its_falsified_twin() -> None:
    _shipped("tf")
    ctx = MetricContext()
    metric = OverallMetric()
    right = metric.score(_tf("The Nile is the longest river in Africa."), ctx)
    falsified = metric.score(_tf("The Nile is the longest river in Europe."), ctx)
    assert right.scored and falsified.scored, (right, falsified)
    assert (right.value or 0.0) > (falsified.value or 1.0)
    # Keyed False, the falsified statement's key is right: it scores above the same
    # statement keyed True.
    keyed_false = metric.score(_tf("The Nile is the longest river in Europe.", "False"), ctx)
    assert (keyed_false.value or 0.0) > 0.5 > (falsified.value or 1.0)
    assert metric.flags(keyed_false, {}) == [] and metric.flags(right, {}) == []
    assert OverallMetric.chip_reason(right) == (
        "every word of the statement is what the passage leads one to expect"
    )
    assert "unlikely after reading the passage" in (OverallMetric.chip_reason(falsified) or "")
    # A statement keyed False that the passage states word for word: the reader doubts it.
    wrong_key = metric.score(_tf("The Nile is the longest river in Africa.", "False"), ctx)
    assert "reader-disagrees" in {f.code for f in metric.flags(wrong_key, {})}


def test_the_cloze_reader_takes_the_sentence_out_of_the_passage() -> None:
    from quizsmith.quality.item_types import REMOVED, blank_source

    stem = "It flows north through _____ countries and reaches the Mediterranean Sea in Egypt."
    blanked = blank_source(PASSAGE, stem)
    assert blanked is not None and REMOVED in blanked and "eleven" not in blanked
    assert blanked.startswith("The Nile is the longest river in Africa.")
    assert blank_source(PASSAGE, "The Amazon is _____ long.") is None


@pytest.mark.slow
def test_cloze_signals_on_the_real_reader() -> None:
    from quizsmith.quality.item_types import cloze_signals
    from quizsmith.quality.metric import _reader

    reader = _reader(MetricContext())
    stem = "It flows north through eleven countries and reaches the _____ Sea in Egypt."
    found = cloze_signals(reader, PASSAGE, stem, "Mediterranean", ["Red", "North"], None)
    assert found.evidence["sentence_removed"]
    assert [c["answer"] for c in found.evidence["candidates"]] == ["Mediterranean", "Red", "North"]
    assert 0.0 < (found.values["cloze_key_share"] or 0.0) < 1.0


@pytest.mark.slow
def test_true_false_and_cloze_get_an_estimate_through_the_runner_and_the_cli(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from quizsmith.cli import main
    from quizsmith.jobs import run_to_end
    from quizsmith.metrics.runner import score_items

    shipped = [t for t in type_estimate.TYPES if type_estimate.calibration(t) is not None]
    items = [_tf("The Nile flows north through eleven countries."), _cloze(
        "The Nile reaches the _____ Sea in Egypt.", "Mediterranean")]  # fmt: skip
    run_to_end(score_items(items, ["overall"], MetricContext()))
    for item in items:
        result = item.scores["overall"]
        if item.type in shipped:
            assert result.scored and 0.0 <= (result.value or -1) <= 1.0, result
            assert result.evidence["estimate"] == item.type
        else:
            assert result.evidence.get("not_applicable") and result.not_scored_reason
    source = tmp_path / "items.jsonl"
    rows = [
        {"type": "tf", "question": items[0].stem, "answer": "True", "passage": PASSAGE},
        {"type": "cloze", "question": items[1].stem, "answer": "Mediterranean", "passage": PASSAGE},
    ]
    source.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    assert main(["score", str(source), "--metrics", "overall"]) == 0
    out = capsys.readouterr().out
    for item in items:
        if item.type in shipped:
            assert f"overall {item.scores['overall'].value:.0%} {item.stem[:40]!r}"[:-1] in out
        else:
            assert f"not scored: {item.stem[:30]!r}"[:-1] in out and "no estimate" in out
    assert "mostly, every word of the statement is what the passage leads" in out


def test_the_chip_says_what_a_true_false_estimate_is(calibrated: dict) -> None:
    from quizsmith.gui.scores import chip_for

    item = _tf("The Nile flows south.")
    values = {"tf_margin_true": -3.0, "tf_support": -9.0}
    signals = ScoreResult(metric="signals", values=values, evidence={"reader_says": "False"})
    result = type_estimate.estimate(item, signals, "light")
    item.scores["overall"] = result
    item.flags = OverallMetric().flags(result, {})
    chip = chip_for(item, "overall")
    assert chip.text == f"{result.value:.0%}" and chip.level == "bad"
    first = chip.tooltip.splitlines()[0]
    assert "chance the key is right" in first and "raters accept" not in first
    assert "Mostly because a model reading the passage leans towards" in chip.tooltip
    # A cloze item whose type has no calibration: "does not apply", with the reason once.
    cloze = _cloze("The Nile reaches the _____ Sea.", "Mediterranean")
    cloze.scores["overall"] = ScoreResult.not_scored(
        "overall", "Fill-in-the-blank items get no estimate.", evidence={"not_applicable": True}
    )
    chip = chip_for(cloze, "overall")
    assert (chip.text, chip.tooltip) == (
        "does not apply",
        "Fill-in-the-blank items get no estimate.",
    )


def test_generation_ranks_true_false_by_kda_and_scores_the_kept_one_overall() -> None:
    from quizsmith.generation.rank import kept_metrics, rank_metrics

    # "Is the key right?" would rank the most blatantly false statement first.
    assert "overall" not in rank_metrics("tf") and "kda" in rank_metrics("tf")
    assert "overall" in kept_metrics("tf")
    assert rank_metrics("mcq")[-1] == "overall"


def test_the_kept_item_is_not_scored_again_with_what_ranked_it_when_nothing_new_is_read() -> None:
    from quizsmith.generation.rank import kept_metrics, rank_metrics

    # A multiple-choice item is ranked by the overall estimate; on the shipped live set no
    # other metric feeds it, so a second estimate would repeat the first.
    assert rank_metrics("mcq") == ["overall"]
    assert kept_metrics("mcq", "standard") == []
    assert kept_metrics("mcq", "light") == []
