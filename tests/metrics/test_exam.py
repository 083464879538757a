"""EXAM and n-EXAM (exam paper, section 3.1): arithmetic, abstention, errors, real models."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from quizsmith.domain import Item, Passage
from quizsmith.metrics.base import MetricContext
from quizsmith.metrics.exam import (
    ExamMetric,
    answer_mcq,
    check_text,
    exam_score,
    n_exam,
    n_exam_from_scores,
)
from quizsmith.metrics.solvers import OptionLikelihoodSolver, SolverOutput
from quizsmith.settings import Settings
from support.squad import squad_mcqs, squad_rows

SQUAD = Path(__file__).parents[2].parent / "shared" / "data" / "naco" / "squad_candidates.jsonl"


class FixedSolver:
    """Gives fixed probabilities in the item's option order, whatever the text."""

    def __init__(self, probs: Sequence[float], label: str = "fixed") -> None:
        self._probs = tuple(probs)
        self._label = label

    @property
    def label(self) -> str:
        return self._label

    def config(self) -> dict[str, Any]:
        return {"model": self._label, "profile": "test"}

    def fits(self, context: str | None, stem: str, options: Sequence[str]) -> bool:
        return True

    def probabilities(
        self, context: str | None, stem: str, options: Sequence[str], seed: int
    ) -> SolverOutput:
        order = tuple(range(len(options)))
        return SolverOutput(self._label, self._probs, order, self._probs)


def _item(stem: str = "Capital of France?") -> Item:
    return Item(
        type="mcq",
        stem=stem,
        key="Paris",
        options=Item.make_options("Paris", ["Rome", "Madrid", "Berlin"]),
        passage=Passage(text="The capital of France is Paris."),
    )


# -- arithmetic --------------------------------------------------------------------------------
def test_n_exam_is_ratio_of_sums() -> None:
    system = {"t1": 0.5, "t2": 1.0, "t3": 0.0}
    gold = {"t1": 1.0, "t2": 0.5, "t3": 0.5}
    # (0.5 + 1.0 + 0.0) / (1.0 + 0.5 + 0.5) = 0.75, not the mean of ratios (0.5+2+0)/3.
    assert n_exam_from_scores(system, gold) == pytest.approx(0.75)


def test_n_exam_missing_topic_counts_zero_and_can_exceed_one() -> None:
    assert n_exam_from_scores({"t1": 0.8}, {"t1": 0.4, "t2": 0.4}) == pytest.approx(1.0)
    assert n_exam_from_scores({"t1": 0.9}, {"t1": 0.6}) == pytest.approx(1.5)


def test_n_exam_undefined_and_errors() -> None:
    assert n_exam_from_scores({"t1": 0.5}, {"t1": 0.0}) is None
    with pytest.raises(ValueError):
        n_exam_from_scores({"t1": 0.5}, {})
    with pytest.raises(ValueError):
        n_exam_from_scores({"t1": 1.5}, {"t1": 0.5})


def test_exam_arithmetic_with_fixed_solvers() -> None:
    right = FixedSolver([0.7, 0.1, 0.1, 0.1])
    items = [_item(f"Q{i}?") for i in range(4)]
    report = exam_score("any text", items, [right])
    assert (report.exam, report.n_correct, report.n, report.failed) == (1.0, 4, 4, [])
    wrong = FixedSolver([0.1, 0.7, 0.1, 0.1])
    report = exam_score("any text", items, [wrong])
    assert report.exam == 0.0
    assert [f["answered"] for f in report.failed] == ["Rome"] * 4
    # The ensemble is the mean: (0.7 + 0.1)/2 for Paris vs (0.1 + 0.7)/2 for Rome is a tie.
    tie = answer_mcq("text", items[0], [right, wrong])
    assert tie.choice is None and "abstained" in tie.reason


def test_abstention_counts_as_wrong() -> None:
    unsure = FixedSolver([0.26, 0.25, 0.25, 0.24])
    report = exam_score("text", [_item(), _item("Again?")], [unsure])
    assert report.exam == 0.0 and report.n == 2
    assert all(f["answered"] is None for f in report.failed)
    assert all(f["reason"].startswith("abstained") for f in report.failed)
    # Confidence threshold as the second rule.
    confident = FixedSolver([0.4, 0.2, 0.2, 0.2])
    assert answer_mcq("t", _item(), [confident], min_confidence=0.5).choice is None
    assert answer_mcq("t", _item(), [confident], min_confidence=0.3).choice == 0


