"""The export dialog: the bank's items (a quiz, or every item with a status) to a file in
any installed export format, written in a worker; failures show as messages with the fix.

It remembers its choices (format, items, folder, "Open when done") in gui.ini, gives each
format a file name of its own (switching from the student sheet to the answer key used to
keep "quiz.docx", and only the overwrite question stopped the key replacing the sheet), and
says so when nothing can open the file (issue 27).
"""

from __future__ import annotations

import shutil
import sys
from collections.abc import Generator
from pathlib import Path
from typing import Any

from PySide6.QtCore import QProcess, QUrl
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from quizsmith.bank.store import ItemBank
from quizsmith.gui import jobs, prefs
from quizsmith.gui.messages import show_error
from quizsmith.gui.selection_box import SelectionBox
from quizsmith.gui.worker import JobRunner, JobWorker, ProgressPanel
from quizsmith.jobs import CancelToken, Progress


def export_job(
    bank: ItemBank, format_name: str, path: Path, quiz: str | None, status: str | None
) -> jobs.JobFactory:
    def job(token: CancelToken) -> Generator[Progress, None, Any]:
        from quizsmith.formats import export_from_bank

        yield Progress(f"Writing {path.name}", 0, 1)
        token.raise_if_cancelled()
        return export_from_bank(bank, format_name, path, quiz=quiz, status=status)

    return job


#: Added to the file name of a format that shares its extension with another, so that the
#: answer key does not take the student sheet's name.
FILE_TAGS = {"docx-key": "-answer-key", "docx-report": "-report"}
#: Desktops where files open through xdg-open (Windows and macOS: Qt's QDesktopServices,
#: which reports a failure itself; on Linux it returned True with nothing opened).
USES_XDG_OPEN = sys.platform not in ("win32", "darwin")


def opener_command() -> list[str] | None:
    """The command that opens a file in its usual program (Linux desktops: xdg-open), or None
    when there is none here."""
    found = shutil.which("xdg-open")
    return [found] if found else None


def file_name_for(current: Path, old_format: str | None, new_format: str, ext: str) -> Path:
    """`current` renamed for `new_format`: its extension, and its tag ("-answer-key") in
    place of the old format's."""
    stem = current.stem
    old_tag = FILE_TAGS.get(old_format or "", "")
    if old_tag and stem.endswith(old_tag):
        stem = stem[: -len(old_tag)]
    new_tag = FILE_TAGS.get(new_format, "")
    if new_tag and not stem.endswith(new_tag):
        stem += new_tag
    return current.with_name(stem + (ext or current.suffix))


def available_exporters() -> list[tuple[str, str, str]]:
    """(name, title, extension) of every export format installed; [] when there are none."""
    try:
        from quizsmith.formats import get
        from quizsmith.formats.registry import exporters_in_order
    except ImportError:
        return []
    # In the order the formats declare (`Format.order`): Word first, then the platforms.
    return [(n, get(n).title or n, get(n).extension) for n in exporters_in_order()]


