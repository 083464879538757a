"""The settings dialog's Models tab: the model profile, the model of each role, model
folders. Only a role that differs from the profile's model is saved as the teacher's own
choice, so the other roles follow the profile when it changes.
"""

from __future__ import annotations

from PySide6.QtWidgets import QComboBox, QFormLayout, QLabel, QLineEdit, QWidget

from quizsmith import settings as settings_mod
from quizsmith.errors import QuizsmithError
from quizsmith.settings import Settings

#: Teacher-facing names of the model roles (settings.toml keeps the short ones).
ROLE_LABELS = {
    "generator": "Question writer",
    "qa": "Question answerer (NACo, EXAM)",
    "embeddings": "Similarity model (embeddings)",
    "paraphraser": "Paraphraser (MRE)",
    "solvers": "KDA students (several)",
    "judges": "MIRROR reviewers (several)",
}
PROFILE_TIP = (
    "standard: Qwen2.5-Coder-1.5B-Instruct writes, reads and judges with the papers' chat "
    "prompts (needs about 3 GB of memory); light: the 135M-270M models with few-shot prompts "
    "(fast on any laptop, weaker judgement)."
)


def _split(text: str) -> list[str]:
    return [v.strip() for v in text.split(",") if v.strip()]


class ModelsTab(QWidget):
    def __init__(self, settings: Settings, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.settings = settings
        form = QFormLayout(self)
        choices = self._model_choices()
        # The profile gives every role its model; a role changed below overrides it.
        self.profile_box = QComboBox()
        self.profile_box.addItems(list(settings_mod.PROFILES))
        self.profile_box.setCurrentText(self.settings.profile)
        self.profile_box.setToolTip(PROFILE_TIP)
        form.addRow("Model profile", self.profile_box)
        reason = QLabel(self.settings.profile_reason or "")
        reason.setWordWrap(True)
        form.addRow("", reason)
        self._shown_profile = self.settings.profile
        self.profile_box.currentTextChanged.connect(self._profile_changed)
        self.role_boxes: dict[str, QComboBox] = {}
        self.list_edits: dict[str, QLineEdit] = {}
        for role in settings_mod.SINGLE_ROLES:
            box = QComboBox()
            box.setEditable(True)
            box.addItems(choices)
            box.setCurrentText(self.settings.role(role))
            self.role_boxes[role] = box
            box.setToolTip(f"settings.toml role: {role}")
            form.addRow(ROLE_LABELS.get(role, role), box)
        for role in settings_mod.MULTI_ROLES:
            edit = QLineEdit(", ".join(self.settings.role_list(role)))
            edit.setToolTip(f"Several models, separated by commas (settings.toml role: {role})")
            self.list_edits[role] = edit
            form.addRow(ROLE_LABELS.get(role, role), edit)
        self.dirs_edit = QLineEdit(", ".join(self.settings.model_dirs))
        self.dirs_edit.setPlaceholderText("Folders with your own .gguf files")
        form.addRow("Model folders", self.dirs_edit)
        form.addRow(QLabel("Known models: " + ", ".join(choices)))

    def _profile_changed(self, profile: str) -> None:
        """Roles that showed the old profile's model now show the new one's."""
        old = settings_mod.PROFILE_ROLES[self._shown_profile]
        new = settings_mod.PROFILE_ROLES[profile]
        for role, box in self.role_boxes.items():
            if box.currentText().strip() == old[role]:
                box.setCurrentText(new[role])
        for role, edit in self.list_edits.items():
            if _split(edit.text()) == old[role]:
                edit.setText(", ".join(new[role]))
        self._shown_profile = profile

    def _model_choices(self) -> list[str]:
        try:
            from quizsmith.providers import catalog, registry

            # Only models a provider runs: the catalog also lists the English parser.
            runnable = set(registry.names())
            models = catalog.all_models(self.settings.model_dirs)
            ids = [m.id for m in models if m.backend in runnable]
        except QuizsmithError:
            ids = []
        return ids + [f"endpoint:{name}" for name in self.settings.endpoints]

    def collect_into(self, s: Settings) -> None:
        profile = self.profile_box.currentText()
        if profile != s.profile or not s.profile_chosen:
            s.profile_reason = "chosen by you"
        s.profile, s.profile_chosen = profile, True
        defaults = s.profile_roles()
        chosen: dict[str, object] = {
            role: box.currentText().strip() for role, box in self.role_boxes.items()
        }
        chosen.update({role: _split(edit.text()) for role, edit in self.list_edits.items()})
        for role, picked in chosen.items():
            if picked == defaults[role]:
                s.roles.pop(role, None)
            else:
                s.roles[role] = picked
        s.model_dirs = _split(self.dirs_edit.text())
