"""Workers (progress, errors with the fix, cancel) and starting the app."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Generator
from pathlib import Path
from typing import Any

import pytest

from quizsmith.errors import ProviderError
from quizsmith.gui import messages
from quizsmith.gui.app import NO_DISPLAY_EXIT, display_problem
from quizsmith.gui.worker import JobRunner, ProgressPanel
from quizsmith.jobs import CancelToken, Progress


def failing_job(token: CancelToken) -> Generator[Progress, None, None]:
    yield Progress("Loading the model", 0, 2)
    raise ProviderError(
        "The model file smol.gguf could not be loaded.", "Run `quizsmith models --prepare`."
    )


def crashing_job(token: CancelToken) -> Generator[Progress, None, None]:
    yield Progress("Working", 0, 1)
    raise ZeroDivisionError("boom")


def endless_job(token: CancelToken) -> Generator[Progress, None, int]:
    n = 0
    while True:
        token.raise_if_cancelled()
        time.sleep(0.02)
        n += 1
        yield Progress(f"step {n}", n, 1000)


def test_worker_progress_and_result(qtbot: Any) -> None:
    runner = JobRunner()

    def job(token: CancelToken) -> Generator[Progress, None, str]:
        for i in range(3):
            yield Progress("step", i + 1, 3)
        return "done"

    seen: list[Progress] = []
    worker = runner.start(job)
    worker.signals.progress.connect(seen.append)
    with qtbot.waitSignal(worker.signals.finished, timeout=60_000) as blocker:
        pass
    assert blocker.args == ["done"]
    qtbot.waitUntil(lambda: len(seen) == 3, timeout=60_000)
    assert [e.done for e in seen] == [1, 2, 3]
    qtbot.waitUntil(lambda: not runner.running, timeout=60_000)


def test_worker_error_is_shown_with_its_fix(window: Any, qtbot: Any) -> None:
    worker = window.runner.start(failing_job)
    worker.signals.failed.connect(window._job_failed)
    window.progress.attach(worker, "Loading")
    with qtbot.waitSignal(worker.signals.failed, timeout=60_000):
        pass
    qtbot.waitUntil(lambda: bool(messages.shown), timeout=60_000)
    text = messages.shown[-1].text()
    assert "could not be loaded" in text
    assert "quizsmith models --prepare" in text
    assert "Traceback" not in text
    qtbot.waitUntil(lambda: not window.progress.isVisible(), timeout=60_000)


def test_unexpected_error_goes_to_a_crash_log(window: Any, qtbot: Any, tmp_path: Path) -> None:
    worker = window.runner.start(crashing_job)
    worker.signals.failed.connect(window._job_failed)
    with qtbot.waitSignal(worker.signals.failed, timeout=60_000):
        pass
    qtbot.waitUntil(lambda: bool(messages.shown), timeout=60_000)
    text = messages.shown[-1].text()
    assert "ZeroDivisionError" in text and "Traceback" not in text
    logs = list((tmp_path / "logs").glob("crash-*.log"))
    assert logs and "boom" in logs[0].read_text()


def test_exception_hook_shows_a_message_not_a_traceback(
    qtbot: Any, tmp_path: Path, capsys: Any
) -> None:
    try:
        raise KeyError("slot failed")
    except KeyError as exc:
        messages.exception_hook(KeyError, exc, exc.__traceback__)
    text = messages.shown[-1].text()
    assert "KeyError" in text and "crash-" in text
    assert "Traceback" not in capsys.readouterr().err


def test_cancel_stops_a_running_job(qtbot: Any) -> None:
    runner = JobRunner()
    panel = ProgressPanel()
    qtbot.addWidget(panel)
    worker = runner.start(endless_job)
    panel.attach(worker, "Endless")
    qtbot.waitUntil(lambda: panel.bar.maximum() == 1000, timeout=60_000)
    assert panel.isVisible() or not panel.isHidden()
    with qtbot.waitSignal(worker.signals.cancelled, timeout=60_000):
        panel.cancel_button.click()
    assert worker.outcome == "cancelled"
    qtbot.waitUntil(lambda: panel.worker is None, timeout=60_000)
    assert runner.wait(5000)


def test_display_problem_rules() -> None:
    assert display_problem({}, "linux")
    assert display_problem({"DISPLAY": ":0"}, "linux") == ""
    assert display_problem({"WAYLAND_DISPLAY": "wayland-0"}, "linux") == ""
    assert display_problem({"QT_QPA_PLATFORM": "offscreen"}, "linux") == ""
    assert display_problem({}, "win32") == ""
    assert display_problem({}, "darwin") == ""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="display rule is Linux-only")
@pytest.mark.parametrize(
    "command",
    [
        [sys.executable, "-m", "quizsmith.gui.app"],
        [sys.executable, "-m", "quizsmith.cli", "gui"],
    ],
    ids=["quizsmith-gui", "quizsmith gui"],
)
def test_no_display_gives_a_clear_message_and_non_zero(command: list[str], tmp_path: Path) -> None:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")
    }
    out = subprocess.run(command, env=env, capture_output=True, text=True, timeout=60)
    if "invalid choice: 'gui'" in out.stderr:
        pytest.skip("the `gui` subcommand is not wired into quizsmith.cli yet")
    assert out.returncode == NO_DISPLAY_EXIT
    assert "No display is available" in out.stderr
    assert "quizsmith demo" in out.stderr
    assert "Traceback" not in out.stderr


def test_app_run_opens_the_window_on_a_bank(
    qtbot: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    from quizsmith.gui import app, prefs
    from quizsmith.gui.main_window import MainWindow

    monkeypatch.setenv("QUIZSMITH_DATA_DIR", str(tmp_path / "data"))
    shown: list[str] = []
    # Windows that earlier tests left open are not the one app.run opens.
    before = set(map(id, QApplication.topLevelWidgets()))

    def close_soon() -> None:
        for w in QApplication.topLevelWidgets():
            if isinstance(w, MainWindow) and id(w) not in before:
                shown.append(w.windowTitle())
                w.close()
        QApplication.quit()

    QTimer.singleShot(300, close_soon)
    bank_file = tmp_path / "mine.sqlite"
    old_hook = sys.excepthook
    try:
        assert app.run(bank_file) == 0
    finally:
        sys.excepthook = old_hook
    assert shown and "mine.sqlite" in shown[0]
    assert bank_file.exists()
    assert prefs.bank_path() == bank_file


def test_the_app_reports_ready_without_loading_a_model(tmp_path: Path) -> None:
    """The hook bench/gui.py times the start with; models load when first used, not at
    start."""
    from quizsmith.gui.app import READY_PREFIX, REPORT_READY_ENV

    env = {
        **os.environ,
        "QT_QPA_PLATFORM": "offscreen",
        REPORT_READY_ENV: "1",
        "QUIZSMITH_CONFIG_DIR": str(tmp_path / "config"),
        "QUIZSMITH_DATA_DIR": str(tmp_path / "data"),
        "QUIZSMITH_LOG_DIR": str(tmp_path / "logs"),
    }
    started = time.monotonic()
    proc = subprocess.Popen(
        [sys.executable, "-m", "quizsmith.cli", "gui", str(tmp_path / "bank.sqlite")],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline().strip()
    finally:
        proc.terminate()
        proc.wait(60)
    prefix, stamp, models = line.split(" ")
    assert prefix == READY_PREFIX
    assert started < float(stamp) < time.monotonic()
    assert models == "models=none"
    assert (tmp_path / "bank.sqlite").exists()