def test_empty_item_list_is_an_error() -> None:
    with pytest.raises(ValueError, match="empty"):
        exam_score("text", [], [FixedSolver([0.5, 0.5])])


def test_non_choice_items() -> None:
    short = Item(type="short", stem="Capital of France?", key="Paris")
    with pytest.raises(ValueError):
        exam_score("text", [short], [FixedSolver([1.0])])
    report = exam_score("text", [short, _item()], [FixedSolver([0.7, 0.1, 0.1, 0.1])])
    assert report.n == 1 and report.not_applicable == ["Capital of France?"]
    assert ExamMetric().score(short, MetricContext()).not_scored_reason


def test_n_exam_and_check_text_with_fixed_solvers() -> None:
    solver = FixedSolver([0.7, 0.1, 0.1, 0.1])
    items = {"a": [_item()], "b": [_item("Other?")]}
    report = n_exam({"a": "text"}, {"a": "gold", "b": "gold"}, items, [solver])
    # b has no text: EXAM 0 (skipped topic); gold answers both: (1 + 0) / (1 + 1).
    assert report.n_exam == pytest.approx(0.5)
    assert report.exam == pytest.approx(0.5) and report.gold_exam == pytest.approx(1.0)
    handout, value, gold = check_text("handout", [_item(), _item("Other?")], [solver])
    assert handout.exam == 1.0 and gold == 1.0 and value == pytest.approx(1.0)


def test_metric_flag() -> None:
    metric = ExamMetric()
    from quizsmith.domain import ScoreResult

    bad = ScoreResult(metric="exam", value=0.0, evidence={"answered": None, "key": "Paris"})
    assert [f.code for f in metric.flags(bad, metric.defaults)] == ["not-answerable-from-passage"]
    good = ScoreResult(metric="exam", value=1.0, evidence={"answered": "Paris", "key": "Paris"})
    assert metric.flags(good, metric.defaults) == []


# -- real models -------------------------------------------------------------------------------
def _squad(indices: Sequence[int]) -> tuple[list[Item], list[dict[str, Any]]]:
    if not SQUAD.exists():
        pytest.skip(f"{SQUAD} is absent")
    rows = squad_rows()
    return squad_mcqs(indices, rows), rows


@pytest.fixture(scope="module")
def real_ctx() -> MetricContext:
    # One llama.cpp thread: see tests/metrics/test_kda.py (spinning threads on shared cores).
    return MetricContext(settings=Settings(n_threads=1))


@pytest.mark.slow
def test_source_passage_beats_unrelated_text(real_ctx: MetricContext) -> None:
    items, rows = _squad([0, 45, 85, 125, 205, 245, 285, 325])
    # Two solvers keep the run short; the likelihood style reads a passage best.
    solvers = [
        OptionLikelihoodSolver(real_ctx.provider_for(ref), real_ctx.settings)
        for ref in ("smollm2-135m-instruct", "gemma3-270m")
    ]
    own = [exam_score(item.passage.text, [item], solvers) for item in items]  # type: ignore[union-attr]
    source = sum(r.exam for r in own) / len(own)
    unrelated_text = rows[700]["context"]  # a passage on another subject
    unrelated = exam_score(unrelated_text, items, solvers)
    assert unrelated.n == 8 and len(unrelated.failed) == 8 - unrelated.n_correct
    assert source >= unrelated.exam
    assert source >= 0.5


@pytest.mark.slow
def test_metric_real_models(real_ctx: MetricContext) -> None:
    items, _ = _squad([0, 165])
    metric = ExamMetric()
    for item in items:
        result = metric.score(item, real_ctx)
        assert result.scored, result.not_scored_reason
        assert result.value in (0.0, 1.0)
        assert 0.0 <= result.values["confidence"] <= 1.0
        assert len(result.evidence["solvers"]) == 4  # 2 LLMs x 2 styles
        assert set(result.evidence["ensemble"]) == {o.text for o in item.options}
        assert result.model_config["solvers"][0]["profile"]
