"""Helpers shared by the benchmarks: machine description and result files."""

from __future__ import annotations

import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).parent / "results"


def machine() -> dict[str, Any]:
    cpu = platform.processor() or ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem_gib = None
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal"):
                mem_gib = round(int(line.split()[1]) / 2**20, 1)
    except OSError:
        pass
    return {
        "cpu": cpu,
        "logical_cpus": os.cpu_count(),
        "memory_gib": mem_gib,
        "os": platform.platform(),
        "python": sys.version.split()[0],
        "date": time.strftime("%Y-%m-%d"),
    }


def median(values: list[float]) -> float:
    return float(statistics.median(values))


def git_revision() -> str:
    try:
        return subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=True
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def write_results(name: str, data: dict[str, Any], markdown: str) -> None:
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / f"{name}.json").write_text(json.dumps(data, indent=2) + "\n")
    (RESULTS / f"{name}.md").write_text(markdown)


def per_item_results(path: Path, key: str) -> dict[str, dict[str, Any]]:
    """The rows of a per-item results file (JSON lines, which a re-run extends), by `key`."""
    if not path.exists():
        return {}
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines()
    if lines and not text.endswith("\n"):
        # Shards append to one file in parallel: a line another shard is still writing is
        # not a result yet (reading it crashed most of 16 shards on a lent machine).
        lines.pop()
    rows = [json.loads(line) for line in lines if line.strip()]
    return {row[key]: row for row in rows}
