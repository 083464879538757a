"""The settings file and the API server, checked where they come in (issue 48, round four).

Before: a settings file nested 5,000 deep (`x = [[[...`) ended every command that reads the
settings with "Unexpected error (RecursionError)", rc 1; `generator = 5`, `provider = "evil"`,
`base_url = "file:///etc/passwd"` and a base_url without a scheme were accepted (the last one
then failed five times as "could not be reached"); a key went to another computer over plain
http:// without a word; a redirect from the API server was reported as "not JSON".
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from quizsmith import settings
from quizsmith.cli import main
from quizsmith.errors import ConfigError
from quizsmith.providers import http
from quizsmith.providers.http import JsonHttpClient
from quizsmith.providers.http_transport import HttpError

from .test_http_boundary import RawServer, Respond, chat_ok, hi, provider, reply


def _write(text: str) -> Path:
    path = settings.settings_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def _refused(text: str) -> ConfigError:
    path = _write(text)
    with pytest.raises(ConfigError) as caught:
        settings.load()
    assert str(path) in caught.value.message and caught.value.fix
    return caught.value


# -- a file nested thousands deep ----------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    ["x = " + "[" * 5000 + "]" * 5000 + "\n", "x = " + "{a = " * 5000 + "1" + "}" * 5000 + "\n"],
    ids=["arrays", "inline tables"],
)
def test_settings_nested_5000_deep_are_a_clear_error_naming_the_file(
    text: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    error = _refused(text)
    assert "nests lists or tables thousands of levels deep" in error.message
    assert "Rename or delete settings.toml" in error.fix
    assert main(["models"]) == 2
    err = capsys.readouterr().err
    assert "error: The settings file" in err and "fix: Rename or delete" in err
    assert "Traceback" not in err and "Unexpected error" not in err
    logs = Path(settings.paths.log_dir())
    assert not list(logs.glob("crash-*.log"))


def test_commands_that_need_no_settings_still_work_beside_a_broken_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _write("x = " + "[" * 5000 + "]" * 5000 + "\n")
    assert main(["key", "status", "school"]) == 0
    source = tmp_path / "q.gift"
    source.write_text("::a::How many legs has a spider?{#8}\n", encoding="utf-8")
    assert main(["import", str(source), "--bank", str(tmp_path / "b.qbank")]) == 0
    assert main(["export", "--bank", str(tmp_path / "b.qbank"), "--format", "gift",
                 "--status", "all", "--out", str(tmp_path / "out.gift")]) == 0  # fmt: skip
    assert "spider" in (tmp_path / "out.gift").read_text(encoding="utf-8")


# -- types and schemes, with the key named -------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("[roles]\ngenerator = 5\n", "Role 'generator' in [roles]"),
        ('[roles]\nqa = ""\n', "Role 'qa' in [roles]"),
        ('[roles]\nsolvers = ["gemma3-270m", 3]\n', "Role 'solvers' in [roles]"),
        ("[roles]\njudges = {a = 1}\n", "Role 'judges' in [roles]"),
        ("[models]\ndirs = [1, 2]\n", "Option 'dirs' in [models]"),
    ],
)
def test_a_role_or_folder_of_the_wrong_type_is_refused_naming_the_key(
    text: str, named: str
) -> None:
    error = _refused(text)
    assert named in error.message
    assert "remove the line" in error.fix


def test_an_unknown_provider_is_refused_naming_the_key_and_the_known_ones() -> None:
    error = _refused('[endpoints.lab]\nprovider = "evil"\nbase_url = "http://127.0.0.1:9/v1"\n')
    assert "Option 'provider' in [endpoints.lab]" in error.message and "'evil'" in error.message
    assert "openai" in error.fix and "anthropic" in error.fix


@pytest.mark.parametrize(
    ("url", "suggested"),
    [
        ("file:///etc/passwd", "http://127.0.0.1:8080/v1"),
        ("127.0.0.1:8080/v1", "http://127.0.0.1:8080/v1"),
        ("localhost:8080/v1", "http://localhost:8080/v1"),
        ("ftp://school.example/v1", "http://127.0.0.1:8080/v1"),
        ("http:///v1", "http://127.0.0.1:8080/v1"),
        ("http://school.example:port/v1", "http://127.0.0.1:8080/v1"),
        ("", "http://127.0.0.1:8080/v1"),
    ],
)
def test_a_base_url_that_is_not_http_with_a_host_is_refused(url: str, suggested: str) -> None:
    error = _refused(f'[endpoints.lab]\nbase_url = "{url}"\nmodel = "m"\n')
    assert "Option 'base_url' in [endpoints.lab]" in error.message
    assert "must be an http:// or https:// address with a host" in error.message
    assert f'base_url = "{suggested}"' in error.fix


def test_good_settings_still_load() -> None:
    _write(
        '[roles]\ngenerator = "endpoint:lab"\nsolvers = ["gemma3-270m", "endpoint:lab"]\n'
        "judges = []\n"
        '[endpoints.lab]\nprovider = "anthropic"\nbase_url = "https://api.anthropic.com"\n'
        '[endpoints.local]\nbase_url = "http://[::1]:8080/v1"\n'
    )
    loaded = settings.load()
    assert loaded.role("generator") == "endpoint:lab"
    assert loaded.endpoints["local"].base_url == "http://[::1]:8080/v1"


def test_a_provider_registered_at_run_time_may_be_named() -> None:
    from quizsmith.providers import registry
    from quizsmith.providers.openai_compat import OpenAIProvider

    class Echo(OpenAIProvider):
        name = "echo-test"

    registry.register("echo-test", Echo)
    try:
        _write('[endpoints.e]\nprovider = "echo-test"\n')
        assert settings.load().endpoints["e"].provider == "echo-test"
    finally:
        registry.unregister("echo-test")


# -- a key over plain http:// to another computer ------------------------------------------------


@pytest.fixture
def fresh_warnings(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(http, "_warned_plain_http", set())


@pytest.mark.usefixtures("fresh_warnings")
@pytest.mark.parametrize(
    ("url", "key", "warned"),
    [
        ("http://10.0.0.5:8000/v1", "sk-x", True),
        ("http://school.example/v1", "sk-x", True),
        ("http://user:sk-pass@school.example/v1", None, True),  # a key in the address
        ("https://school.example/v1", "sk-x", False),
        ("http://127.0.0.1:8080/v1", "sk-x", False),
        ("http://localhost:8080/v1", "sk-x", False),
        ("http://[::1]:8080/v1", "sk-x", False),
        ("http://10.0.0.5:8000/v1", None, False),  # no key: nothing to read
    ],
)
def test_a_key_about_to_go_over_plain_http_elsewhere_is_warned_about(
    url: str, key: str | None, warned: bool, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, "quizsmith.notices")
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    JsonHttpClient(url, headers=headers).close()
    said = [r.getMessage() for r in caplog.records if r.name == "quizsmith.notices.http"]
    assert bool(said) == warned, said
    if warned:
        assert "over plain http://" in said[0] and "https://" in said[0]
        assert "sk-x" not in said[0] and "sk-pass" not in said[0]


@pytest.mark.usefixtures("fresh_warnings")
def test_the_cli_shows_the_plain_http_warning(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["key", "status", "lab"]) == 0  # the CLI sets up its warnings
    capsys.readouterr()
    for _ in range(2):  # a run builds a client per role: said once
        JsonHttpClient("http://10.0.0.9/v1", headers={"Authorization": "Bearer sk-x"}).close()
    err = capsys.readouterr().err
    assert err.count("warning: The endpoint at http://10.0.0.9/v1 sends its API key") == 1


# -- redirects -----------------------------------------------------------------------------------


@pytest.fixture
def serve() -> Iterator[Callable[[Respond], RawServer]]:
    servers: list[RawServer] = []

    def start(respond: Respond) -> RawServer:
        servers.append(RawServer(respond))
        return servers[-1]

    yield start
    for server in servers:
        server.close()


@pytest.mark.parametrize(
    ("location", "said", "suggested"),
    [
        ("https://api.school.example/v1/chat/completions", "to https://api.school.example/v1/"
         "chat/completions", 'base_url to "https://api.school.example/v1"'),
        ("/moved/v1/chat/completions", "/moved/v1/chat/completions", "/moved/v1\""),
        ("https://login.example/?next=x", "to https://login.example/?next=x", "Check the "
         "endpoint's base_url"),
        (None, "without saying where", "Check the endpoint's base_url"),
    ],
)  # fmt: skip
def test_a_redirect_is_named_with_where_it_goes_and_not_followed(
    serve: Callable[[Respond], RawServer], location: str | None, said: str, suggested: str
) -> None:
    headers = {"location": location} if location else {}
    server = serve(lambda i, body: reply(b"<html>moved</html>", 301, headers))
    with pytest.raises(HttpError) as caught:
        hi(provider(server.base_url))
    error = caught.value
    assert "redirected the request (HTTP 301)" in error.message and said in error.message
    assert "does not follow redirects" in error.message and "not JSON" not in error.message
    assert suggested in error.fix
    assert len(server.requests) == 1  # neither retried nor followed


def test_a_redirect_shows_no_password_it_carries(serve: Callable[[Respond], RawServer]) -> None:
    target = "https://user:sk-hidden-999@api.school.example/v1/chat/completions"
    server = serve(lambda i, body: reply(b"", 307, {"location": target}))
    with pytest.raises(HttpError) as caught:
        hi(provider(server.base_url))
    assert "sk-hidden-999" not in str(caught.value) and "***@api.school.example" in str(
        caught.value
    )


def test_an_ordinary_answer_still_reads(serve: Callable[[Respond], RawServer]) -> None:
    server = serve(lambda i, body: reply(chat_ok("fine")))
    assert hi(provider(server.base_url)).text == "fine"
