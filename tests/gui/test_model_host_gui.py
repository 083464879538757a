"""The desktop app with its models in the model host (as it runs for a teacher): a host
killed during a generation costs that job only; the window's own process never loads a
model library."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from quizsmith.bank.store import ItemBank
from quizsmith.gui import messages
from quizsmith.providers import host_client

from .test_end_to_end import GENERATION_TIMEOUT_MS, generate, paste_passage
from .test_flows import generation_available

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not generation_available(), reason="quizsmith.generation is missing"),
]

PROBE = Path(__file__).with_name("window_process_probe.py")


@pytest.mark.parametrize("sig", [signal.SIGSEGV, signal.SIGKILL])
def test_a_host_killed_during_a_generation_costs_that_job_only(
    model_host: host_client.ModelHost, window: Any, qtbot: Any, bank: ItemBank, sig: int
) -> None:
    paste_passage(window, qtbot, "Photosynthesis")
    worker = generate(window, qtbot, n=3, candidates=1)
    qtbot.waitUntil(lambda: window.generated_kept >= 1, timeout=GENERATION_TIMEOUT_MS)
    pid = model_host.pid
    assert pid is not None
    os.kill(pid, sig)
    with qtbot.waitSignal(worker.signals.done, timeout=120_000):
        pass
    assert worker.outcome == "failed"
    assert window.isVisible()
    assert messages.shown, "no message was shown"
    text = messages.shown[-1].text()
    assert f"The model stopped unexpectedly (signal {int(sig)}" in text, text
    assert "Your items are saved" in text
    passage_id = window.passage_panel_id()
    kept = window.items_of_passage(passage_id)
    assert len(kept) >= 1  # the finished items are in the bank
    assert {i.id for i in kept} <= {i.id for i in bank.get_items([i.id for i in kept])}

    # The next generation starts a fresh host and works.
    for box in list(messages.shown):
        box.close()
    messages.shown.clear()
    worker = generate(window, qtbot, n=len(kept) + 1, candidates=1)
    with qtbot.waitSignal(worker.signals.done, timeout=GENERATION_TIMEOUT_MS):
        pass
    assert worker.outcome == "finished", messages.shown[-1].text() if messages.shown else ""
    assert model_host.pid not in (None, pid)


def test_the_window_process_never_imports_a_model_library(tmp_path: Path) -> None:
    """A generation and a score in a fresh app process (this test process has loaded the
    models in-process for other tests, so the check needs a process of its own)."""
    env = dict(os.environ)
    env["QUIZSMITH_MODEL_HOST"] = "1"
    env["QUIZSMITH_CONFIG_DIR"] = str(tmp_path / "config")
    env["QUIZSMITH_LOG_DIR"] = str(tmp_path / "logs")
    env["QUIZSMITH_PROFILE"] = "light"
    done = subprocess.run(
        [sys.executable, str(PROBE), str(tmp_path / "bank.db")],
        capture_output=True,
        text=True,
        env=env,
        timeout=900,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["generated"] >= 1 and report["scored"], report
    assert report["model_libraries"] == [], report
    assert report["host_libraries"], report  # the models did run: in the host
    # The window holds spaCy's English pipeline for generation's passage analysis (417 MiB
    # measured with it, 288 without); the model libraries stay in the host.
    assert report["rss_mib"] < 550, report
