"""Shared pieces of the reliability tests: a provider that returns whatever text a test
hands it (standing in for a model's arbitrary output, which no real model produces on
demand), and settings that keep llama.cpp to one thread."""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, ClassVar

import keyring
import pytest

from quizsmith import logs, secrets
from quizsmith.providers.base import ChatResult, ModelInfo, Provider, parse_json_output
from quizsmith.settings import DEFAULT_ROLES, Settings
from support.file_keyring import TmpKeyring

ONE_THREAD_TOML = "[models]\nn_threads = 1\n"
#: The API key the reliability tests configure and then look for everywhere it must not be.
KEY = "sk-test-SECRET-1234"


class ScriptedProvider(Provider):
    """Answers every chat/complete call with the next text from `texts` (the last one repeats).

    With a JSON schema it behaves as an unconstrained API backend does: the text is parsed
    and a text that is not JSON raises OutputParseError (Anthropic's provider, or an
    OpenAI-compatible server that ignores response_format)."""

    name: ClassVar[str] = "scripted"
    can_chat = True
    can_complete = True
    is_chat_model = True

    def __init__(self, texts: Sequence[str] | Callable[[], str], *, local: bool = True) -> None:
        self._texts = texts
        self._i = 0
        self.calls = 0
        self.is_local = local  # type: ignore[misc]

    @property
    def info(self) -> ModelInfo:
        return ModelInfo("scripted", "scripted-model")

    def _next(self) -> str:
        self.calls += 1
        if callable(self._texts):
            return self._texts()
        text = self._texts[min(self._i, len(self._texts) - 1)]
        self._i += 1
        return text

    def _answer(self, json_schema: dict[str, Any] | None) -> ChatResult:
        text = self._next()
        data = parse_json_output(text) if json_schema is not None else None
        return ChatResult(text=text, model="scripted-model", data=data)

    def chat(
        self, messages: Any, *, json_schema: dict[str, Any] | None = None, **_: Any
    ) -> ChatResult:  # type: ignore[override]
        return self._answer(json_schema)

    def complete(
        self, prompt: str, *, json_schema: dict[str, Any] | None = None, **_: Any
    ) -> ChatResult:  # type: ignore[override]
        return self._answer(json_schema)


def all_roles_to(provider: Provider) -> dict[str, Provider]:
    """MetricContext.overrides that send every default model reference to `provider`."""
    refs: set[str] = set()
    for value in DEFAULT_ROLES.values():
        refs.update(value if isinstance(value, list) else [value])
    return dict.fromkeys(refs, provider)


class QuickGenerator(Provider):
    """A generator model that answers at once: no key terms of its own, and the question
    `stem()` returns for each item (generation's own checks still judge it). `on_stem` runs
    before each answer, so a test can act at the moment an item is being made. Used where the
    CLI's handling of finished items is under test, not what a model writes."""

    name: ClassVar[str] = "quick-generator"
    can_chat = True
    is_chat_model = True
    is_local = False  # the "chat" prompt profile, whatever the model file's size

    def __init__(self, stem: Callable[[], str], on_stem: Callable[[], None] | None = None):
        self._stem = stem
        self._on_stem = on_stem
        self.stems_asked = 0

    @property
    def info(self) -> ModelInfo:
        return ModelInfo("quick", "quick-generator")

    def chat(
        self, messages: Any, *, json_schema: dict[str, Any] | None = None, **_: Any
    ) -> ChatResult:  # type: ignore[override]
        if json_schema is not None and "key_terms" in json_schema.get("properties", {}):
            return ChatResult('{"key_terms": []}', "quick-generator", data={"key_terms": []})
        if self._on_stem is not None:
            self._on_stem()
        self.stems_asked += 1
        stem = self._stem()
        data = {"question": stem}
        if json_schema is not None and "answer" in json_schema.get("properties", {}):
            # Asked for a question with its own answer, its answer is the fact's first phrase
            # (what a chat generator's one candidate per fact is, `builder._together`).
            data["answer"] = _first_phrase(messages[-1]["content"])
        return ChatResult(json.dumps(data), "quick-generator", data=data)


def _first_phrase(content: str) -> str:
    """The first constituent of the fact a prompt fences ("<<<" to ">>>"), "" where none."""
    from quizsmith.generation.analysis import analyse

    fact = content.split("<<<\n")[-1].split("\n>>>")[0]
    found = analyse(fact).constituents
    return found[0].text if found else ""


@pytest.fixture
def quick_generation(monkeypatch: pytest.MonkeyPatch) -> Callable[[Provider], None]:
    """Make generation use the given provider as its generator and run without the
    embeddings and QA models (generation then skips their filters and says so)."""
    from quizsmith.errors import ConfigError
    from quizsmith.generation import pipeline

    def use(provider: Provider) -> None:
        def for_role(role: str, settings: Settings | None = None) -> Provider:
            if role == "generator":
                return provider
            raise ConfigError(f"No {role} model in this test.", "")

        monkeypatch.setattr(pipeline, "provider_for_role", for_role)

    return use


@pytest.fixture
def one_thread() -> Settings:
    """Settings with one llama.cpp thread, also written where subprocesses look for them."""
    config = Path(os.environ["QUIZSMITH_CONFIG_DIR"])
    config.mkdir(parents=True, exist_ok=True)
    (config / "settings.toml").write_text(ONE_THREAD_TOML, encoding="utf-8")
    return Settings(n_threads=1)


@pytest.fixture
def log_file(caplog: pytest.LogCaptureFixture) -> Iterator[Path]:
    """The app's real log file (in this test's log dir) at DEBUG, and caplog beside it."""
    root = logging.getLogger()
    previous = [h for h in root.handlers if getattr(h, "_quizsmith", False)]
    for handler in previous:
        root.removeHandler(handler)
    level = root.level
    path = logs.setup_logging(logging.DEBUG)
    caplog.set_level(logging.DEBUG)
    yield path
    for handler in [h for h in root.handlers if getattr(h, "_quizsmith", False)]:
        root.removeHandler(handler)
        handler.close()
    for handler in previous:
        root.addHandler(handler)
    root.setLevel(level)


@pytest.fixture
def key_in_keyring(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """KEY stored under the keyring entry "school-server" in a file keyring in tmp_path
    (keyrings.alt, chosen on purpose through PYTHON_KEYRING_BACKEND as a user would)."""
    previous = keyring.get_keyring()
    folder = tmp_path / "keyring"
    keyring.set_keyring(TmpKeyring(folder))
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "keyrings.alt.file.PlaintextKeyring")
    secrets.set_api_key("school-server", KEY)
    yield folder
    keyring.set_keyring(previous)


def files_holding_key(*paths: Path, key: str = KEY) -> list[str]:
    """Every file under `paths` whose bytes hold `key`; zip containers (.docx, QTI) are
    searched member by member, since their text is compressed."""
    import zipfile

    found: list[str] = []
    for root in paths:
        files = [root] if root.is_file() else [p for p in root.rglob("*") if p.is_file()]
        for path in files:
            data = path.read_bytes()
            if key.encode() in data or key.encode("utf-16-le") in data:
                found.append(str(path))
            elif zipfile.is_zipfile(path):
                with zipfile.ZipFile(path) as archive:
                    for member in archive.namelist():
                        if key.encode() in archive.read(member):
                            found.append(f"{path}!{member}")
    return found
