"""Dialogs: handout check (EXAM), export, settings. Each runs its slow part in a worker
and shows failures as messages with the fix.

One module each (exam_dialog.py, export_dialog.py, settings_dialog.py, and selection_box.py
for the item selection the first two share); the names stay importable from here.
"""

from __future__ import annotations

from quizsmith.gui.exam_dialog import ExamDialog
from quizsmith.gui.export_dialog import ExportDialog, available_exporters, export_job
from quizsmith.gui.selection_box import SelectionBox
from quizsmith.gui.settings_dialog import (
    NO_KEYRING_TEXT,
    ROLE_LABELS,
    SettingsDialog,
    connection_test_job,
)

__all__ = [
    "NO_KEYRING_TEXT",
    "ROLE_LABELS",
    "ExamDialog",
    "ExportDialog",
    "SelectionBox",
    "SettingsDialog",
    "available_exporters",
    "connection_test_job",
    "export_job",
]
