"""The share of bench items usable as written, with its interval over passages.

Reads the item readings in docs/generation.md (one numbered line per item, under a
"#### Readings: <profile> profile" heading: "N. (passage, ...) ... Reading: **usable**." /
"Reading: needs a fix: why." / "Reading: bad: why.") and prints, per profile, the counts and
shares of each verdict with a 95% interval from resampling whole passages (10,000 resamples,
seed 0): the items of one passage are not independent, so the passage is the unit.

    .venv/bin/python bench/readings.py [docs/generation.md]

To write the readings of a new run: `bench/readings.py --items bench/results/generation.json
PROFILE VERDICTS` prints one line per item of that profile, in the form above, with the
verdicts of VERDICTS ("N|usable|", "N|needs a fix|why", "N|bad|why"; N counts the profile's
items in order), to paste under the profile's heading.
"""

from __future__ import annotations

import json
import random
import re
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

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


def item_lines(
    results: dict[str, Any], profile: str, verdicts: dict[int, tuple[str, str]]
) -> list[str]:
    """One docs line per item of `profile` in a bench/generation.py results file."""
    lines = []
    items = [(run, item) for run in results[profile]["runs"] for item in run["shown"]]
    for n, (run, item) in enumerate(items, 1):
        method = str(item.get("stem_method", ""))
        source = (
            "rule"
            if method.startswith("rule")
            else "model, with its answer"
            if "together" in method
            else "model"
        )
        wrong = "; ".join(item["distractors"]) or "none"
        estimate = "not scored" if item["overall"] is None else f"{item['overall']:.0%}"
        line = (
            f"{n}. ({run['passage']}, {source}) {item['stem']} Key: *{item['key']}*; wrong: "
            f"{wrong}. Overall {estimate}, flags {', '.join(item['flags']) or 'none'}."
        )
        if n in verdicts:
            verdict, why = verdicts[n]
            line += " Reading: " + ("**usable**." if verdict == "usable" else f"{verdict}: {why}")
        lines.append(line)
    return lines


def main() -> None:
    if len(sys.argv) == 5 and sys.argv[1] == "--items":
        results = json.loads(Path(sys.argv[2]).read_text(encoding="utf-8"))["results"]
        verdicts = {}
        for row in Path(sys.argv[4]).read_text(encoding="utf-8").splitlines():
            if row.strip():
                n, verdict, why = [*row.split("|", 2), ""][:3]
                verdicts[int(n)] = (verdict.strip(), why.strip())
        print("\n".join(item_lines(results, sys.argv[3], verdicts)))
        return
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
