"""Where Quizsmith keeps its files. Each can be moved with an environment variable, which is
how the tests keep a developer's real settings, keys and caches out of reach."""

from __future__ import annotations

import os
from pathlib import Path

APP_NAME = "quizsmith"

# app/quizsmith/paths.py -> the source checkout root (holds models/ and resources/).
PROJECT_ROOT = Path(__file__).resolve().parents[2]


def _dir(env_var: str, default: str) -> Path:
    value = os.environ.get(env_var)
    path = Path(value).expanduser() if value else Path(default)
    path.mkdir(parents=True, exist_ok=True)
    return path


def config_dir() -> Path:
    from platformdirs import user_config_dir

    return _dir("QUIZSMITH_CONFIG_DIR", user_config_dir(APP_NAME))


def cache_dir() -> Path:
    from platformdirs import user_cache_dir

    return _dir("QUIZSMITH_CACHE_DIR", user_cache_dir(APP_NAME))


def log_dir() -> Path:
    from platformdirs import user_log_dir

    return _dir("QUIZSMITH_LOG_DIR", user_log_dir(APP_NAME))


def models_dir() -> Path:
    """The folder holding catalog.toml; user *.gguf files dropped here are discovered too."""
    value = os.environ.get("QUIZSMITH_MODELS_DIR")
    return Path(value).expanduser() if value else PROJECT_ROOT / "models"


def resources_dir() -> Path:
    return PROJECT_ROOT / "resources"
