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
    with pytest.raises(ConfigError, match="Endpoint 'a'"):
        settings.load()
