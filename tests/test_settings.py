from __future__ import annotations

import pytest

from quizsmith import settings
from quizsmith.errors import ConfigError


def test_defaults_name_the_bundled_models() -> None:
    s = settings.load()
    assert s.role("generator") == "smollm2-135m-instruct"
    assert s.role("embeddings") == "all-minilm-l6-v2"
    assert s.role_list("solvers") == ["smollm2-135m-instruct", "gemma3-270m"]


def test_round_trip_through_the_file() -> None:
    s = settings.load()
    s.roles["generator"] = "gguf:my-7b"
    s.roles["judges"] = ["endpoint:lab", "gemma3-270m"]
    s.model_dirs = ["/opt/models"]
    s.endpoints["lab"] = settings.Endpoint(
        name="lab", base_url="http://10.0.0.5:8000/v1", model="qwen", key_name="lab"
    )
    path = settings.save(s)
    again = settings.load(path)
    assert again.role("generator") == "gguf:my-7b"
    assert again.role_list("judges") == ["endpoint:lab", "gemma3-270m"]
    assert again.endpoints == s.endpoints
    assert again.model_dirs == ["/opt/models"]
    assert not path.with_suffix(".toml.tmp").exists()


def test_broken_file_is_a_clear_error_and_is_left_alone() -> None:
    path = settings.settings_path()
    path.write_text("[roles\ngenerator = ")
    with pytest.raises(ConfigError, match="cannot be read"):
        settings.load()
    assert path.read_text() == "[roles\ngenerator = "


def test_unknown_role_and_bad_endpoint_field() -> None:
    path = settings.settings_path()
    path.write_text('[roles]\nwriter = "x"\n')
    with pytest.raises(ConfigError, match="Unknown role"):
        settings.load()
    path.write_text('[endpoints.a]\nbase_urll = "x"\n')
    with pytest.raises(ConfigError, match=r"'base_urll' in \[endpoints.a\]"):
        settings.load()


def _write(text: str) -> None:
    settings.settings_path().write_text(text, encoding="utf-8")


def test_a_misspelt_table_or_models_option_names_the_valid_ones() -> None:
    _write("[model]\nn_ctx = 2048\n")
    with pytest.raises(ConfigError, match="Unknown option 'model' in the settings file") as exc:
        settings.load()
    assert "Did you mean 'models'?" in exc.value.fix
    _write("[models]\nn_thread = 1\n")
    with pytest.raises(ConfigError, match=r"'n_thread' in \[models\]") as exc:
        settings.load()
    assert "Did you mean 'n_threads'?" in exc.value.fix
    assert "dirs, n_ctx, n_threads" in exc.value.fix
    _write('[models]\nn_ctx = "big"\n')
    with pytest.raises(ConfigError, match="must be a whole number") as exc:
        settings.load()
    assert "n_ctx = 4096" in exc.value.fix


def test_an_endpoint_option_is_checked_against_the_provider_options() -> None:
    _write('[endpoints.lab]\nprovider = "anthropic"\nbase_urll = "http://x/v1"\n')
    with pytest.raises(ConfigError) as exc:
        settings.load()
    message = exc.value.message
    assert "'base_urll'" in message and "[endpoints.lab]" in message and "anthropic" in message
    assert "Did you mean 'base_url'?" in exc.value.fix
    for key in ("base_url", "key_name", "max_concurrency", "max_retries", "model", "timeout_s"):
        assert key in exc.value.fix


def test_endpoint_option_types_follow_the_defaults() -> None:
    _write('[endpoints.lab]\ntimeout_s = "60"\n')
    with pytest.raises(ConfigError, match=r"'timeout_s' .* must be a number"):
        settings.load()
    _write("[endpoints.lab]\nmax_retries = 2.5\n")
    with pytest.raises(ConfigError, match=r"'max_retries' .* must be a whole number"):
        settings.load()
    _write("[endpoints.lab]\nmax_retries = true\n")
    with pytest.raises(ConfigError, match=r"'max_retries' .* must be a whole number"):
        settings.load()
    # An int where the default is a float is fine (TOML writes 60 for 60.0).
    _write("[endpoints.lab]\ntimeout_s = 60\nmax_retries = 2\n")
    lab = settings.load().endpoints["lab"]
    assert (lab.timeout_s, lab.max_retries) == (60, 2)


def test_a_secret_in_an_endpoint_is_refused_before_the_key_check() -> None:
    _write('[endpoints.lab]\napi_key = "sk-x"\n')
    with pytest.raises(ConfigError, match="holds a secret"):
        settings.load()
