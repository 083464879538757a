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


def test_threshold_boxes_offer_only_the_metric_s_own_range(qtbot: Any, tmp_path: Any) -> None:
    """A threshold typed in the dialog must be one the settings file accepts when read back
    (issue 28: every number is range-checked at load)."""
    from quizsmith.gui.settings_dialog import SettingsDialog
    from quizsmith.gui.worker import JobRunner
    from quizsmith.metrics import registry
    from quizsmith.settings import Settings

    dialog = SettingsDialog(Settings(path=tmp_path / "settings.toml"), JobRunner())
    qtbot.addWidget(dialog)
    assert dialog.threshold_spins
    for (metric, key), spin in dialog.threshold_spins.items():
        low, high = registry.get(metric).option_ranges.get(key, (0.0, 5.0))
        assert (spin.minimum(), spin.maximum()) == (low, high), (metric, key)
