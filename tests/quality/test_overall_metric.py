"""The overall metric in the live set: signals on the real bundled models, the shipped model's
estimate, honest "not scored" reasons, and the low-overall flag."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from quizsmith.domain import ONE_DISTRACTOR_MESSAGE, Item, Passage, ScoreResult
from quizsmith.metrics.base import MetricContext
from quizsmith.quality.metric import OverallMetric, SignalsMetric, item_fingerprint
from quizsmith.quality.overall_model import OverallModel, shipped_model_path

PASSAGE = (
    "Plants make their food by photosynthesis. In the leaves, chlorophyll captures light "
    "energy, which turns carbon dioxide and water into glucose. Oxygen is released as a "
    "by-product of photosynthesis. The glucose is stored as starch in the roots."
)


def _mcq(
    stem: str, key: str, distractors: tuple[str, ...] = ("Nitrogen", "Helium", "Argon")
) -> Item:
    return Item(
        type="mcq",
        stem=stem,
        key=key,
        options=Item.make_options(key, list(distractors)),
        passage=Passage(text=PASSAGE),
    )


class _StandInModel:
    """The overall model's place without a fitted file: a fixed, acceptable estimate."""

    def predict(self, scores: Any) -> ScoreResult:
        return ScoreResult(metric="overall", value=0.8, evidence={"features": {}})


@pytest.fixture
def stand_ins(monkeypatch: pytest.MonkeyPatch) -> None:
    """Signals and the overall model without any model loaded (the slow test below uses the
    real ones): every item reads as a question and is estimated acceptable."""
    from quizsmith.quality import overall_model

    def signals(self: SignalsMetric, item: Item, ctx: MetricContext) -> ScoreResult:
        return ScoreResult(metric="signals", value=0.9, values={"is_question": 1.0})

    monkeypatch.setattr(SignalsMetric, "score", signals)
    monkeypatch.setattr(overall_model, "load_active_model", lambda profile=None: _StandInModel())


def test_not_applicable_and_bad_input_are_not_scored() -> None:
    ctx = MetricContext()
    # A sentence with no blank cannot be read as a fill-in-the-blank item: the reason, in words.
    cloze = Item(
        type="cloze", stem="Plants release oxygen.", key="oxygen", passage=Passage(text=PASSAGE)
    )
    result = OverallMetric().score(cloze, ctx)
    assert not result.scored and "no blank" in (result.not_scored_reason or "")
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


def test_the_reader_flag_is_a_warning_only_where_the_key_is_also_unlikely() -> None:
    """Answered otherwise (F1 0): a warning when the key's likelihood as the reader's reply is
    below the measured cut, a hint above it; no flag when the reader's answer shares a word
    with the key, or when no reader read the item."""
    from quizsmith.metrics.flag_policy import FLAG_POLICY
    from quizsmith.quality.reader import KEY_UNLIKELY_BELOW, READER_REJECTS_KEY

    def read(f1: float, lp: float | None, answer: str | None = "condensation") -> ScoreResult:
        signals = {"reader_f1": f1, "reader_key_lp": lp}
        evidence = {"signals": signals, "signals_evidence": {"reader_answer": answer}}
        return ScoreResult(metric="overall", value=0.8, evidence=evidence)

    def codes(result: ScoreResult) -> list[str]:
        return [f.code for f in OverallMetric().flags(result, {})]

    (unlikely,) = OverallMetric().flags(read(0.0, KEY_UNLIKELY_BELOW - 0.01), {})
    assert unlikely.code == READER_REJECTS_KEY and "\u201ccondensation\u201d" in unlikely.message
    assert FLAG_POLICY[READER_REJECTS_KEY].severity == "warning"
    assert codes(read(0.0, KEY_UNLIKELY_BELOW)) == ["reader-differs"]
    assert codes(read(0.0, None)) == ["reader-differs"]
    assert FLAG_POLICY["reader-differs"].severity == "info"
    assert codes(read(0.5, KEY_UNLIKELY_BELOW - 3)) == []
    assert codes(read(0.0, -5.0, answer=None)) == []


