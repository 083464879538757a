"""Every test runs with its own settings and log folders, so a developer's real settings,
keys and logs are never read or written. The model cache (the assembled Gemma file) is
shared: rebuilding it per test would only cost time."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def isolated_dirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    config = tmp_path / "config"
    logs = tmp_path / "logs"
    monkeypatch.setenv("QUIZSMITH_CONFIG_DIR", str(config))
    monkeypatch.setenv("QUIZSMITH_LOG_DIR", str(logs))
    for var in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY"):
        monkeypatch.delenv(var, raising=False)
    return tmp_path


@pytest.fixture(scope="session")
def smollm():
    from quizsmith.providers import provider_for
    from quizsmith.settings import Settings

    return provider_for("smollm2-135m-instruct", Settings())


@pytest.fixture(scope="session")
def gemma():
    from quizsmith.providers import provider_for
    from quizsmith.settings import Settings

    return provider_for("gemma3-270m", Settings())


@pytest.fixture(scope="session")
def minilm():
    from quizsmith.providers import provider_for
    from quizsmith.settings import Settings

    return provider_for("all-minilm-l6-v2", Settings())
