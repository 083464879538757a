"""API keys: precedence, the keyring backend, and that a key never lands in a file or a log."""

from __future__ import annotations

import logging
from pathlib import Path

import keyring
import pytest
from keyring.backends import fail

from quizsmith import secrets, settings
from quizsmith.errors import AuthError, SecretStoreError
from quizsmith.logs import setup_logging
from support.file_keyring import TmpKeyring

KEY = "sk-test-1234567890abcdef"


@pytest.fixture
def temp_keyring(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    previous = keyring.get_keyring()
    backend = TmpKeyring(tmp_path / "keyring")
    keyring.set_keyring(backend)
    # Choosing a low-priority backend on purpose is what makes it acceptable.
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "keyrings.alt.file.PlaintextKeyring")
    yield backend
    keyring.set_keyring(previous)


@pytest.fixture
def no_keyring():
    previous = keyring.get_keyring()
    keyring.set_keyring(fail.Keyring())
    yield
    keyring.set_keyring(previous)


def test_precedence_explicit_then_keyring_then_environment(temp_keyring, monkeypatch) -> None:
    monkeypatch.setenv(secrets.env_var_for("school"), "from-env")
    assert secrets.get_api_key("school") == "from-env"
    secrets.set_api_key("school", KEY)
    assert secrets.get_api_key("school") == KEY
    assert secrets.get_api_key("school", explicit="explicit") == "explicit"
    assert secrets.delete_api_key("school") is True
    assert secrets.delete_api_key("school") is False
    assert secrets.get_api_key("school") == "from-env"


def test_conventional_variable_is_the_last_fallback(no_keyring, monkeypatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "conventional")
    assert secrets.get_api_key("openai", extra_env="OPENAI_API_KEY") == "conventional"
    monkeypatch.setenv(secrets.env_var_for("openai"), "ours")
    assert secrets.get_api_key("openai", extra_env="OPENAI_API_KEY") == "ours"


def test_missing_key_names_the_fix(no_keyring) -> None:
    with pytest.raises(AuthError) as err:
        secrets.require_api_key("school")
    assert "quizsmith key set school" in str(err.value)
    assert "QUIZSMITH_API_KEY_SCHOOL" in str(err.value)


def test_no_usable_keyring_says_so_and_how_to_fix(no_keyring) -> None:
    with pytest.raises(SecretStoreError) as err:
        secrets.set_api_key("school", KEY)
    text = str(err.value)
    assert "No usable keyring backend" in text and "QUIZSMITH_API_KEY_SCHOOL" in text
    assert KEY not in text


def test_plain_text_keyring_is_not_used_unless_chosen(tmp_path, monkeypatch) -> None:
    previous = keyring.get_keyring()
    keyring.set_keyring(TmpKeyring(tmp_path))
    monkeypatch.delenv("PYTHON_KEYRING_BACKEND", raising=False)
    try:
        usable, why = secrets.keyring_usable()
        assert not usable and "not secure" in why
        with pytest.raises(SecretStoreError):
            secrets.set_api_key("school", KEY)
    finally:
        keyring.set_keyring(previous)


def test_empty_key_is_refused(temp_keyring) -> None:
    with pytest.raises(SecretStoreError, match="empty"):
        secrets.set_api_key("school", "   ")


def test_key_never_reaches_settings_or_logs(temp_keyring, isolated_dirs: Path) -> None:
    log_path = setup_logging(logging.DEBUG)
    secrets.set_api_key("school", KEY)
    s = settings.load()
    s.endpoints["school"] = settings.Endpoint(
        name="school", base_url="http://127.0.0.1:9/v1", key_name="school"
    )
    settings.save(s)
    key = secrets.require_api_key("school")
    logging.getLogger("quizsmith.test").warning("request failed with key %s", key)
    for handler in logging.getLogger().handlers:
        handler.flush()
    written = [p for p in isolated_dirs.rglob("*") if p.is_file() and "keyring" not in p.parts]
    assert log_path in written and settings.settings_path() in written
    for path in written:
        assert KEY not in path.read_text(encoding="utf-8", errors="replace"), path
    assert "***" in log_path.read_text(encoding="utf-8")


def test_settings_refuse_a_key_written_by_hand(isolated_dirs: Path) -> None:
    from quizsmith.errors import ConfigError

    path = settings.settings_path()
    path.write_text('[endpoints.school]\nbase_url = "http://x/v1"\napi_key = "sk-oops"\n')
    with pytest.raises(ConfigError) as err:
        settings.load()
    assert "quizsmith key set school" in str(err.value)
    assert "sk-oops" not in str(err.value)
