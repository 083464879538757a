"""The export dialog: the bank's items (a quiz, or every item with a status) to a file in
any installed export format, written in a worker; failures show as messages with the fix.
"""

from __future__ import annotations

from collections.abc import Generator
from pathlib import Path
from typing import Any

from PySide6.QtCore import QUrl
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
from quizsmith.gui import jobs
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
        self.open_check.setChecked(True)
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
        if not self.formats:
            self.status.setText(
                "No export formats are installed yet. Reinstall Quizsmith with `make install`."
            )
            self.export_button.setEnabled(False)
        else:
            self._format_changed()

    def extension(self) -> str:
        index = self.format_box.currentIndex()
        return self.formats[index][2] if 0 <= index < len(self.formats) else ""

    def _format_changed(self) -> None:
        text = self.path_edit.text().strip()
        ext = self.extension()
        if not text:
            self.path_edit.setText(str(Path.home() / f"quiz{ext}"))
        elif ext:
            self.path_edit.setText(str(Path(text).with_suffix(ext)))

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
        if self.open_check.isChecked() and not QDesktopServices.openUrl(
            QUrl.fromLocalFile(str(result.path))
        ):
            note = (
                f"The file is saved, but no program to open {Path(result.path).suffix or 'it'}"
                " files was found here."
            )
            self.status.setText(f"{text} {note}")
            show_error(
                self,
                note,
                f"Open {result.path} from your file manager, or install a program for this "
                "kind of file (e.g. LibreOffice for Word files).",
                "Could not open the file",
            )
