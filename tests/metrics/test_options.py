"""[metrics.<name>] tables: only the metric's own options, each with its default's type."""

from __future__ import annotations

from typing import Any, ClassVar

import pytest

from quizsmith import settings as settings_mod
from quizsmith.errors import ConfigError
from quizsmith.metrics import registry
from quizsmith.metrics.base import Metric, MetricContext, check_metric_settings


def _settings(toml: str) -> settings_mod.Settings:
    path = settings_mod.settings_path()
    path.write_text(toml, encoding="utf-8")
    return settings_mod.load()


def test_a_misspelt_option_names_the_key_the_metric_and_the_valid_keys() -> None:
    s = _settings("[metrics.kda]\nweak_bellow = 0.9\n")
    with pytest.raises(ConfigError) as exc:
        MetricContext(settings=s)
    assert "'weak_bellow'" in exc.value.message
    assert "[metrics.kda] (metric kda)" in exc.value.message
    assert str(s.path) in exc.value.message
    assert "Did you mean 'weak_below'?" in exc.value.fix
    for key in registry.get("kda").defaults:
        assert key in exc.value.fix


def test_options_are_checked_where_a_metric_reads_them() -> None:
    """Settings changed after the context was built are checked by ctx.options too."""
    ctx = MetricContext(settings=settings_mod.Settings())
    ctx.settings.metrics["mirror"] = {"max_round": 2}
    with pytest.raises(ConfigError, match=r"'max_round' in \[metrics.mirror\]") as exc:
        ctx.options(registry.get("mirror"))
    assert "Did you mean 'max_rounds'?" in exc.value.fix


def test_valid_options_override_the_defaults() -> None:
    s = _settings(
        '[metrics.kda]\nweak_below = 0.25\nstyles = ["letter"]\n'
        "[metrics.naco]\nweights = [1, 0, 0]\n"  # ints where floats are expected
        "[metrics.mre]\nflag_below = 0.5\n"
        '[metrics.profiles]\n"gguf:big" = "chat"\n'
    )
    ctx = MetricContext(settings=s)
    kda = ctx.options(registry.get("kda"))
    assert kda["weak_below"] == 0.25 and kda["styles"] == ["letter"]
    assert kda["good_from"] == registry.get("kda").defaults["good_from"]
    assert ctx.options(registry.get("naco"))["weights"] == [1, 0, 0]
    assert ctx.options(registry.get("mre"))["flag_below"] == 0.5


@pytest.mark.parametrize(
    ("toml", "problem"),
    [
        ('[metrics.kda]\nweak_below = "0.3"\n', "must be a number"),
        ("[metrics.kda]\nembedding_solver = 1\n", "must be true or false"),
        ("[metrics.kda]\nweak_below = true\n", "must be a number"),
        ("[metrics.mirror]\nmax_rounds = 2.5\n", "must be a whole number"),
        ('[metrics.mirror]\napproach = ["direct"]\n', "must be a string"),
        ("[metrics.kda]\nstyles = [1, 2]\n", "must be a list of strings"),
        ('[metrics.naco]\nweights = ["a", "b", "c"]\n', "must be a list of numbers"),
        ('[metrics.mre]\nflag_below = "low"\n', "must be a number"),
        ("[metrics]\nkda = 0.3\n", "must be a table"),
    ],
)
def test_a_value_of_the_wrong_type_is_an_error(toml: str, problem: str) -> None:
    with pytest.raises(ConfigError, match=problem) as exc:
        MetricContext(settings=_settings(toml))
    assert exc.value.fix


def test_a_misspelt_metric_name_suggests_the_registered_one() -> None:
    with pytest.raises(ConfigError, match="Unknown option 'kdaa'") as exc:
        MetricContext(settings=_settings("[metrics.kdaa]\nweak_below = 0.3\n"))
    assert "Did you mean 'kda'?" in exc.value.fix
    assert "profiles" in exc.value.fix


def test_an_unknown_prompt_profile_is_an_error() -> None:
    with pytest.raises(ConfigError, match="unknown profile 'chatty'") as exc:
        MetricContext(settings=_settings('[metrics.profiles]\n"gguf:big" = "chatty"\n'))
    assert "chat, fewshot" in exc.value.fix


def test_a_plugin_metric_is_checked_against_its_own_defaults() -> None:
    class Stub(Metric):
        name = "stub_options"
        defaults: ClassVar[dict[str, Any]] = {"cutoff": 0.5}

    registry.register("stub_options", Stub)
    try:
        ok = _settings("[metrics.stub_options]\ncutoff = 0.7\n")
        assert MetricContext(settings=ok).options(Stub)["cutoff"] == 0.7
        with pytest.raises(ConfigError, match=r"'cutof' in \[metrics.stub_options\]"):
            MetricContext(settings=_settings("[metrics.stub_options]\ncutof = 0.7\n"))
    finally:
        registry.metrics._registered.pop("stub_options", None)


@pytest.mark.parametrize("name", registry.names())
def test_every_metric_accepts_its_own_defaults_written_out(name: str) -> None:
    """The defaults are the schema: written to the file they load and pass; a default of
    None (no type to read) has its type in `option_types`."""
    import tomli_w

    metric = registry.get(name)
    table = {k: v for k, v in metric.defaults.items() if v is not None}
    s = _settings(tomli_w.dumps({"metrics": {name: table}} if table else {}))
    check_metric_settings(s)
    assert s.metrics.get(name, {}) == table
    for key, value in metric.defaults.items():
        if value is None:
            assert key in metric.option_types, f"{name}.{key}: declare its type in option_types"
