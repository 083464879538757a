"""Desktop-only preferences (which metrics re-score live, the last bank opened, the window
layout, the passage and item open at the last close), kept in an INI file beside
settings.toml. Model, endpoint and metric settings stay in settings.toml, shared with the
CLI."""

from __future__ import annotations

import os
from pathlib import Path

from PySide6.QtCore import QByteArray, QSettings

from quizsmith import paths
from quizsmith.operations.jobs import default_live_metrics

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
    default = ",".join(default_live_metrics())
    value = _store().value("scoring/live_metrics", default)
    text = ",".join(value) if isinstance(value, list) else str(value or "")
    return [m.strip() for m in text.split(",") if m.strip()]


def set_live_metrics(metrics: list[str]) -> None:
    store = _store()
    store.setValue("scoring/live_metrics", ",".join(metrics))
    store.sync()


def first_run() -> bool:
    """True until `set_guide_seen` is called: the first start opens the getting-started
    guide."""
    return str(_store().value("help/guide_seen", "")) != "1"


def set_guide_seen() -> None:
    store = _store()
    store.setValue("help/guide_seen", "1")
    store.sync()


#: Saved layout parts: window geometry, QMainWindow state (docks, toolbars), splitters.
LAYOUT_PARTS = ("geometry", "state", "splitter", "passage_splitter")


def layout() -> dict[str, QByteArray]:
    """The window layout saved at the last close (only the parts that were saved)."""
    store = _store()
    found = {}
    for part in LAYOUT_PARTS:
        value = store.value(f"window/{part}")
        if isinstance(value, QByteArray) and not value.isEmpty():
            found[part] = value
    return found


def set_layout(parts: dict[str, QByteArray]) -> None:
    store = _store()
    for part, value in parts.items():
        if part in LAYOUT_PARTS:
            store.setValue(f"window/{part}", value)
    store.sync()


def last_open(bank: Path) -> tuple[int | None, int | None]:
    """(passage id, item id) open when `bank` was last used; ids of another bank would point
    at unrelated rows, so they count only for the bank they were saved with."""
    store = _store()
    if str(store.value("session/bank", "")) != str(bank):
        return None, None
    return _int(store.value("session/passage")), _int(store.value("session/item"))


def set_last_open(bank: Path, passage_id: int | None, item_id: int | None) -> None:
    store = _store()
    store.setValue("session/bank", str(bank))
    store.setValue("session/passage", "" if passage_id is None else passage_id)
    store.setValue("session/item", "" if item_id is None else item_id)
    store.sync()


def _int(value: object) -> int | None:
    try:
        return int(str(value))
    except ValueError:
        return None


#: What the export dialog remembers between uses.
EXPORT_KEYS = ("format", "items", "folder", "open")


def export_choices() -> dict[str, str]:
    """The export dialog's last choices: format name, items ("status:accepted",
    "quiz:Week 1"), folder, and "open" ("1" or "0"); only those saved."""
    store = _store()
    found = {}
    for key in EXPORT_KEYS:
        value = store.value(f"export/{key}")
        if value not in (None, ""):
            found[key] = str(value)
    return found


def set_export_choices(choices: dict[str, str]) -> None:
    store = _store()
    for key, value in choices.items():
        if key in EXPORT_KEYS:
            store.setValue(f"export/{key}", value)
    store.sync()
