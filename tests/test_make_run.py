"""`make run`: the desktop app, and the headless demo when `quizsmith gui` finds no display.

The Makefile recipe is what is under test, so `quizsmith` is a stand-in script that records
its arguments and exits as told (the real `quizsmith gui` exit status without a display is
tested in tests/gui/test_worker_and_app.py; the real demo takes minutes of model time).
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
from pathlib import Path

import pytest

from quizsmith.paths import PROJECT_ROOT

pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")

STAND_IN = """#!/bin/sh
echo "$@" >> "$CALLS"
if [ "$1" = gui ]; then exit "$GUI_EXIT"; fi
exit 0
"""


def make_run(tmp_path: Path, gui_exit: int) -> tuple[int, list[str]]:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    script = bin_dir / "quizsmith"
    script.write_text(STAND_IN)
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    # A stamp newer than pyproject.toml: `install` has nothing to do.
    stamp = tmp_path / "installed"
    stamp.touch()
    calls = tmp_path / "calls"
    env = {**os.environ, "CALLS": str(calls), "GUI_EXIT": str(gui_exit)}
    out = subprocess.run(
        ["make", "--no-print-directory", "-s", "run", f"BIN={bin_dir}", f"STAMP={stamp}"],
        cwd=PROJECT_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    lines = calls.read_text().splitlines() if calls.exists() else []
    return out.returncode, lines


def test_make_run_starts_the_desktop_app(tmp_path: Path) -> None:
    rc, calls = make_run(tmp_path, 0)
    assert rc == 0
    assert calls == ["gui"]


def test_make_run_falls_back_to_the_demo_without_a_display(tmp_path: Path) -> None:
    from quizsmith.gui.app import NO_DISPLAY_EXIT

    rc, calls = make_run(tmp_path, NO_DISPLAY_EXIT)
    assert rc == 0
    assert calls == ["gui", "demo"]


def test_make_run_passes_on_other_failures(tmp_path: Path) -> None:
    rc, calls = make_run(tmp_path, 2)
    assert rc != 0
    assert calls == ["gui"]  # a bank that cannot be opened is not a reason to run the demo
