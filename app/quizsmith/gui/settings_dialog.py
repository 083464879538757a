"""The settings dialog, four tabs: Models (the model profile, the model of each role, model
folders), Endpoints (API endpoints, their keys, a connection test run in a worker), Scoring
(the metrics re-run while editing, the flag thresholds) and Bank (its location). Failures
show as messages with the fix.
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Generator
from pathlib import Path

from PySide6.QtCore import Signal
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
    QPushButton,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from quizsmith import settings as settings_mod
from quizsmith.errors import QuizsmithError
from quizsmith.gui import jobs, prefs
from quizsmith.gui.messages import show_error, show_exception
from quizsmith.gui.settings_models import ROLE_LABELS, ModelsTab

__all__ = ["NO_KEYRING_TEXT", "ROLE_LABELS", "SettingsDialog", "connection_test_job"]
from quizsmith.gui.worker import JobRunner, JobWorker, ProgressPanel
from quizsmith.jobs import CancelToken, Progress
from quizsmith.metrics.display import Threshold
from quizsmith.settings import Endpoint, Settings

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
        # The Models tab (gui/settings_models.py); its widgets stay reachable from here.
        self.models_tab = ModelsTab(self.settings)
        self.role_boxes = self.models_tab.role_boxes
        self.list_edits = self.models_tab.list_edits
        self.profile_box = self.models_tab.profile_box
        tabs.addTab(self.models_tab, "Models")
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
            # The metric's own range for this option (the settings file is checked against
            # it when read, so the dialog must not offer a value that would be refused).
            low, high = registry.get(metric).option_ranges.get(threshold.key, (0.0, 5.0))
            spin.setRange(float(low), float(high))
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
        self.models_tab.collect_into(s)
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
