"""API keys are checked where they come in and where they are used (issue 48, round four).

Before: `printf 'sk-...-é\\n' | quizsmith key set ukey --stdin` stored the key, and scoring
with it ended in "Unexpected error (UnicodeEncodeError)", rc 1, while the HTTP header was built
(the key did not leak); a key with a carriage return inside was stored as is. A key is
printable ASCII without whitespace; the trailing line end of piped input is taken off; no
message ever quotes the key.
"""

from __future__ import annotations

import io
import sys
from pathlib import Path

import keyring
import pytest

from quizsmith import secrets
from quizsmith import settings as settings_mod
from quizsmith.bank import ItemBank
from quizsmith.cli import main
from quizsmith.domain import Item, Passage
from quizsmith.errors import AuthError, SecretStoreError
from quizsmith.providers import manager
from quizsmith.providers.openai_compat import OpenAIProvider
from quizsmith.settings import Endpoint

BAD_KEYS = {
    "non-ASCII": ("sk-abc-123-\u00e9", "not printable ASCII"),
    "carriage return inside": ("sk-abc\r123", "a line break"),
    "line feed inside": ("sk-abc\n123", "a line break"),
    "space inside": ("sk-abc 123", "a space or tab"),
    "tab inside": ("sk-abc\t123", "a space or tab"),
    "control character": ("sk-abc\x07123", "not printable ASCII"),
    "zero-width space": ("sk-abc\u200b123", "not printable ASCII"),
}


#: What can come in on one line of standard input (`key set` reads one line).
ONE_LINE = {k: v for k, v in BAD_KEYS.items() if "\n" not in v[0]}


@pytest.mark.parametrize(("key", "said"), list(ONE_LINE.values()), ids=list(ONE_LINE))
def test_key_set_refuses_a_key_no_http_header_can_carry(
    key: str,
    said: str,
    key_in_keyring: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO(key + "\n"))
    assert main(["key", "set", "ukey", "--stdin"]) == 2
    out, err = capsys.readouterr()
    assert "error: This is not an API key" in err and said in err and "nothing was stored" in err
    assert key.strip() not in out + err and "abc" not in out + err  # never quoted, not in part
    assert keyring.get_password(secrets.SERVICE, "ukey") is None


def test_key_set_takes_off_the_line_end_of_piped_input(
    key_in_keyring: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("sk-good-123\r\n"))
    assert main(["key", "set", "ukey", "--stdin"]) == 0
    assert keyring.get_password(secrets.SERVICE, "ukey") == "sk-good-123"
    assert "sk-good-123" not in capsys.readouterr().out


def test_key_set_refuses_input_that_is_not_text(
    key_in_keyring: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    stdin = io.TextIOWrapper(io.BytesIO(b"sk-abc-\xff\xfe\n"), encoding="utf-8")
    monkeypatch.setattr(sys, "stdin", stdin)
    assert main(["key", "set", "ukey", "--stdin"]) == 2
    assert "not text" in capsys.readouterr().err
    assert keyring.get_password(secrets.SERVICE, "ukey") is None


@pytest.mark.parametrize(("key", "said"), list(BAD_KEYS.values()), ids=list(BAD_KEYS))
def test_the_settings_dialog_path_checks_keys_too(
    key: str, said: str, key_in_keyring: Path
) -> None:
    with pytest.raises(SecretStoreError, match=said) as caught:
        secrets.set_api_key("ukey", key)
    assert key not in str(caught.value) and "abc" not in str(caught.value)
    assert keyring.get_password(secrets.SERVICE, "ukey") is None


def _endpoint(**fields: object) -> Endpoint:
    return Endpoint(name="school", base_url="http://127.0.0.1:9/v1", model="m", **fields)  # type: ignore[arg-type]


@pytest.mark.parametrize(("key", "said"), list(BAD_KEYS.values()), ids=list(BAD_KEYS))
def test_a_bad_key_already_in_the_keyring_is_a_clear_error_when_used(
    key: str, said: str, key_in_keyring: Path
) -> None:
    keyring.set_password(secrets.SERVICE, "ukey", key)
    with pytest.raises(AuthError) as caught:
        OpenAIProvider(_endpoint(key_name="ukey"))
    error = caught.value
    assert "The API key stored in the keyring as 'ukey' cannot be sent" in error.message
    assert said in error.message and "quizsmith key set ukey" in error.fix
    assert key not in str(error) and "abc" not in str(error)


def test_a_bad_key_in_the_environment_names_the_variable(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("QUIZSMITH_API_KEY_UKEY", "sk-\u00e9-1")
    with pytest.raises(AuthError) as caught:
        OpenAIProvider(_endpoint(key_name="ukey"))
    assert "in the environment variable QUIZSMITH_API_KEY_UKEY" in caught.value.message
    assert "set QUIZSMITH_API_KEY_UKEY to the key alone" in caught.value.fix


def test_a_key_with_a_line_end_around_it_is_sent_without_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("QUIZSMITH_API_KEY_UKEY", "  sk-good-1\n")
    provider = OpenAIProvider(_endpoint(key_name="ukey"))
    try:
        assert provider._http._client.headers["authorization"] == "Bearer sk-good-1"
    finally:
        provider.close()


def test_scoring_with_a_bad_stored_key_says_so_and_never_crashes(
    key_in_keyring: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The reproduction: rc 1 (UnicodeEncodeError) before; now the items are "not scored"
    with the reason and the fix, rc 4, no crash log, the key nowhere in the output."""
    bad = "sk-abc-123-\u00e9"
    keyring.set_password(secrets.SERVICE, "ukey", bad)
    s = settings_mod.Settings(n_threads=1)
    s.endpoints["school"] = _endpoint(key_name="ukey", max_retries=0)
    for role in ("generator", "qa", "paraphraser"):
        s.roles[role] = "endpoint:school"
    for role in ("solvers", "judges"):
        s.roles[role] = ["endpoint:school"]
    settings_mod.save(s)
    with ItemBank(tmp_path / "b.qbank") as bank:
        pid = bank.add_passage(Passage(text="The tower was built in 1889 in Paris."))
        bank.add_item(Item(type="short", stem="When was the tower built?", key="1889",
                           passage_id=pid))  # fmt: skip
    try:
        code = main(["score", "--bank", str(tmp_path / "b.qbank"), "--metrics", "naco"])
    finally:
        manager.close_all()
    out, err = capsys.readouterr()
    assert code == 4, out + err
    assert "cannot be sent" in out + err and "quizsmith key set ukey" in out + err
    assert bad not in out + err and "Unexpected error" not in err
    assert not list(Path(settings_mod.paths.log_dir()).glob("crash-*.log"))
