"""The first start's note on the models picked for this computer, in a teacher's words.

Issue 47: the note named no model, told the teacher to run a command
(`quizsmith models --profile light`), and sat 30 s in the status bar behind the welcome
guide. It now names the models, points at the Settings dialog, and the window shows it once
the guide is closed (`MainWindow.announce_after_guide`).
"""

from __future__ import annotations

from quizsmith.generation.model_names import model_name
from quizsmith.settings import Settings

#: Where the teacher changes the profile, as the menus name it.
SETTINGS_PLACE = "Tools → Settings → Models"


def profile_note(settings: Settings) -> str:
    """What the first start picked, which models write and check the questions, why, and
    where to change it."""
    writer = model_name(settings.role("generator"))
    others = [model_name(m) for m in settings.role_list("solvers")]
    second = next((m for m in others if m != writer), "")
    reason = settings.profile_reason.removeprefix("picked at first start: ")
    why = f" Why: {reason}." if reason else ""
    if settings.profile == "standard":
        helper = f", with {second} as a second opinion" if second else ""
        return (
            f"Quizsmith picked the standard models for this computer: {writer} writes the "
            f"questions and checks them{helper}.{why} If writing questions is too slow, "
            f"choose “light” under {SETTINGS_PLACE}."
        )
    helper = f" and {second}" if second else ""
    return (
        f"Quizsmith picked the light models for this computer: {writer}{helper} write and "
        f"check the questions; they are quick, but their questions are weaker.{why} With "
        f"more memory free, choose “standard” under {SETTINGS_PLACE}."
    )
