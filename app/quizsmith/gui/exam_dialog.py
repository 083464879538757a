"""The handout check (EXAM): which bank questions a Q/A system answers from a pasted or
opened text alone. The check runs in a worker; failures show as messages with the fix.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from quizsmith.bank.store import ItemBank
from quizsmith.errors import QuizsmithError
from quizsmith.gui import jobs
from quizsmith.gui.evidence import esc
from quizsmith.gui.messages import show_error, show_exception
from quizsmith.gui.selection_box import SelectionBox
from quizsmith.gui.worker import JobRunner, JobWorker, ProgressPanel
from quizsmith.settings import Settings


class ExamDialog(QDialog):
    """Grade a handout or summary by which bank questions a Q/A system answers from it alone
    (EXAM), with n-EXAM against the questions' own passages and the questions it fails."""

    def __init__(
        self, bank: ItemBank, settings: Settings, runner: JobRunner, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle("Check a handout (EXAM)")
        self.resize(760, 640)
        self.bank, self.settings, self.runner = bank, settings, runner
        self.text_edit = QPlainTextEdit()
        self.text_edit.setPlaceholderText("Paste the handout, summary or article to check…")
        self.open_button = QPushButton("Open file…")
        self.selection = SelectionBox(bank)
        self.check_button = QPushButton("Check")
        self.progress = ProgressPanel()
        self.result_view = QTextBrowser()
        self.report: Any = None
        top = QHBoxLayout()
        top.addWidget(QLabel("Questions:"))
        top.addWidget(self.selection)
        top.addStretch(1)
        top.addWidget(self.open_button)
        top.addWidget(self.check_button)
        layout = QVBoxLayout(self)
        layout.addWidget(self.text_edit, 2)
        layout.addLayout(top)
        layout.addWidget(self.progress)
        layout.addWidget(self.result_view, 2)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        self.open_button.clicked.connect(self._open_file)
        self.check_button.clicked.connect(self.check)

    def _open_file(self) -> None:
        name, _ = QFileDialog.getOpenFileName(
            self, "Open a handout", "", "Texts (*.txt *.md *.docx *.pdf);;All files (*)"
        )
        if name:
            worker = self.runner.start(jobs.load_passage_job(Path(name)))
            self.progress.attach(worker, "Reading the file")
            worker.signals.finished.connect(lambda p: self.text_edit.setPlainText(p.text))
            worker.signals.failed.connect(lambda m, f: show_error(self, m, f))

    def check(self) -> JobWorker | None:
        text = self.text_edit.toPlainText()
        if not text.strip():
            show_error(self, "There is no text to check.", "Paste or open the handout first.")
            return None
        try:
            items = self.selection.items()
        except QuizsmithError as exc:
            show_exception(self, exc)
            return None
        if not any(i.type in ("mcq", "tf") and len(i.options) >= 2 for i in items):
            show_error(
                self,
                "EXAM needs multiple-choice or true/false questions; this selection has none.",
                "Choose a quiz or status with multiple-choice items.",
            )
            return None
        self.result_view.setHtml(f"<p>Checking against {len(items)} question(s)…</p>")
        worker = self.runner.start(jobs.exam_check_job(text, items, self.settings))
        self.progress.attach(worker, "Checking the handout")
        self.check_button.setEnabled(False)
        worker.signals.finished.connect(self._show_report)
        worker.signals.failed.connect(self._failed)
        worker.signals.cancelled.connect(lambda: self.result_view.setHtml("<p>Cancelled.</p>"))
        worker.signals.done.connect(lambda: self.check_button.setEnabled(True))
        return worker

    def _failed(self, message: str, fix: str) -> None:
        self.result_view.setHtml(f"<p>{esc(message)}</p><p>{esc(fix)}</p>")
        show_error(self, message, fix)

    def _show_report(self, outcome: Any) -> None:
        report, n_exam, gold = outcome
        self.report = report
        parts = [
            f"<h3>EXAM {report.exam:.2f}</h3>",
            f"<p>The text lets the Q/A system answer {report.n_correct} of {report.n} "
            "question(s).</p>",
            "<p>n-EXAM against the questions' own passages: "
            + ("undefined (the passages answer none)" if n_exam is None else f"{n_exam:.2f}")
            + f" (the passages score EXAM {gold:.2f}).</p>",
        ]
        if report.failed:
            parts.append("<h4>Questions the text does not answer</h4><ul>")
            for f in report.failed:
                answered = f.get("answered") or "(abstained)"
                parts.append(
                    f"<li>{esc(f['question'])}<br><small>key: {esc(f['key'])}; answered: "
                    f"{esc(answered)}; {esc(f.get('reason', ''))}</small></li>"
                )
            parts.append("</ul>")
        if report.not_applicable:
            parts.append(f"<p>{len(report.not_applicable)} free-text item(s) were left out.</p>")
        self.result_view.setHtml("".join(parts))
