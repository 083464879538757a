"""The overall metric in the live set: signals on the real bundled models, the shipped model's
estimate, honest "not scored" reasons, and the low-overall flag."""

from __future__ import annotations

import pytest

from quizsmith.domain import Item, Passage, ScoreResult
from quizsmith.evaluation.overall import OverallModel, shipped_model_path
from quizsmith.metrics.base import MetricContext
from quizsmith.quality.metric import OverallMetric, SignalsMetric, item_fingerprint

PASSAGE = (
    "Plants make their food by photosynthesis. In the leaves, chlorophyll captures light "
    "energy, which turns carbon dioxide and water into glucose. Oxygen is released as a "
    "by-product of photosynthesis. The glucose is stored as starch in the roots."
)


def _mcq(stem: str, key: str) -> Item:
    return Item(
        type="mcq",
        stem=stem,
        key=key,
        options=Item.make_options(key, ["Nitrogen", "Helium", "Argon"]),
        passage=Passage(text=PASSAGE),
    )


def test_not_applicable_and_bad_input_are_not_scored() -> None:
    ctx = MetricContext()
    tf = Item(type="tf", stem="Plants release oxygen.", key="True", passage=Passage(text=PASSAGE))
    result = OverallMetric().score(tf, ctx)
    assert not result.scored and "does not apply" in (result.not_scored_reason or "")
    no_passage = Item(type="short", stem="Which gas?", key="Oxygen")
    assert "no passage" in (OverallMetric().score(no_passage, ctx).not_scored_reason or "")
    blank = Item(type="short", stem="   ", key="Oxygen", passage=Passage(text=PASSAGE))
    assert not SignalsMetric().score(blank, ctx).scored


def test_low_overall_flag_by_threshold() -> None:
    metric = OverallMetric()
    low = ScoreResult(metric="overall", value=0.2)
    high = ScoreResult(metric="overall", value=0.8)
    flags = metric.flags(low, {"weak_threshold": 0.5})
    assert [f.code for f in flags] == ["low-overall"] and "0.20 < 0.50" in flags[0].message
    assert metric.flags(high, {"weak_threshold": 0.5}) == []
    statement = ScoreResult(metric="overall", value=0.8, evidence={"signals": {"is_question": 0.0}})
    assert [f.code for f in metric.flags(statement, {})] == ["no-question-form"]


def test_fingerprint_follows_the_text() -> None:
    a = _mcq("Which gas do plants release?", "Oxygen")
    b = _mcq("Which gas do plants release?", "Oxygen")
    assert item_fingerprint(a) == item_fingerprint(b)
    b.stem = "Which gas do plants take in?"
    assert item_fingerprint(a) != item_fingerprint(b)


@pytest.mark.slow
def test_overall_on_the_bundled_models_prefers_the_sound_item() -> None:
    model = OverallModel.load(shipped_model_path())
    assert all(not f.startswith(("ref.", "mre.", "mirror.")) for f in model.features)
    ctx = MetricContext()
    metric = OverallMetric()
    good = _mcq("Which gas do plants release as a by-product of photosynthesis?", "Oxygen")
    result = metric.score(good, ctx)
    assert result.scored, result.not_scored_reason
    assert 0.0 <= (result.value or 0.0) <= 1.0
    assert result.evidence["signals"]["pick_f1"] == 1.0
    # A statement with an unrelated key: flawed in two ways, estimated lower.
    bad = _mcq("Photosynthesis happens in leaves", "Argon")
    worse = metric.score(bad, ctx)
    assert worse.scored and (worse.value or 1.0) < (result.value or 0.0)
    # Signals stored for this very text are reused; an edit makes them stale.
    good.scores["signals"] = SignalsMetric().score(good, ctx)
    again = metric.score(good, ctx)
    assert again.value == result.value
