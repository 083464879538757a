"""Helpers shared by the benchmarks: machine description, result files and their sections of
docs/benchmarks.md.

A benchmark's latest results are one file, bench/results/<benchmark>.json, overwritten a
section at a time (a benchmark with modes, such as bench/metrics.py's live set, keeps one
section per mode): {section: data}. Each section's table replaces its own part of
docs/benchmarks.md (between `<!-- bench:SECTION -->` markers), so the page always shows what
was last measured, and git history keeps what came before.
"""

from __future__ import annotations

import json
import os
import platform
import statistics
import sys
import time
from pathlib import Path
from typing import Any

# The app's own provenance stamp, so that bench results and shipped estimators name a revision
# the same way.
from quizsmith.evaluation.train_estimator import git_revision as git_revision

RESULTS = Path(__file__).parent / "results"
DOC = Path(__file__).resolve().parents[1] / "docs" / "benchmarks.md"
#: Where sections no marker holds yet go: after the last section, before the history.
_END = "<!-- /bench sections -->"


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


def write_results(
    name: str, data: dict[str, Any], markdown: str, section: str | None = None
) -> None:
    """`data` as `section` (default: the benchmark's own name) of bench/results/NAME.json, and
    `markdown` as that section of docs/benchmarks.md."""
    section = section or name
    RESULTS.mkdir(exist_ok=True)
    path = RESULTS / f"{name}.json"
    sections = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    sections[section] = data
    path.write_text(json.dumps(sections, indent=2) + "\n", encoding="utf-8")
    write_doc_section(section, markdown)


def write_doc_section(section: str, markdown: str, doc: Path = DOC) -> None:
    """Replace `section`'s part of `doc` with `markdown`, its heading at level 2."""
    lines = markdown.strip().splitlines()
    if lines and lines[0].startswith("#"):
        lines[0] = "## " + lines[0].lstrip("#").strip()  # one heading level for all
    start, end = f"<!-- bench:{section} -->", f"<!-- /bench:{section} -->"
    block = "\n".join([start, *lines, end])
    text = doc.read_text(encoding="utf-8")
    if start in text and end in text:
        before, rest = text.split(start, 1)
        text = before + block + rest.split(end, 1)[1]
    elif _END in text:
        text = text.replace(_END, block + "\n\n" + _END, 1)
    else:
        text = text.rstrip("\n") + "\n\n" + block + "\n"
    doc.write_text(text, encoding="utf-8")


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
