"""The main window's menus (File, Edit, Tools, Help) and the dialogs they open: export, the
handout check (EXAM), settings, the score chart and the guide."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence

from quizsmith.gui.window_parts import WindowParts
from quizsmith.settings import Settings

GENERATE_TIP = (
    "Write questions about this passage (Ctrl+G): the number and types chosen beside it. "
    "Each finished item is saved at once; Cancel keeps the finished ones."
)


class WindowMenus(WindowParts):
    """The menu bar's actions and the dialogs."""

    def _build_menus(self) -> None:
        file_menu = self.menuBar().addMenu("&File")
        self._action(file_menu, "New passage", self.new_passage, QKeySequence.StandardKey.New)
        self._action(
            file_menu, "Open passage file…", self.open_passage_dialog, QKeySequence.StandardKey.Open
        )
        self._action(file_menu, "Export…", self.open_export_dialog, "Ctrl+E")
        file_menu.addSeparator()
        self._action(file_menu, "Quit", self.close, "Ctrl+Q")
        edit = self.menuBar().addMenu("&Edit")
        # They act on the text field with the focus (which also handles the keys itself).
        for text, method, key in (
            ("Undo", "undo", QKeySequence.StandardKey.Undo),
            ("Redo", "redo", QKeySequence.StandardKey.Redo),
            ("Cut", "cut", QKeySequence.StandardKey.Cut),
            ("Copy", "copy", QKeySequence.StandardKey.Copy),
            ("Paste", "paste", QKeySequence.StandardKey.Paste),
            ("Select all", "selectAll", QKeySequence.StandardKey.SelectAll),
        ):
            self._action(edit, text, lambda _=False, m=method: self._edit_focused(m), key)
        edit.addSeparator()
        self._action(edit, "Save item", self.editor.save).setToolTip("Ctrl+S in the editor")
        self._action(edit, "Discard item changes", self.editor.discard)
        edit.addSeparator()
        self._action(edit, "Delete selected items…", self.delete_selected).setToolTip(
            "The items selected in the list shown (or the item in the editor); Del in a list"
        )
        self._action(edit, "Delete passage…", self.delete_passage)
        tools = self.menuBar().addMenu("&Tools")
        generate = self._action(tools, "Generate items", self.generate, "Ctrl+G")
        generate.setToolTip(GENERATE_TIP)
        tools.addSeparator()
        self._action(tools, "Check a handout (EXAM)…", self.open_exam_dialog)
        self._action(tools, "Score distribution…", self.open_chart)
        self._action(tools, "Learn my standard (refit the overall score)", self.refit_overall)
        tools.addSeparator()
        self._action(tools, "Settings…", self.open_settings_dialog, "Ctrl+,")
        help_menu = self.menuBar().addMenu("&Help")
        self._action(
            help_menu, "Scores and flags explained", lambda: self.open_help("scores"), "F1"
        )
        self._action(help_menu, "Getting started", lambda: self.open_help("start"))
        self._action(help_menu, "The review queue", lambda: self.open_help("queue"))
        self._action(help_menu, "Keyboard shortcuts", lambda: self.open_help("shortcuts"))

    def _edit_focused(self, method: str) -> None:
        from PySide6.QtWidgets import QApplication

        widget = QApplication.focusWidget()
        slot = getattr(widget, method, None)
        if callable(slot):
            slot()

    def announce_after_guide(self, note: str, msecs: int = 60_000) -> None:
        """Show `note` in the status bar, after the guide is closed when it is open (the
        first start's note on the models, issue 47)."""
        guide = self.help_dialog
        if guide is not None and guide.isVisible():
            guide.finished.connect(
                lambda _result: self.statusBar().showMessage(note, msecs),
                Qt.ConnectionType.SingleShotConnection,
            )
            return
        self.statusBar().showMessage(note, msecs)

    def open_help(self, section: str = "start") -> Any:
        """Show the guide at a section (one guide window, raised if already open)."""
        from quizsmith.gui.help import HelpDialog

        if self.help_dialog is None:
            self.help_dialog = HelpDialog(section, self)
        else:
            self.help_dialog.show_section(section)
        self.help_dialog.show()
        self.help_dialog.raise_()
        return self.help_dialog

    def _action(self, menu: Any, text: str, slot: Any, shortcut: Any = None) -> QAction:
        action = QAction(text, self)
        if shortcut is not None:
            action.setShortcut(QKeySequence(shortcut))
        action.triggered.connect(slot)
        menu.addAction(action)
        return action

    # --- dialogs ----------------------------------------------------------------------------
    def open_exam_dialog(self) -> None:
        from quizsmith.gui.dialogs import ExamDialog

        ExamDialog(self.bank, self.settings, self.runner, self).open()

    def open_export_dialog(self) -> None:
        from quizsmith.gui.dialogs import ExportDialog

        ExportDialog(self.bank, self.runner, self).open()

    def open_settings_dialog(self) -> None:
        from quizsmith.gui.dialogs import SettingsDialog

        dialog = SettingsDialog(self.settings, self.runner, self)
        dialog.saved.connect(self._settings_saved)
        dialog.open()

    def _settings_saved(self, settings: Settings, live: list[str]) -> None:
        self.settings = settings
        for widget in (self.editor,):
            widget.settings = settings
        self.editor.live_metrics = live
        for model in (self.passage_items, self.browser.model, self.review.model):
            model.settings = settings
            model.refresh_all()

    def open_chart(self) -> None:
        from quizsmith.gui.chart import ChartDialog

        ChartDialog(self.bank, self).open()
