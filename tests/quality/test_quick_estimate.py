"""The overall chip's quick estimate (quality/quick_estimate.py): on the standard profile, the
light model's estimate on the small models' signals is told to a listening live chip before
the 1.5B reader is asked anything; nobody listening, nothing is computed for it.

The small models' signals are real (the bundled light models); the 1.5B reader is a stand-in
that records when it is asked, so the order is checked without loading the 1.5B model (its
real run is in tests/test_standard_profile.py)."""

from __future__ import annotations

import re
from typing import Any

import pytest

from quizsmith.domain import Item, Passage, ScoreResult
from quizsmith.metrics.base import MetricContext
from quizsmith.metrics.runner import PartStep, ScoredStep, score_items
from quizsmith.providers.base import ChatResult, ModelInfo, OptionLogprob, Provider
from quizsmith.quality import metric as quality_metric
from quizsmith.quality.overall_model import load_active_model
from quizsmith.quality.quick_estimate import quick_estimate, quick_estimate_text
from quizsmith.quality.reader import READER_SIGNALS
from quizsmith.quality.signals import SIGNALS
from quizsmith.settings import Settings

PASSAGE = (
    "Plants make their food by photosynthesis. In the leaves, chlorophyll captures light "
    "energy, which turns carbon dioxide and water into glucose. Oxygen is released as a "
    "by-product of photosynthesis. The glucose is stored as starch in the roots."
)


def _mcq() -> Item:
    return Item(
        type="mcq",
        stem="Which gas is released as a by-product of photosynthesis?",
        key="Oxygen",
        options=Item.make_options("Oxygen", ["Nitrogen", "Helium", "Argon"]),
        passage=Passage(text=PASSAGE),
    )


class _RecordingReader(Provider):
    """The 1.5B reader's place: answers the key, and writes down when it is asked."""

    can_chat = True
    can_reply_logprob = True

    def __init__(self, log: list[str]) -> None:
        self.log = log

    @property
    def info(self) -> ModelInfo:
        return ModelInfo("stand-in", "reader")

    def chat(self, messages: Any, **kwargs: Any) -> ChatResult:
        self.log.append("reader answers")
        return ChatResult(text="Oxygen", model="reader")

    def reply_logprobs(self, messages: Any, options: Any, **kwargs: Any) -> list[OptionLogprob]:
        self.log.append("reader scores the key")
        return [OptionLogprob(option=o, total=-0.2, mean=-0.2, n_tokens=1) for o in options]


@pytest.fixture()
def reader(monkeypatch: pytest.MonkeyPatch) -> _RecordingReader:
    stand_in = _RecordingReader([])
    monkeypatch.setattr(quality_metric, "_answer_reader", lambda ctx: stand_in)
    return stand_in


def test_the_quick_estimate_reaches_the_chip_before_the_reader_reads(
    reader: _RecordingReader,
) -> None:
    ctx = MetricContext(
        settings=Settings(profile="standard", n_threads=1),
        report_part=lambda metric, text: reader.log.append(f"{metric}: {text}"),
    )
    full = quality_metric.OverallMetric().score(_mcq(), ctx)
    assert full.scored, full.not_scored_reason
    assert reader.log[1:] == ["reader answers", "reader scores the key"]
    shown = re.fullmatch(r"overall: quick estimate ≈(\d+)%", reader.log[0])
    assert shown, reader.log[0]
    # It is the light model's estimate on the same small models' signals the full one read.
    light_signals = {k: v for k, v in full.evidence["signals"].items() if k not in READER_SIGNALS}
    expected = quick_estimate(light_signals)
    assert expected is not None and int(shown[1]) == round(expected * 100)
    # ... and not the full estimate, which also reads the stand-in reader's signals.
    assert full.evidence["signals"]["reader_f1"] == 1.0
    assert full.model_config["signals_from"] == "standard"


def test_the_live_job_hands_it_on_before_the_score(reader: _RecordingReader) -> None:
    ctx = MetricContext(settings=Settings(profile="standard", n_threads=1))
    steps = [p.payload for p in score_items([_mcq()], ["overall"], ctx, parts=True)]
    assert [type(s) for s in steps] == [PartStep, ScoredStep]
    assert isinstance(steps[0], PartStep) and steps[0].text.startswith("quick estimate ≈")
    assert ctx.report_part is None  # the job's listener is gone again


def test_nobody_listening_no_quick_estimate(
    reader: _RecordingReader, monkeypatch: pytest.MonkeyPatch
) -> None:
    from quizsmith.quality import quick_estimate as quick

    asked = []
    monkeypatch.setattr(quick, "quick_estimate", lambda values: asked.append(values))
    ctx = MetricContext(settings=Settings(profile="standard", n_threads=1))
    result = quality_metric.OverallMetric().score(_mcq(), ctx)  # batch scoring, ranking
    assert result.scored and asked == []
    assert reader.log == ["reader answers", "reader scores the key"]


def test_the_light_profile_has_no_reader_to_wait_for() -> None:
    heard: list[tuple[str, str]] = []
    ctx = MetricContext(
        settings=Settings(profile="light", n_threads=1),
        report_part=lambda metric, text: heard.append((metric, text)),
    )
    result = quality_metric.OverallMetric().score(_mcq(), ctx)
    assert result.scored and heard == []  # its own estimate is the first and only one


def test_quick_estimate_is_the_light_models_prediction_on_those_signals() -> None:
    values: dict[str, float | None] = {name: 0.5 for name in SIGNALS}
    values.update(key_share=0.9, is_question=1.0)
    expected = load_active_model("light").predict(
        {"signals": ScoreResult(metric="signals", value=0.9, values=values)}
    )
    assert expected.scored and expected.value is not None
    assert quick_estimate(values) == pytest.approx(expected.value)
    # The reader's signals, present or not, are no part of it (the light model never saw them).
    assert quick_estimate({**values, "reader_f1": 0.0}) == pytest.approx(expected.value)


def test_no_model_file_no_quick_estimate(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    from quizsmith.quality import overall_model

    monkeypatch.setattr(overall_model, "active_model_path", lambda p=None: tmp_path / "no.joblib")
    assert quick_estimate({"key_share": 0.5}) is None


def test_the_text_says_what_kind_of_number_it_is() -> None:
    assert quick_estimate_text(0.724) == "quick estimate ≈72%"


def test_a_refit_that_reads_other_metrics_gives_no_quick_number(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A teacher's light refit that reads NACo would estimate from an imputed NACo here."""
    from dataclasses import replace

    from quizsmith.quality import quick_estimate as quick

    values: dict[str, float | None] = {name: 0.5 for name in SIGNALS}
    shipped = load_active_model("light")
    assert quick_estimate(values) is not None
    reads_naco = replace(shipped, used=(*shipped.used, "naco.n"))
    monkeypatch.setattr(quick, "load_active_model", lambda profile: reads_naco)
    assert quick_estimate(values) is None