class ExportDialog(QDialog):
    def __init__(self, bank: ItemBank, runner: JobRunner, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Export")
        self.resize(560, 260)
        self.bank, self.runner = bank, runner
        self.formats = available_exporters()
        self.format_box = QComboBox()
        for name, title, ext in self.formats:
            self.format_box.addItem(f"{title} ({ext})" if ext else title, name)
        self.selection = SelectionBox(bank)
        self.path_edit = QLineEdit()
        self.browse_button = QPushButton("Browse…")
        self.open_check = QCheckBox("Open when done")
        self._format_name: str | None = None
        #: The program opening the last export (Linux), kept until it has answered.
        self.opener: QProcess | None = None
        self.status = QLabel("")
        self.status.setWordWrap(True)
        self.progress = ProgressPanel()
        self.export_button = QPushButton("Export")
        self.last_result: Any = None
        #: The "replace the file?" question while it is open.
        self.overwrite_box: QMessageBox | None = None
        form = QFormLayout()
        form.addRow("Format", self.format_box)
        form.addRow("Items", self.selection)
        dest = QHBoxLayout()
        dest.addWidget(self.path_edit, 1)
        dest.addWidget(self.browse_button)
        form.addRow("Save as", dest)
        form.addRow("", self.open_check)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.status)
        layout.addWidget(self.progress)
        row = QHBoxLayout()
        row.addStretch(1)
        close = QPushButton("Close")
        row.addWidget(self.export_button)
        row.addWidget(close)
        layout.addLayout(row)
        close.clicked.connect(self.reject)
        self.browse_button.clicked.connect(self._browse)
        self.export_button.clicked.connect(self.export)
        self.format_box.currentIndexChanged.connect(self._format_changed)
        self._restore_choices()
        if not self.formats:
            self.status.setText(
                "No export formats are installed yet. Reinstall Quizsmith with `make install`."
            )
            self.export_button.setEnabled(False)
        else:
            self._format_changed()

    def _restore_choices(self) -> None:
        saved = prefs.export_choices()
        index = self.format_box.findData(saved.get("format"))
        if index >= 0:
            self.format_box.blockSignals(True)
            self.format_box.setCurrentIndex(index)
            self.format_box.blockSignals(False)
        if saved.get("items"):
            kind, _, value = saved["items"].partition(":")
            self.selection.select(kind, value)
        folder = Path(saved.get("folder") or Path.home())
        self.path_edit.setText(str(folder / "quiz"))
        if USES_XDG_OPEN and opener_command() is None:
            # Said before the export, not found out after it.
            self.open_check.setChecked(False)
            self.open_check.setEnabled(False)
            self.open_check.setToolTip(
                "No program to open files (xdg-open) was found on this computer; open the "
                "file from your file manager."
            )
        else:
            self.open_check.setChecked(saved.get("open") == "1")

    def _remember_choices(self, path: Path) -> None:
        kind, value = self.selection.choice()
        prefs.set_export_choices(
            {
                "format": str(self.format_box.currentData()),
                "items": f"{kind}:{value}",
                "folder": str(path.parent),
                "open": "1" if self.open_check.isChecked() else "0",
            }
        )

    def extension(self) -> str:
        index = self.format_box.currentIndex()
        return self.formats[index][2] if 0 <= index < len(self.formats) else ""

    def _format_changed(self) -> None:
        text = self.path_edit.text().strip()
        name = str(self.format_box.currentData())
        current = Path(text).expanduser() if text else Path.home() / "quiz"
        self.path_edit.setText(
            str(file_name_for(current, self._format_name, name, self.extension()))
        )
        self._format_name = name

    def _browse(self) -> None:
        # Export itself asks before replacing a file (also for a typed name): ask once.
        name, _ = QFileDialog.getSaveFileName(
            self,
            "Export to",
            self.path_edit.text(),
            options=QFileDialog.Option.DontConfirmOverwrite,
        )
        if name:
            self.path_edit.setText(name)

    def export(self) -> JobWorker | None:
        """Export to the chosen file; an existing file is replaced only after the teacher
        says so (returns None while the question is open)."""
        path_text = self.path_edit.text().strip()
        if not path_text:
            show_error(self, "No destination file is given.", "Choose where to save the export.")
            return None
        path = Path(path_text).expanduser()
        if path.exists():
            self.ask_overwrite(path)
            return None
        return self.start_export(path)

    def ask_overwrite(self, path: Path) -> QMessageBox:
        box = QMessageBox(self)
        box.setIcon(QMessageBox.Icon.Question)
        box.setWindowTitle("Replace the file?")
        box.setText(f"{path.name} already exists in {path.parent}.")
        box.setInformativeText(
            "Replace it with this export? Its current content is lost. Choose Cancel to "
            "pick another name."
        )
        replace = box.addButton("Replace", QMessageBox.ButtonRole.AcceptRole)
        box.addButton(QMessageBox.StandardButton.Cancel)
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)
        self.overwrite_box = box

        def answered(_result: int) -> None:
            self.overwrite_box = None
            if box.clickedButton() is replace:
                self.start_export(path)

        box.finished.connect(answered)
        box.open()
        return box

    def start_export(self, path: Path) -> JobWorker:
        kind, value = self.selection.choice()
        quiz = value if kind == "quiz" else None
        status = value if kind == "status" else None
        name = str(self.format_box.currentData())
        self._remember_choices(path)
        worker = self.runner.start(export_job(self.bank, name, path, quiz, status))
        self.progress.attach(worker, "Exporting")
        self.export_button.setEnabled(False)
        worker.signals.finished.connect(self._exported)
        worker.signals.failed.connect(lambda m, f: show_error(self, m, f, "Export failed"))
        worker.signals.done.connect(lambda: self.export_button.setEnabled(True))
        return worker

    def _exported(self, result: Any) -> None:
        self.last_result = result
        text = f"Wrote {result.count} item(s) to {result.path}."
        if result.skipped:
            text += f" Left out {len(result.skipped)}: " + "; ".join(
                str(s) for s in result.skipped[:5]
            )
        self.status.setText(text)
        if self.open_check.isChecked():
            self.open_file(Path(result.path))

    def open_file(self, path: Path) -> None:
        """Open the export in its usual program; say so when none can."""
        if not USES_XDG_OPEN:
            if not QDesktopServices.openUrl(QUrl.fromLocalFile(str(path))):
                self._cannot_open(path)
            return
        command = opener_command()
        if command is None:
            self._cannot_open(path)
            return
        # xdg-open answers with its exit status (3: no program for the file type), which
        # QDesktopServices threw away: run it and listen.
        process = QProcess(self)

        def finished(code: int, _status: object) -> None:
            if code != 0:
                self._cannot_open(path)

        process.finished.connect(finished)
        process.errorOccurred.connect(lambda _error: self._cannot_open(path))
        self.opener = process
        process.start(command[0], [*command[1:], str(path)])

    def _cannot_open(self, path: Path) -> None:
        note = f"The file is saved, but no program to open {path.suffix or 'it'} files was found."
        self.status.setText(f"{self.status.text()} {note}".strip())
        show_error(
            self,
            note,
            f"Open {path} from your file manager, or install a program for this kind of file "
            "(e.g. LibreOffice for Word files).",
            "Could not open the file",
        )
