"""Assemble docs/benchmarks.md from the per-benchmark results in bench/results/*.md.

    .venv/bin/python bench/report.py

Each benchmark writes its own section (machine, command, numbers) when it runs; this only
puts them together in a fixed order, so the document always shows what was last measured.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ORDER = [
    "providers",
    "llama_build",
    "scaling",
    "bank",
    "metrics",
    "option_scoring",
    "generation",
    "kind_margin",
    "gui",
    "model_host",
]

HEADER = """# Benchmarks

Speed and memory targets are measured here, not asserted in timed tests. Each section names
the machine, the command and the revision it ran at; numbers are medians unless said
otherwise, and ratios are taken within one run. Re-run a benchmark and then
`.venv/bin/python bench/report.py` to refresh this page.
"""


_DATE = re.compile(r"\b(20\d\d-\d\d-\d\d)\b")


def dates_note(sections: dict[str, str]) -> str:
    """Which sections were measured on which day. Machines of the same description have
    differed by more than a factor of two from one day to the next (the live set, same code,
    2026-11-23 and -24), so figures compare across sections only when their dates match."""
    by_date: dict[str, list[str]] = {}
    for name, text in sections.items():
        found = _DATE.search(text)
        by_date.setdefault(found.group(1) if found else "undated", []).append(name)
    if len(by_date) < 2:
        return ""
    listed = "; ".join(f"{day}: {', '.join(names)}" for day, names in sorted(by_date.items()))
    return (
        f"Measured on different days ({listed}). Machines of the same description have run "
        "the same code more than twice as fast from one day to the next: compare figures "
        "across sections only when their dates match, and otherwise the ratios within a "
        "section.\n"
    )


def main() -> None:
    results = ROOT / "bench" / "results"
    # "-items" files list generated items for docs/generation.md; they measure nothing.
    found = {p.stem: p for p in results.glob("*.md") if not p.stem.endswith("-items")}
    names = [n for n in ORDER if n in found] + sorted(set(found) - set(ORDER))
    parts = [HEADER, dates_note({n: found[n].read_text(encoding="utf-8") for n in names})]
    for name in names:
        lines = found[name].read_text(encoding="utf-8").strip().splitlines()
        if lines and lines[0].startswith("#"):
            lines[0] = "## " + lines[0].lstrip("#").strip()  # one heading level for all
        parts.append("\n".join(lines) + "\n")
    (ROOT / "docs" / "benchmarks.md").write_text("\n".join(parts), encoding="utf-8")
    print(f"docs/benchmarks.md: {', '.join(names)}")


if __name__ == "__main__":
    main()
