"""Round three (issue 28): numbers from settings checked at the boundary, n_ctx capped at the
model's trained context, invisible characters and option counts in the item rules, exports
that would be empty, crash logs that never overwrite each other, and KDA when every model
solver failed."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from quizsmith import crash
from quizsmith import settings as settings_mod
from quizsmith.bank import ItemBank
from quizsmith.cli import main
from quizsmith.domain import MAX_OPTIONS, Item, Option
from quizsmith.errors import ConfigError
from quizsmith.providers import catalog

from . import test_http_boundary as boundary
from .test_http_boundary import reply

serve = boundary.serve


# -- settings --------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "table,line,key,valid",
    [
        ("[endpoints.school]", "timeout_s = nan", "timeout_s", "from 0.1 to 3,600"),
        ("[endpoints.school]", "timeout_s = inf", "timeout_s", "from 0.1 to 3,600"),
        ("[endpoints.school]", "timeout_s = -1", "timeout_s", "from 0.1 to 3,600"),
        ("[endpoints.school]", "max_retries = 1000", "max_retries", "from 0 to 10"),
        ("[endpoints.school]", "max_concurrency = 0", "max_concurrency", "from 1 to 64"),
        ("[models]", "n_ctx = 1000000000", "n_ctx", "from 256 to 1,048,576"),
        ("[models]", "n_threads = -4", "n_threads", "from 0 to 1,024"),
    ],
)
def test_settings_numbers_outside_their_range_are_refused_naming_key_and_range(
    table: str, line: str, key: str, valid: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Before: nan and inf crashed a run, -1 was accepted, n_ctx = 10^9 blamed the model."""
    path = settings_mod.settings_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    body = f"{table}\n{line}\n"
    if table.startswith("[endpoints"):
        body += 'base_url = "http://127.0.0.1:9/v1"\n'
    path.write_text(body, encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        settings_mod.load()
    message = caught.value.message
    assert f"Option {key!r} in {table}" in message and f"must be a number {valid}" in message
    assert f"Write {key} = " in caught.value.fix
    assert main(["models"]) == 2  # every command refuses the file, before any model loads
    assert f"must be a number {valid}" in capsys.readouterr().err


def test_a_metric_threshold_that_is_not_finite_is_refused() -> None:
    from quizsmith.metrics.base import MetricContext

    settings = settings_mod.Settings(metrics={"kda": {"weak_below": math.inf}})
    with pytest.raises(ConfigError, match=r"'weak_below' in \[metrics.kda\].*from 0 to 1"):
        MetricContext(settings=settings)
    settings = settings_mod.Settings(metrics={"naco": {"weights": [math.nan, 1.0, 1.0]}})
    with pytest.raises(ConfigError):
        MetricContext(settings=settings).options(_metric("naco"))


def test_every_metric_default_lies_in_its_range() -> None:
    from quizsmith.metrics import registry

    for name in registry.names():
        metric = registry.get(name)
        for key, (low, high) in metric.option_ranges.items():
            assert key in metric.defaults, (name, key)
            default = metric.defaults[key]
            assert default is None or low <= default <= high, (name, key, default)


@pytest.mark.parametrize(
    "metric,key,value", [("mirror", "max_rounds", 0), ("naco", "temperature", -0.5)]
)
def test_metric_options_outside_their_range_are_refused(
    metric: str, key: str, value: float
) -> None:
    from quizsmith.metrics.base import MetricContext

    settings = settings_mod.Settings(metrics={metric: {key: value}})
    with pytest.raises(
        ConfigError, match=rf"'{key}' in \[metrics.{metric}\].*must be a number from"
    ):
        MetricContext(settings=settings)


def _metric(name: str) -> Any:
    from quizsmith.metrics import registry

    return registry.get(name)()


def _bundled(model_id: str) -> Path:
    models = {m.id: m for m in catalog.load_catalog()}
    return catalog.locate(models[model_id])


def test_n_ctx_is_capped_at_the_trained_context_before_loading(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Before: n_ctx = 131072 was handed to llama.cpp, which took 6.2 GB and crashed."""
    from quizsmith.providers.gguf_header import read_general_metadata
    from quizsmith.providers.llamacpp_models import within_trained_context

    path = _bundled("smollm2-135m-instruct")
    trained = next(
        v for k, v in read_general_metadata(path).items() if k.endswith(".context_length")
    )
    assert within_trained_context(path, 131072) == trained < 131072
    assert "n_ctx = 131072 in settings is more than" in caplog.text
    assert within_trained_context(path, 2048) == 2048


@pytest.mark.slow
def test_a_model_loaded_with_a_huge_n_ctx_gets_its_trained_context() -> None:
    from quizsmith.providers.llamacpp import LlamaCppProvider
    from quizsmith.providers.llamacpp_models import unload_all

    provider = LlamaCppProvider(_bundled("smollm2-135m-instruct"), n_ctx=131072, n_threads=1)
    try:
        assert provider.context_size == 8192
        assert provider.complete("The capital of France is", max_tokens=2).text is not None
    finally:
        unload_all()


# -- item rules ------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "twin", ["Par\u200bis", "Pa\u00adris", "PARIS", "Paris\ufeff", "Ｐａｒｉｓ"]
)
def test_invisible_and_look_alike_characters_do_not_make_a_second_option(twin: str) -> None:
    item = Item(type="mcq", stem="What is the capital of France?", key="Paris",
                options=Item.make_options("Paris", [twin, "Lyon"]))  # fmt: skip
    assert "Two options have the same text." in item.problems()


def test_text_direction_overrides_in_an_option_are_refused() -> None:
    item = Item(type="mcq", stem="What is the capital of Italy?", key="Rome",
                options=Item.make_options("Rome", ["\u202eemoR", "Milan"]))  # fmt: skip
    assert any("U+202E" in p for p in item.problems())
    hebrew = Item(type="mcq", stem="Which word means peace?", key="שלום",
                  options=Item.make_options("שלום", ["\u200fתודה", "בית"]))  # fmt: skip
    assert hebrew.problems() == []  # direction marks are ordinary in right-to-left text


def test_an_option_of_invisible_characters_only_is_empty() -> None:
    item = Item(
        type="mcq", stem="Which?", key="a", options=Item.make_options("a", ["\u200b\u200d"])
    )
    assert "An option is empty." in item.problems()


def test_an_import_with_too_many_options_skips_that_question(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Before: 300,001 options imported; the Word export then ran past 300 s."""
    lines = [
        json.dumps({"type": "mcq", "question": "Which river is longest?", "answer": "Nile",
                    "distractors": [f"River {n}" for n in range(3000)]}),
        json.dumps({"type": "mcq", "question": "Which river is shortest?", "answer": "Reprua",
                    "distractors": ["Nile", "Amazon"]}),
    ]  # fmt: skip
    source = tmp_path / "rivers.jsonl"
    source.write_text("\n".join(lines) + "\n", encoding="utf-8")
    bank = tmp_path / "b.qbank"
    code = main(["import", str(source), "--bank", str(bank)])
    captured = capsys.readouterr()
    assert code == 2 and f"at most {MAX_OPTIONS} options; this one has 3,001" in captured.err
    gift = tmp_path / "rivers.gift"
    options = " ".join(f"~River{n}" for n in range(150))
    gift.write_text(
        f"::a::Which river is longest?{{=Nile {options}}}\n\n"
        "::b::Which river is shortest?{=Reprua ~Nile ~Amazon}\n",
        encoding="utf-8",
    )
    assert main(["import", str(gift), "--bank", str(bank)]) == 4  # partial: one skipped
    out = capsys.readouterr().out
    assert "Imported 1 items" in out and "at most 100 options" in out


def test_an_aiken_export_with_nothing_aiken_can_carry_is_an_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bank = tmp_path / "b.qbank"
    with ItemBank(bank) as opened:
        many = [Option("key", True, 0), *(Option(f"d{n}", False, n + 1) for n in range(30))]
        opened.add_item(Item(type="mcq", stem="Pick the key?", key="key", options=many,
                             status="accepted"))  # fmt: skip
    out = tmp_path / "quiz.txt"
    assert main(["export", "--bank", str(bank), "--format", "aiken", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "Nothing to export as Aiken" in err and "letters stop at Z" in err and "fix:" in err
    assert not out.exists()


# -- crash logs ------------------------------------------------------------------------------
def test_two_crashes_in_one_second_keep_both_logs() -> None:
    paths = [crash.write_crash_log(RuntimeError(f"crash {n}")) for n in range(3)]
    assert len(set(paths)) == 3
    assert [p.read_text(encoding="utf-8").count(f"crash {n}") for n, p in enumerate(paths)] == [
        1,
        1,
        1,
    ]


# -- KDA when the model solvers all fail -----------------------------------------------------
def _nan_logprobs(i: int, req: dict[str, Any]) -> bytes:
    prompt = req.get("prompt", "")
    lp = {"tokens": list(prompt), "token_logprobs": [None] + [math.nan] * (len(prompt) - 1),
          "text_offset": list(range(len(prompt)))}  # fmt: skip
    return reply({"choices": [{"text": prompt, "logprobs": lp}]})


@pytest.mark.slow
def test_kda_is_not_scored_when_only_the_embedding_solver_answered(serve: Any) -> None:
    """Before: every model solver failed (NaN log-probabilities) and KDA stored the embedding
    solver's number, the failures only in the evidence."""
    from quizsmith.domain import Passage
    from quizsmith.metrics.base import MetricContext
    from quizsmith.providers import manager
    from quizsmith.settings import Endpoint

    server = serve(_nan_logprobs)
    settings = settings_mod.Settings(n_threads=1)
    settings.roles["solvers"] = ["endpoint:nan"]
    settings.endpoints["nan"] = Endpoint(name="nan", base_url=server.base_url, model="m",
                                         max_retries=0)  # fmt: skip
    passage = Passage(text="The Nile is the longest river in Africa. It flows north.")
    item = Item(
        type="mcq",
        stem="Which is the longest river in Africa?",
        key="The Nile",
        options=Item.make_options("The Nile", ["The Congo", "The Niger"]),
        target_fact="The Nile is the longest river in Africa.",
        passage=passage,
    )
    try:
        result = _metric("kda").score(item, MetricContext(settings=settings))
    finally:
        manager.close_all()
    assert not result.scored and result.value is None
    assert "Every model solver failed" in (result.not_scored_reason or "")
    assert "log-probability" in (result.not_scored_reason or "")
