"""Dialogs: handout check (EXAM), export, settings. Each runs its slow part in a worker
and shows failures as messages with the fix."""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Generator
from pathlib import Path
from typing import Any

from PySide6.QtCore import QUrl, Signal
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QMessageBox,
    QPlainTextEdit,
    QPushButton,
    QTabWidget,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from quizsmith import settings as settings_mod
from quizsmith.bank.store import ItemBank
from quizsmith.domain import STATUSES, Item
from quizsmith.errors import QuizsmithError
from quizsmith.gui import jobs, prefs
from quizsmith.gui.evidence import esc
from quizsmith.gui.messages import show_error, show_exception
from quizsmith.gui.worker import JobRunner, JobWorker, ProgressPanel
from quizsmith.jobs import CancelToken, Progress
from quizsmith.metrics.display import Threshold
from quizsmith.settings import Endpoint, Settings


class SelectionBox(QWidget):
    """Which bank items a dialog works on: a quiz, or every item with a status."""

    def __init__(self, bank: ItemBank, default_status: str = "accepted") -> None:
        super().__init__()
        self.bank = bank
        self.combo = QComboBox()
        for status in ("accepted", "all", *[s for s in STATUSES if s != "accepted"]):
            label = "all items" if status == "all" else f"{status} items"
            self.combo.addItem(label, ("status", status))
        for quiz in bank.quizzes():
            self.combo.addItem(f"quiz: {quiz.name}", ("quiz", quiz.name))
        self.combo.setCurrentIndex(max(0, self.combo.findData(("status", default_status))))
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.combo)

    def choice(self) -> tuple[str, str]:
        kind, value = self.combo.currentData()
        return str(kind), str(value)

    def select(self, kind: str, value: str) -> None:
        self.combo.setCurrentIndex(max(0, self.combo.findData((kind, value))))

    def items(self) -> list[Item]:
        kind, value = self.choice()
        if kind == "quiz":
            quiz = next(q for q in self.bank.quizzes() if q.name == value)
            return self.bank.get_items(quiz.item_ids, with_passages=True)
        return self.bank.search(
            status=None if value == "all" else value, limit=None, with_passages=True
        )


# --- handout check (EXAM) -------------------------------------------------------------------


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


# --- export ---------------------------------------------------------------------------------


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


# --- settings -------------------------------------------------------------------------------

#: Teacher-facing names of the model roles (settings.toml keeps the short ones).
ROLE_LABELS = {
    "generator": "Question writer",
    "qa": "Question answerer (NACo, EXAM)",
    "embeddings": "Similarity model (embeddings)",
    "paraphraser": "Paraphraser (MRE)",
    "solvers": "KDA students (several)",
    "judges": "MIRROR reviewers (several)",
}
#: The fix the core gives for an unusable keyring names a developer setting; the teacher
#: gets this instead.
NO_KEYRING_TEXT = (
    "This computer has no unlocked password store (keyring) that Quizsmith can keep the key "
    "in. Unlock or install one (GNOME Keyring or KWallet on Linux, Keychain on macOS, "
    "Credential Locker on Windows) and press Store key again. Until then, the key can be "
    "given in the environment variable {env} when Quizsmith starts."
)


def connection_test_job(endpoint: Endpoint) -> jobs.JobFactory:
    # One quick try: the teacher is waiting for a yes or no, not for retries with back-off.
    ep = dataclasses.replace(endpoint, max_retries=0, timeout_s=min(endpoint.timeout_s, 15.0))

    def job(token: CancelToken) -> Generator[Progress, None, str]:
        from quizsmith.providers import Message, registry

        yield Progress(f"Connecting to {ep.base_url}", 0, 1)
        provider = registry.get(ep.provider)(ep)  # type: ignore[call-arg]
        try:
            out = provider.chat([Message("user", "Reply with OK.")], max_tokens=4)
        finally:
            provider.close()
        return f"Connected: {ep.model or ep.provider} replied {out.text.strip()[:40]!r}."

    return job


