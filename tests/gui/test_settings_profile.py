"""The Settings dialog's model profile (issue 26): switching it moves the roles that showed
the old profile's models, keeps the teacher's own, and saves only real choices."""

from __future__ import annotations

from typing import Any

import pytest

from quizsmith import settings as settings_mod
from quizsmith.settings import DEFAULT_ROLES, STANDARD_MODEL, Settings


def test_switching_the_profile_in_settings_moves_the_default_roles(
    qtbot: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from quizsmith.gui.settings_dialog import SettingsDialog
    from quizsmith.gui.worker import JobRunner

    monkeypatch.delenv(settings_mod.PROFILE_ENV)
    dialog = SettingsDialog(Settings(roles={"paraphraser": "gguf:mine"}), JobRunner())
    qtbot.addWidget(dialog)
    assert dialog.profile_box.currentText() == "light"
    dialog.profile_box.setCurrentText("standard")
    assert dialog.role_boxes["generator"].currentText() == STANDARD_MODEL
    assert dialog.list_edits["solvers"].text().startswith(STANDARD_MODEL)
    assert dialog.role_boxes["paraphraser"].currentText() == "gguf:mine"  # the teacher's own
    dialog.save()
    loaded = settings_mod.load()
    assert (loaded.profile, loaded.profile_chosen) == ("standard", True)
    assert loaded.profile_reason == "chosen by you"
    assert loaded.roles == {"paraphraser": "gguf:mine"}
    assert loaded.role("qa") == STANDARD_MODEL

    back = SettingsDialog(loaded, JobRunner())
    qtbot.addWidget(back)
    back.profile_box.setCurrentText("light")
    assert back.role_boxes["generator"].currentText() == DEFAULT_ROLES["generator"]
    back.save()
    assert settings_mod.load().role("generator") == DEFAULT_ROLES["generator"]
