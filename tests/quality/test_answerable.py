"""The EXAM-style "answerable from its passage" chip reads the reader's answer the overall
estimate already read, for exactly this text, and calls no model (issue 45, point 3)."""

from __future__ import annotations

from typing import Any

import pytest

from quizsmith.domain import Item, Passage, ScoreResult
from quizsmith.metrics import registry
from quizsmith.metrics.base import MetricContext
from quizsmith.quality.answerable import NO_READER, AnswerableMetric
from quizsmith.quality.signals import item_fingerprint
from quizsmith.settings import Settings

PASSAGE = Passage(text="Photosynthesis takes place in the chloroplasts of plant cells.")


def _item(stem: str = "Where does photosynthesis take place?") -> Item:
    key = "in the chloroplasts"
    return Item(
        type="mcq",
        stem=stem,
        key=key,
        options=Item.make_options(key, ["in the nucleus", "in the cell wall"]),
        passage=PASSAGE,
    )


def _estimate(item: Item, answer: str, f1: float) -> ScoreResult:
    """The overall result as the estimate leaves it (quality/metric.py)."""
    return ScoreResult(
        metric="overall",
        value=0.7,
        evidence={
            "signals": {"reader_f1": f1, "reader_key_lp": -0.3},
            "signals_evidence": {"item": item_fingerprint(item), "reader_answer": answer},
        },
        model_config={"profile": "standard"},
    )


@pytest.fixture
def standard(monkeypatch: pytest.MonkeyPatch) -> MetricContext:
    """A standard-profile context whose every model request fails: the metric needs none."""

    def no_model(self: MetricContext, ref: str) -> Any:
        raise AssertionError(f"the answerable chip asked for a model ({ref})")

    monkeypatch.setattr(MetricContext, "provider_for", no_model)
    return MetricContext(settings=Settings(profile="standard"))


@pytest.mark.parametrize(
    ("answer", "f1", "chip", "level"),
    [
        ("the chloroplasts", 1.0, "yes", "good"),
        ("chloroplasts of plant cells", 0.4, "partly", "ok"),
        ("the nucleus", 0.0, "no", "bad"),
    ],
)
def test_it_reads_the_estimates_answer_without_a_model_call(
    standard: MetricContext, answer: str, f1: float, chip: str, level: str
) -> None:
    item = _item()
    item.scores["overall"] = _estimate(item, answer, f1)
    result = AnswerableMetric().score(item, standard)
    assert result.scored and result.value == f1
    assert result.evidence["reader_answer"] == answer
    assert AnswerableMetric.chip_text(result) == chip
    assert AnswerableMetric.chip_level(result, {}, set()) == level
    assert f"\u201c{answer}\u201d" in (AnswerableMetric.chip_reason(result) or "")
    # No flag of its own: the estimate already raises the reader's.
    assert AnswerableMetric().flags(result, {}) == []
    assert answer in AnswerableMetric.evidence_html(result)


def test_an_answer_read_for_older_text_is_never_used(standard: MetricContext) -> None:
    before = _item("Where does it happen?")
    item = _item()
    item.scores["overall"] = _estimate(before, "the chloroplasts", 1.0)
    result = AnswerableMetric().score(item, standard)
    assert not result.scored
    assert "not known yet" in (result.not_scored_reason or "")


def test_a_signals_result_for_this_text_serves_too(standard: MetricContext) -> None:
    item = _item()
    item.scores["signals"] = ScoreResult(
        metric="signals",
        value=0.5,
        values={"reader_f1": 1.0},
        evidence={"item": item_fingerprint(item), "reader_answer": "in the chloroplasts"},
    )
    assert AnswerableMetric().score(item, standard).value == 1.0


def test_the_light_profile_has_no_reader_and_says_so() -> None:
    item = _item()
    item.scores["overall"] = _estimate(item, "the chloroplasts", 1.0)
    result = AnswerableMetric().score(item, MetricContext(settings=Settings(profile="light")))
    assert not result.scored and result.evidence.get("not_applicable")
    assert result.not_scored_reason == NO_READER


def test_how_it_takes_part() -> None:
    cls = registry.get("answerable")
    assert cls is AnswerableMetric
    # Live on the standard profile after the estimate, no table column, not in Score all
    # (the estimate it reads is), never a feature of the overall model.
    assert cls.live_profiles == ("standard",) and cls.reads_scores
    assert not cls.live_by_default and not cls.chip_label and not cls.in_score_all
    assert not cls.feature_names and not cls.flag_codes
    assert "answerable" not in registry.all_metric_names()
    tf = Item(type="tf", stem="Plants make oxygen.", key="True", passage=PASSAGE)
    assert AnswerableMetric().not_applicable(tf)
