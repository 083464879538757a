"""A llama.cpp library that cannot run on this computer (built for another CPU) must reach
the teacher as a plain message with the fix, not as a dead window (issue 25). The child
process of the check really crashes here (SIGILL), as such a library does."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from quizsmith.domain import Item, Option
from quizsmith.gui import messages
from quizsmith.operations.jobs import score_draft_job
from quizsmith.providers import llamacpp_models, native_check


@pytest.mark.slow
def test_a_library_that_cannot_run_here_is_explained_to_the_teacher(
    window: Any, qtbot: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("llama_cpp")
    monkeypatch.setenv("QUIZSMITH_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(native_check, "_passed", False)
    monkeypatch.setattr(llamacpp_models, "_models", {})  # nothing loaded yet in this process
    crash = "import os, signal; os.kill(os.getpid(), signal.SIGILL)"
    monkeypatch.setattr(native_check, "child_command", lambda model: [sys.executable, "-c", crash])
    item = Item(
        type="mcq",
        stem="Which sea does the Nile flow into?",
        key="the Mediterranean Sea",
        options=[Option("the Mediterranean Sea", True), Option("the Red Sea", False)],
    )
    worker = window.runner.start(score_draft_job(item, ["kda"], window.settings, None))
    worker.signals.failed.connect(window._job_failed)
    with qtbot.waitSignal(worker.signals.failed, timeout=120_000):
        pass
    qtbot.waitUntil(lambda: bool(messages.shown), timeout=60_000)
    text = messages.shown[-1].text()
    assert "cannot run on this computer" in text
    assert "make clean && make install" in text
    assert "Traceback" not in text
    assert window.isVisible()
