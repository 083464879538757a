"""Model profiles (issue 26): the first start picks one for the machine and records it, the
roles follow it, the CLI and the settings file switch it, and the overall estimate on the
standard profile says where its signals come from."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from quizsmith import settings as settings_mod
from quizsmith.cli import main
from quizsmith.providers import machine_profile
from quizsmith.providers.machine_profile import Machine, pick
from quizsmith.settings import DEFAULT_ROLES, PROFILE_ROLES, STANDARD_MODEL, Settings


def test_the_rule_picks_standard_only_with_memory_cores_and_the_model() -> None:
    assert pick(Machine(16.0, 4, True))[0] == "standard"
    assert pick(Machine(6.0, 2, True))[0] == "standard"
    profile, reason = pick(Machine(5.9, 8, True))
    assert profile == "light" and "5.9 GB available" in reason and "6 GB" in reason
    profile, reason = pick(Machine(32.0, 1, True))
    assert profile == "light" and "2 cores" in reason
    profile, reason = pick(Machine(32.0, 8, False))
    assert profile == "light" and "not installed" in reason
    assert pick(Machine(None, 8, True))[0] == "light"  # memory unknown: the safe choice


def test_available_memory_is_read_on_this_machine() -> None:
    found = machine_profile.available_memory_gb()
    assert found is None or 0 < found < 10_000


def test_roles_follow_the_profile_and_the_users_own_roles_win() -> None:
    light = Settings()
    assert light.profile == "light"
    assert light.effective_roles() == DEFAULT_ROLES
    standard = Settings(profile="standard")
    assert standard.role("generator") == standard.role("qa") == STANDARD_MODEL
    assert standard.role_list("solvers")[0] == STANDARD_MODEL
    # Model diversity where a metric wants it: a second, different solver and reviewer.
    assert len(set(standard.role_list("solvers"))) == 2
    assert len(set(standard.role_list("judges"))) == 2
    assert standard.role("embeddings") == DEFAULT_ROLES["embeddings"]
    standard.roles["generator"] = "gguf:my-7b"
    assert standard.role("generator") == "gguf:my-7b" and standard.role("qa") == STANDARD_MODEL


def test_first_start_picks_records_and_says_which(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(settings_mod.PROFILE_ENV)
    monkeypatch.setattr(machine_profile, "this_machine", lambda: Machine(12.0, 4, True))
    message = machine_profile.first_start()
    assert message and "standard model profile" in message and "--profile light" in message
    s = settings_mod.load()
    assert (s.profile, s.profile_chosen) == ("standard", True)
    assert "12.0 GB available" in s.profile_reason
    data = tomllib.loads(settings_mod.settings_path().read_text())
    assert data["models"]["profile"] == "standard"
    assert "roles" not in data or not data["roles"]  # no role pinned: they follow the profile
    assert machine_profile.first_start() is None  # once


def test_the_environment_fixes_the_profile_without_a_pick() -> None:
    # tests/conftest.py sets QUIZSMITH_PROFILE=light
    assert machine_profile.first_start() is None
    assert not settings_mod.settings_path().exists()
    assert settings_mod.load().profile == "light"


def test_cli_switches_the_profile_and_models_shows_it(
    capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(settings_mod.PROFILE_ENV)
    assert main(["models", "--profile", "standard"]) == 0
    out = capsys.readouterr().out
    assert "Model profile: standard" in out
    assert "Profile: standard (chosen by you)" in out
    assert f"generator    {STANDARD_MODEL}" in out
    assert "upstream: Qwen/Qwen2.5-Coder-1.5B-Instruct (Apache-2.0)" in out
    assert settings_mod.load().profile == "standard"
    assert main(["models", "--profile", "light"]) == 0
    assert "generator    smollm2-135m-instruct" in capsys.readouterr().out
    assert settings_mod.load().role("generator") == DEFAULT_ROLES["generator"]


def test_a_file_from_before_profiles_keeps_only_real_choices(tmp_path: Path) -> None:
    # The old settings dialog saved every role, defaults included.
    path = tmp_path / "settings.toml"
    roles = {**DEFAULT_ROLES, "generator": "gguf:my-7b"}
    path.write_text(
        "[roles]\n" + "".join(f"{k} = {_toml(v)}\n" for k, v in roles.items()), encoding="utf-8"
    )
    s = settings_mod.load(path)
    assert s.roles == {"generator": "gguf:my-7b"}
    assert not s.profile_chosen
    s.profile = "standard"
    assert s.role("qa") == STANDARD_MODEL and s.role("generator") == "gguf:my-7b"


def test_a_bad_profile_in_the_file_or_environment_is_a_clear_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from quizsmith.errors import ConfigError

    path = tmp_path / "settings.toml"
    path.write_text('[models]\nprofile = "huge"\n', encoding="utf-8")
    with pytest.raises(ConfigError, match="huge") as exc:
        settings_mod.load(path)
    assert "standard, light" in exc.value.fix
    monkeypatch.setenv(settings_mod.PROFILE_ENV, "medium")
    with pytest.raises(ConfigError, match="QUIZSMITH_PROFILE"):
        settings_mod.load(tmp_path / "none.toml")


def test_profiles_round_trip_through_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(settings_mod.PROFILE_ENV)
    s = Settings(profile="standard", profile_reason="chosen by you", profile_chosen=True)
    s.roles["judges"] = ["endpoint:lab", "gemma3-270m"]
    path = settings_mod.save(s, tmp_path / "settings.toml")
    back = settings_mod.load(path)
    assert (back.profile, back.profile_reason, back.profile_chosen) == (
        "standard",
        "chosen by you",
        True,
    )
    assert back.roles == {"judges": ["endpoint:lab", "gemma3-270m"]}


def test_the_evaluation_cache_key_of_the_light_profile_is_unchanged() -> None:
    # Cached results (bench/judgement.py) were keyed on the full light roles.
    assert Settings().effective_roles() == dict(DEFAULT_ROLES)
    assert PROFILE_ROLES["light"] is DEFAULT_ROLES


def test_each_profile_uses_its_own_overall_model_and_standard_falls_back_to_light(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from quizsmith.quality import overall_model
    from quizsmith.quality.overall_model import (
        active_model_path,
        shipped_model_path,
        signals_profile,
    )

    assert shipped_model_path("standard").exists()  # fitted on the reader's signals
    assert signals_profile("standard") == "standard"
    assert active_model_path("standard") == shipped_model_path("standard")
    assert signals_profile("light") == "light"
    # Without its own file the standard profile is estimated by the light model.
    real = overall_model.shipped_model_path
    monkeypatch.setattr(
        overall_model,
        "shipped_model_path",
        lambda profile="light": real("light") if profile == "light" else tmp_path / "no.joblib",
    )
    assert signals_profile("standard") == "light"
    assert active_model_path("standard") == real("light")


def _toml(value: object) -> str:
    if isinstance(value, list):
        return "[" + ", ".join(f'"{v}"' for v in value) + "]"
    return f'"{value}"'


def test_the_warm_up_loads_the_light_signal_models_on_the_standard_profile() -> None:
    from quizsmith.operations.model_loading import local_models

    standard = local_models(Settings(profile="standard"))
    assert STANDARD_MODEL in standard
    # the overall estimate's signals: Gemma reads, SmolLM2 judges fluency
    assert {"gemma3-270m", "smollm2-135m-instruct"} <= set(standard)
    assert "smollm2-135m-instruct" in local_models(Settings())
