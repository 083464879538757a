"""A settings file the app cannot use stops the start with a message box, not a traceback."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from quizsmith import settings as settings_mod


def test_a_misspelt_metric_option_is_shown_at_start(
    qtbot: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from PySide6.QtWidgets import QMessageBox

    from quizsmith.gui import app

    settings_mod.settings_path().write_text("[metrics.kda]\nweak_bellow = 0.9\n")
    shown: list[str] = []
    monkeypatch.setattr(QMessageBox, "critical", lambda _parent, _title, text: shown.append(text))
    old_hook = sys.excepthook
    try:
        assert app.run(tmp_path / "bank.sqlite") == 2
    finally:
        sys.excepthook = old_hook
    assert len(shown) == 1
    assert "weak_bellow" in shown[0] and "weak_below" in shown[0]
    assert not (tmp_path / "bank.sqlite").exists()