class SettingsDialog(QDialog):
    #: (the saved Settings, the live metrics)
    saved = Signal(object, list)

    def __init__(
        self, settings: Settings, runner: JobRunner, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle("Settings")
        self.resize(680, 560)
        self.settings = copy.deepcopy(settings)
        self.runner = runner
        tabs = QTabWidget()
        tabs.addTab(self._models_tab(), "Models")
        tabs.addTab(self._endpoints_tab(), "Endpoints")
        tabs.addTab(self._scoring_tab(), "Scoring")
        tabs.addTab(self._bank_tab(), "Bank")
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.accepted.connect(self.save)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(tabs)
        layout.addWidget(buttons)

    # models
    def _models_tab(self) -> QWidget:
        page = QWidget()
        form = QFormLayout(page)
        choices = self._model_choices()
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
        return page

    def _model_choices(self) -> list[str]:
        try:
            from quizsmith.providers import catalog

            ids = [m.id for m in catalog.all_models(self.settings.model_dirs)]
        except QuizsmithError:
            ids = []
        return ids + [f"endpoint:{name}" for name in self.settings.endpoints]

    # endpoints
    def _endpoints_tab(self) -> QWidget:
        from quizsmith.providers.registry import endpoint_kinds

        page = QWidget()
        self.endpoint_list = QListWidget()
        self.endpoint_list.addItems(list(self.settings.endpoints))
        self.ep_name = QLineEdit()
        self.ep_provider = QComboBox()
        self.ep_provider.addItems(endpoint_kinds())
        self.ep_url = QLineEdit()
        self.ep_model = QLineEdit()
        self.ep_key_name = QLineEdit()
        self.ep_key = QLineEdit()
        self.ep_key.setEchoMode(QLineEdit.EchoMode.Password)
        self.ep_key.setPlaceholderText("Paste an API key to store it in the system keyring")
        self.key_state = QLabel("")
        self.store_key_button = QPushButton("Store key")
        self.apply_ep_button = QPushButton("Add / update endpoint")
        self.test_button = QPushButton("Test connection")
        self.test_result = QLabel("")
        self.test_result.setWordWrap(True)
        self.test_progress = ProgressPanel()
        form = QFormLayout()
        form.addRow("Name", self.ep_name)
        form.addRow("Provider", self.ep_provider)
        form.addRow("Base URL", self.ep_url)
        form.addRow("Model", self.ep_model)
        form.addRow("Key name", self.ep_key_name)
        key_row = QHBoxLayout()
        key_row.addWidget(self.ep_key, 1)
        key_row.addWidget(self.store_key_button)
        form.addRow("API key", key_row)
        form.addRow("", self.key_state)
        buttons = QHBoxLayout()
        buttons.addWidget(self.apply_ep_button)
        buttons.addWidget(self.test_button)
        buttons.addStretch(1)
        right = QVBoxLayout()
        right.addLayout(form)
        right.addLayout(buttons)
        right.addWidget(self.test_progress)
        right.addWidget(self.test_result)
        right.addStretch(1)
        layout = QHBoxLayout(page)
        layout.addWidget(self.endpoint_list, 1)
        layout.addLayout(right, 3)
        self.endpoint_list.currentTextChanged.connect(self._endpoint_chosen)
        self.apply_ep_button.clicked.connect(self.apply_endpoint)
        self.store_key_button.clicked.connect(self.store_key)
        self.test_button.clicked.connect(self.test_connection)
        return page

    def _endpoint_chosen(self, name: str) -> None:
        ep = self.settings.endpoints.get(name)
        if ep is None:
            return
        self.ep_name.setText(ep.name)
        self.ep_provider.setCurrentText(ep.provider)
        self.ep_url.setText(ep.base_url)
        self.ep_model.setText(ep.model)
        self.ep_key_name.setText(ep.key_name)
        self._show_key_state()

    def key_name(self) -> str:
        return self.ep_key_name.text().strip() or self.ep_name.text().strip()

    def _show_key_state(self) -> None:
        from quizsmith import secrets

        name = self.key_name()
        stored = bool(name) and secrets.has_stored_key(name)
        self.key_state.setText("A key is stored in the keyring." if stored else "No key stored.")

    def endpoint(self) -> Endpoint | None:
        name = self.ep_name.text().strip()
        if not name:
            show_error(self, "The endpoint needs a name.", "Type a short name, e.g. openai.")
            return None
        return Endpoint(
            name=name,
            provider=self.ep_provider.currentText(),
            base_url=self.ep_url.text().strip() or Endpoint(name).base_url,
            model=self.ep_model.text().strip(),
            key_name=self.ep_key_name.text().strip(),
        )

    def apply_endpoint(self) -> None:
        ep = self.endpoint()
        if ep is None:
            return
        if ep.name not in self.settings.endpoints:
            self.endpoint_list.addItem(ep.name)
        self.settings.endpoints[ep.name] = ep

    def store_key(self) -> None:
        from quizsmith import secrets

        key = self.ep_key.text()
        # Cleared at once: the key is never shown again, nor kept in the widget.
        self.ep_key.clear()
        name = self.key_name()
        if not name:
            show_error(self, "The key needs a name.", "Fill in the endpoint's name first.")
            return
        try:
            secrets.set_api_key(name, key)
        except QuizsmithError as exc:
            if "keyring" in exc.fix.lower():
                show_error(
                    self,
                    "The API key could not be stored.",
                    NO_KEYRING_TEXT.format(env=secrets.env_var_for(name)),
                )
            else:
                show_exception(self, exc)
            return
        if not self.ep_key_name.text().strip():
            self.ep_key_name.setText(name)
        self._show_key_state()

    def test_connection(self) -> JobWorker | None:
        ep = self.endpoint()
        if ep is None:
            return None
        self.test_result.setText("Testing…")
        worker = self.runner.start(connection_test_job(ep))
        self.test_progress.attach(worker, "Testing the connection")
        worker.signals.finished.connect(self.test_result.setText)
        worker.signals.failed.connect(self._test_failed)
        return worker

    def _test_failed(self, message: str, fix: str) -> None:
        if message.startswith("No API key"):
            # Offer to store it here rather than send the teacher to the command line.
            self.test_result.setText(
                "Failed: no API key is stored for this endpoint. Paste the key in the "
                "API key field above and press Store key, then test again."
            )
            self.ep_key.setFocus()
            return
        self.test_result.setText(f"Failed: {message} {fix}".strip())

    # scoring
    def _scoring_tab(self) -> QWidget:
        from quizsmith.gui.scores import metric_options
        from quizsmith.metrics import registry

        page = QWidget()
        layout = QVBoxLayout(page)
        live_box = QGroupBox("Re-score while editing")
        live_layout = QHBoxLayout(live_box)
        live = set(prefs.live_metrics())
        self.live_checks: dict[str, QCheckBox] = {}
        for name in registry.names():
            check = QCheckBox(registry.get(name).title or name)
            check.setChecked(name in live)
            self.live_checks[name] = check
            live_layout.addWidget(check)
        layout.addWidget(live_box)
        thresholds = QGroupBox("Flag thresholds")
        form = QFormLayout(thresholds)
        self.threshold_spins: dict[tuple[str, str], QDoubleSpinBox] = {}
        self.threshold_kinds: dict[tuple[str, str], Threshold] = {}
        # Each metric declares its threshold fields (`Metric.thresholds`), in shown order.
        for metric, threshold in registry.threshold_fields():
            opts = metric_options(metric, self.settings)
            spin = QDoubleSpinBox()
            spin.setRange(0.0, 5.0)
            spin.setSingleStep(0.05)
            spin.setDecimals(2)
            spin.setSpecialValueText("off")  # 0 shows as "off" for optional thresholds
            value = opts.get(threshold.key)
            spin.setValue(float(value) if isinstance(value, int | float) else 0.0)
            self.threshold_spins[(metric, threshold.key)] = spin
            self.threshold_kinds[(metric, threshold.key)] = threshold
            caption = QLabel(threshold.label)
            caption.setWordWrap(True)
            caption.setToolTip(threshold.tip)
            spin.setToolTip(threshold.tip)
            form.addRow(caption, spin)
        layout.addWidget(thresholds)
        layout.addStretch(1)
        return page

    # bank
    def _bank_tab(self) -> QWidget:
        page = QWidget()
        form = QFormLayout(page)
        self.bank_edit = QLineEdit(str(prefs.bank_path()))
        browse = QPushButton("Browse…")
        row = QHBoxLayout()
        row.addWidget(self.bank_edit, 1)
        row.addWidget(browse)
        form.addRow("Bank file", row)
        form.addRow(QLabel("A new bank location is used the next time Quizsmith starts."))
        browse.clicked.connect(self._browse_bank)
        return page

    def _browse_bank(self) -> None:
        name, _ = QFileDialog.getSaveFileName(
            self,
            "Bank file",
            self.bank_edit.text(),
            options=QFileDialog.Option.DontConfirmOverwrite,
        )
        if name:
            self.bank_edit.setText(name)

    def collect(self) -> tuple[Settings, list[str]]:
        from quizsmith.metrics import registry

        s = self.settings
        for role, box in self.role_boxes.items():
            s.roles[role] = box.currentText().strip()
        for role, edit in self.list_edits.items():
            s.roles[role] = [v.strip() for v in edit.text().split(",") if v.strip()]
        s.model_dirs = [d.strip() for d in self.dirs_edit.text().split(",") if d.strip()]
        for (metric, key), spin in self.threshold_spins.items():
            default = registry.get(metric).defaults.get(key)
            value: float | None = spin.value()
            threshold = self.threshold_kinds[(metric, key)]
            if threshold.optional and value == 0.0:
                value = None
            if threshold.integer and value is not None:
                value = round(value)
            table = dict(s.metrics.get(metric) or {})
            if value == default:
                table.pop(key, None)
            elif value is not None:
                table[key] = value
            if table:
                s.metrics[metric] = table
            else:
                s.metrics.pop(metric, None)
        live = [name for name, check in self.live_checks.items() if check.isChecked()]
        return s, live

    def save(self) -> None:
        settings, live = self.collect()
        try:
            settings_mod.save(settings)
        except (QuizsmithError, OSError) as exc:
            show_exception(self, exc)
            return
        prefs.set_live_metrics(live)
        bank_text = self.bank_edit.text().strip()
        if bank_text:
            prefs.set_bank_path(Path(bank_text).expanduser())
        self.saved.emit(settings, live)
        self.accept()
