"""The standard profile on the real Qwen2.5-Coder-1.5B-Instruct (issue 26): the profile
switch loads it with the papers' chat prompts, it writes an item, NACo scores one with the
appendix A.2 prompt, and the overall estimate still reads the light models' signals.

Kept short for 2 cores: one item, one score, one thread each for the small models' share.
"""

from __future__ import annotations

import pytest

from quizsmith import settings as settings_mod
from quizsmith.cli import main
from quizsmith.domain import Item, Option, Passage
from quizsmith.jobs import CancelToken, run_to_end
from quizsmith.metrics.base import MetricContext
from quizsmith.providers import catalog
from quizsmith.settings import STANDARD_MODEL, Settings

pytestmark = pytest.mark.slow

PASSAGE = Passage(
    text=(
        "The water cycle describes how water moves between the oceans, the air and the land. "
        "The Sun heats water in the oceans, and it turns into water vapour in a process "
        "called evaporation. As the vapour rises it cools and condenses into clouds. When "
        "the droplets in the clouds grow heavy, they fall back to the ground as rain or "
        "snow, which is called precipitation."
    ),
    title="water cycle",
)


@pytest.fixture(scope="module")
def standard() -> Settings:
    model = {m.id: m for m in catalog.load_catalog()}[STANDARD_MODEL]
    if not catalog.is_installed(model):
        pytest.skip("the standard model's part packages are not installed (make install)")
    return Settings(profile="standard")


def _item() -> Item:
    return Item(
        type="mcq",
        stem="What is the process by which water turns into vapour called?",
        key="evaporation",
        options=[
            Option(text, i == 0, i)
            for i, text in enumerate(["evaporation", "condensation", "precipitation", "melting"])
        ],
        passage=PASSAGE,
    )


def test_switching_to_standard_loads_the_1_5b_model_with_chat_prompts(
    standard: Settings, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    from quizsmith.metrics.profiles import choose_profile
    from quizsmith.providers import provider_for

    monkeypatch.delenv(settings_mod.PROFILE_ENV)
    assert main(["models", "--profile", "standard"]) == 0
    assert "Profile: standard" in capsys.readouterr().out
    s = settings_mod.load()
    generator = provider_for(s.role("generator"), s)
    assert generator.model_path is not None and generator.model_path.stat().st_size > 10**9
    assert generator.is_chat_model
    assert choose_profile(generator, s) == "chat"  # the papers' prompts
    second = provider_for(s.role_list("solvers")[1], s)
    assert choose_profile(second, s) == "fewshot"  # Gemma keeps its few-shot forms


def test_the_1_5b_model_writes_one_item(standard: Settings) -> None:
    from quizsmith.generation import GeneratedStep, GenerationRequest, generate_items

    # A short-answer item: one stem from the 1.5B model (an MCQ adds its distractors: about
    # 100 s on a busy 2-core machine against this one's share of a minute).
    request = GenerationRequest(n=1, types=("short",), rank=False, candidates_per_target=1)
    events, result = run_to_end(
        generate_items(PASSAGE, request, settings=standard, cancel=CancelToken())
    )
    items = [e.payload.item for e in events if isinstance(e.payload, GeneratedStep)]
    assert len(items) == 1 or result.shortfall, result.dropped
    for item in items:
        assert "qwen" in item.provenance["model"].lower()
        assert item.provenance["profile"] == "chat"
        assert item.type == "short"
        assert item.key.lower() in PASSAGE.text.lower()
        assert item.stem.strip()


def test_naco_scores_with_the_papers_prompt_on_the_1_5b_model(standard: Settings) -> None:
    from quizsmith.metrics.naco import NacoMetric

    s = Settings(profile="standard", metrics={"naco": {"max_tokens": 200}})
    result = NacoMetric().score(_item(), MetricContext(settings=s))
    assert result.scored, result.not_scored_reason
    assert result.model_config["profile"] == "chat"
    assert "qwen" in str(result.model_config["qa"]["model"]).lower()
    assert result.evidence  # the reasoning a teacher reads
    assert 0.0 <= float(result.value or 0.0) <= 1.0


def test_the_overall_estimate_on_standard_reads_the_light_models_signals(
    standard: Settings,
) -> None:
    from quizsmith.quality.metric import OverallMetric

    result = OverallMetric().score(_item(), MetricContext(settings=standard))
    assert result.scored, result.not_scored_reason
    assert result.model_config["profile"] == "standard"
    assert result.model_config["signals_from"] == "light"
    assert "no overall model has been fitted for the standard profile" in result.evidence["note"]
    signals = result.evidence["signals_evidence"]
    assert STANDARD_MODEL not in str(signals) and "qwen" not in str(signals).lower()
