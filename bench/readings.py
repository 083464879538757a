"""The share of bench items usable as written, with its interval over passages.

Reads the item readings in docs/generation.md (one numbered line per item, under a
"#### Readings: <profile> profile" heading: "N. (passage, ...) ... Reading: **usable**." /
"Reading: needs a fix: why." / "Reading: bad: why.") and prints, per profile, the counts and
shares of each verdict with a 95% interval from resampling whole passages (10,000 resamples,
seed 0): the items of one passage are not independent, so the passage is the unit.

    .venv/bin/python bench/readings.py [docs/generation.md]
"""

from __future__ import annotations

import random
import re
import sys
from collections import defaultdict
from pathlib import Path

DOC = Path(__file__).resolve().parents[1] / "docs" / "generation.md"
VERDICTS = ("usable", "needs a fix", "bad")
_HEADING = re.compile(r"^#### Readings: (\w+) profile")
_ITEM = re.compile(r"^\d+\. \(([\w-]+)[,)].*Reading: \**(usable|needs a fix|bad)\b")
RESAMPLES = 10_000


def readings(text: str) -> dict[str, dict[str, list[str]]]:
    """profile -> passage -> the verdict of each of its items."""
    found: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    profile = None
    for line in text.splitlines():
        if heading := _HEADING.match(line):
            profile = heading.group(1)
        elif line.startswith("#"):
            profile = None
        elif profile and (item := _ITEM.match(line)):
            found[profile][item.group(1)].append(item.group(2))
    return found


def share_interval(by_passage: dict[str, list[str]], verdict: str) -> tuple[float, float, float]:
    """The share of items with `verdict` and its 95% interval over passages."""
    groups = list(by_passage.values())

    def share(sample: list[list[str]]) -> float:
        items = [v for group in sample for v in group]
        return sum(v == verdict for v in items) / max(len(items), 1)

    rng = random.Random(0)
    shares = sorted(share(rng.choices(groups, k=len(groups))) for _ in range(RESAMPLES))
    return share(groups), shares[int(0.025 * RESAMPLES)], shares[int(0.975 * RESAMPLES) - 1]


def main() -> None:
    doc = Path(sys.argv[1]) if len(sys.argv) > 1 else DOC
    print("| profile | passages | items | usable as written | needs a fix | bad |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for profile, by_passage in readings(doc.read_text(encoding="utf-8")).items():
        items = sum(len(v) for v in by_passage.values())
        cells = []
        for verdict in VERDICTS:
            count = sum(v == verdict for group in by_passage.values() for v in group)
            share, low, high = share_interval(by_passage, verdict)
            cells.append(f"{count} ({share:.0%}, {low:.0%}-{high:.0%})")
        print(f"| {profile} | {len(by_passage)} | {items} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
