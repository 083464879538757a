"""Where Quizsmith keeps its files. Each can be moved with an environment variable, which is
how the tests keep a developer's real settings, keys and caches out of reach.

What ships with Quizsmith (the model catalog, resources/: templates, the shipped overall
models, the sample passage, icons) is read from the source checkout when Quizsmith runs from
one (or from the frozen app's folder, which sets PROJECT_ROOT), and otherwise from the
installed package, where the wheel build put them (`quizsmith/bundled/`, see setup.py).
What belongs to the user (settings, caches, logs, their own GGUF files) lives in the
platform's user folders (platformdirs), except that a checkout keeps using its models/
folder for dropped-in GGUF files, as the README says."""

from __future__ import annotations

import os
from pathlib import Path

APP_NAME = "quizsmith"

# app/quizsmith/paths.py -> the source checkout root (holds models/ and resources/). In an
# installed package this is a folder without them, and bundled_dir() is used instead.
PROJECT_ROOT = Path(__file__).resolve().parents[2]
CATALOG_FILE = "catalog.toml"


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


def checkout_root() -> Path | None:
    """The source checkout (or frozen app folder) Quizsmith runs from, if it does."""
    root = PROJECT_ROOT
    if (root / "resources").is_dir() and (root / "models" / CATALOG_FILE).is_file():
        return root
    return None


def bundled_dir() -> Path:
    """The data the wheel carries inside the package (setup.py copies it there)."""
    from importlib.resources import files

    return Path(str(files("quizsmith"))) / "bundled"


def models_dir() -> Path:
    """The folder where a user's own *.gguf files are discovered (and, in a checkout or with
    QUIZSMITH_MODELS_DIR, where catalog.toml lives)."""
    value = os.environ.get("QUIZSMITH_MODELS_DIR")
    if value:
        return Path(value).expanduser()
    root = checkout_root()
    if root is not None:
        return root / "models"
    from platformdirs import user_data_dir

    folder = Path(user_data_dir(APP_NAME)) / "models"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def catalog_file() -> Path:
    """The catalog of bundled models: next to the models folder in a checkout (or the
    folder QUIZSMITH_MODELS_DIR names), else the copy inside the installed package."""
    value = os.environ.get("QUIZSMITH_MODELS_DIR")
    if value:
        return Path(value).expanduser() / CATALOG_FILE
    root = checkout_root()
    if root is not None:
        return root / "models" / CATALOG_FILE
    return bundled_dir() / "models" / CATALOG_FILE


def resources_dir() -> Path:
    root = checkout_root()
    return root / "resources" if root is not None else bundled_dir() / "resources"
