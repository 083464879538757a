"""Desktop-only preferences (which metrics re-score live, the last bank opened), kept in an
INI file beside settings.toml. Model, endpoint and metric settings stay in settings.toml,
shared with the CLI."""

from __future__ import annotations

import os
from pathlib import Path

from PySide6.QtCore import QSettings

from quizsmith import paths
from quizsmith.gui.jobs import DEFAULT_LIVE_METRICS

BANK_FILE = "bank.quizsmith.sqlite"


def data_dir() -> Path:
    """Where the default bank lives (platformdirs' user data dir; QUIZSMITH_DATA_DIR moves
    it, which is how tests keep a developer's real bank out of reach)."""
    core = getattr(paths, "data_dir", None)
    if callable(core):
        return Path(core())
    value = os.environ.get("QUIZSMITH_DATA_DIR")
    if value:
        folder = Path(value).expanduser()
    else:
        from platformdirs import user_data_dir

        folder = Path(user_data_dir(paths.APP_NAME))
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _store() -> QSettings:
    return QSettings(str(paths.config_dir() / "gui.ini"), QSettings.Format.IniFormat)


def bank_path() -> Path:
    value = _store().value("bank/path", "")
    return Path(str(value)) if value else data_dir() / BANK_FILE


def set_bank_path(path: Path) -> None:
    store = _store()
    store.setValue("bank/path", str(path))
    store.sync()


def live_metrics() -> list[str]:
    value = _store().value("scoring/live_metrics", ",".join(DEFAULT_LIVE_METRICS))
    text = ",".join(value) if isinstance(value, list) else str(value or "")
    return [m.strip() for m in text.split(",") if m.strip()]


def set_live_metrics(metrics: list[str]) -> None:
    store = _store()
    store.setValue("scoring/live_metrics", ",".join(metrics))
    store.sync()