@pytest.mark.usefixtures("stand_ins")
def test_an_mcq_with_one_distractor_is_flagged_when_scored(tmp_path: Path) -> None:
    from quizsmith.bank import ItemBank
    from quizsmith.jobs import run_to_end
    from quizsmith.metrics.runner import score_items

    two = _mcq("Which gas do plants release?", "Oxygen", ("Nitrogen",))
    four = _mcq("Which gas do plants take in?", "Carbon dioxide")
    run_to_end(score_items([two, four], ["overall"], MetricContext()))
    flag = next(f for f in two.flags if f.code == "one-distractor")
    assert (flag.severity, flag.metric, flag.message) == (
        "warning",  # a warning, not a hint: it puts the item in the review queue
        "overall",
        ONE_DISTRACTOR_MESSAGE,
    )
    assert four.scores["overall"].scored and four.flags == []
    with ItemBank(tmp_path / "b.qbank") as bank:
        ids = bank.add_items([two, four])
        flagged = bank.search(flagged=True)
    assert [i.id for i in flagged] == [ids[0]]
    assert [f.code for f in flagged[0].flags] == ["one-distractor"]


@pytest.mark.usefixtures("stand_ins")
def test_quizsmith_score_prints_the_one_distractor_flag(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from quizsmith.cli import main

    source = tmp_path / "items.jsonl"
    rows = [
        {"type": "mcq", "question": "Which gas do plants release?", "answer": "Oxygen",
         "distractors": ["Nitrogen"], "passage": PASSAGE},
        {"type": "mcq", "question": "Which gas do plants take in?", "answer": "Carbon dioxide",
         "distractors": ["Nitrogen", "Helium", "Argon"], "passage": PASSAGE},
    ]  # fmt: skip
    source.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    assert main(["score", str(source), "--metrics", "overall"]) == 0
    out = capsys.readouterr().out
    assert "1 flag(s) raised:" in out
    assert (
        f"  warning: 'Which gas do plants release?': {ONE_DISTRACTOR_MESSAGE} [one-distractor]"
        in out
    )
    assert "take in" not in out


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


def test_cached_overall_results_from_before_the_option_checks_are_not_reused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The evaluation cache keys a result by the metric's identity: results stored before the
    overall result carried the option checks and the disputed key must be computed again."""
    from quizsmith.metrics.base import MetricContext
    from quizsmith.quality import metric as quality_metric

    ctx = MetricContext()
    now = quality_metric.OverallMetric().cache_identity(ctx)
    monkeypatch.setattr(quality_metric, "OVERALL_EVIDENCE_VERSION", 1)
    before = quality_metric.OverallMetric().cache_identity(ctx)
    assert now != before
    assert now["model"] == before["model"]  # the same model file: only the evidence differs


def test_the_light_likelihoods_are_read_only_where_the_estimate_reads_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The shipped standard model reads none of the light models' likelihood signals, so the
    standard profile skips them; a refit (or a model of unknown features) that reads them,
    and the light profile, get them."""
    from quizsmith.quality import metric as quality_metric
    from quizsmith.quality import overall_model
    from quizsmith.settings import Settings

    shipped = json.loads(shipped_model_path("standard").with_suffix(".json").read_text())
    assert not {f"sig.{n}" for n in quality_metric.LIKELIHOOD_SIGNALS} & set(
        shipped["used_features"]
    )
    standard = MetricContext(settings=Settings(profile="standard"))
    light = MetricContext(settings=Settings(profile="light"))
    monkeypatch.setattr(quality_metric, "_reads_answers", lambda ctx: ctx is standard)
    for used, expected in (
        (frozenset(shipped["used_features"]), False),
        (frozenset({"sig.reader_f1", "sig.key_share"}), True),
        (None, True),
    ):
        monkeypatch.setattr(overall_model, "features_of_active_model", lambda p, u=used: u)
        assert quality_metric._reads_likelihoods(standard) is expected
        assert quality_metric._reads_likelihoods(light) is True
    monkeypatch.setattr(
        overall_model, "features_of_active_model", lambda p: frozenset(shipped["used_features"])
    )
    assert quality_metric.signals_config(standard)["reader"] is None
    assert quality_metric.signals_config(light)["reader"] is not None
    # A cached result without them is no cache for a run that reads them.
    assert SignalsMetric().cache_identity(standard)["likelihoods"] is False
    assert "likelihoods" not in SignalsMetric(every_signal=True).cache_identity(standard)
    assert "likelihoods" not in SignalsMetric().cache_identity(light)
