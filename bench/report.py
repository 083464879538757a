"""Assemble docs/benchmarks.md from the per-benchmark results in bench/results/*.md.

    .venv/bin/python bench/report.py

Each benchmark writes its own section (machine, command, numbers) when it runs; this only
puts them together in a fixed order, so the document always shows what was last measured.
"""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ORDER = ["providers", "scaling", "bank", "metrics", "option_scoring", "generation", "gui"]

HEADER = """# Benchmarks

Speed and memory targets are measured here, not asserted in timed tests. Each section names
the machine, the command and the revision it ran at; numbers are medians unless said
otherwise, and ratios are taken within one run. Re-run a benchmark and then
`.venv/bin/python bench/report.py` to refresh this page.
"""


def main() -> None:
    results = ROOT / "bench" / "results"
    found = {p.stem: p for p in results.glob("*.md")}
    names = [n for n in ORDER if n in found] + sorted(set(found) - set(ORDER))
    parts = [HEADER]
    for name in names:
        lines = found[name].read_text(encoding="utf-8").strip().splitlines()
        if lines and lines[0].startswith("#"):
            lines[0] = "## " + lines[0].lstrip("#").strip()  # one heading level for all
        parts.append("\n".join(lines) + "\n")
    (ROOT / "docs" / "benchmarks.md").write_text("\n".join(parts), encoding="utf-8")
    print(f"docs/benchmarks.md: {', '.join(names)}")


if __name__ == "__main__":
    main()
