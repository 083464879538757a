"""`quizsmith generate` whose model host dies: a clear message and status 2 (not 139, a
crash), with the items finished before it written."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from quizsmith import paths

pytestmark = pytest.mark.slow


def host_children(pid: int) -> list[int]:
    """The model host among a process's children (by its command line)."""
    found = []
    for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split():
        cmdline = Path(f"/proc/{child}/cmdline").read_bytes().replace(b"\0", b" ")
        if b"quizsmith.providers.host_server" in cmdline:
            found.append(int(child))
    return found


def test_generate_exits_2_with_the_finished_items_when_the_host_segfaults(
    tmp_path: Path,
) -> None:
    out = tmp_path / "items.jsonl"
    passage = paths.resources_dir() / "sample_passage.txt"
    env = dict(os.environ, QUIZSMITH_MODEL_HOST="1")
    cli = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "quizsmith.cli",
            "generate",
            str(passage),
            "-n",
            "4",
            "--types",
            "mcq",
            "--candidates",
            "1",
            "--out",
            str(out),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        deadline = time.monotonic() + 900
        while time.monotonic() < deadline and cli.poll() is None:
            if out.exists() and out.read_text(encoding="utf-8").strip():
                break
            time.sleep(0.2)
        assert cli.poll() is None, "the run ended before its first item was written"
        hosts = host_children(cli.pid)
        assert len(hosts) == 1
        os.kill(hosts[0], signal.SIGSEGV)
        stdout, stderr = cli.communicate(timeout=120)
    finally:
        if cli.poll() is None:
            cli.kill()
    assert cli.returncode == 2, (stdout, stderr)
    assert "error: The model stopped unexpectedly (signal 11, SIGSEGV)" in stderr
    assert "finished items were kept" in stderr
    written = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert 1 <= len(written) < 4 and all(item["question"] for item in written)
