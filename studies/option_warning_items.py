"""Study: are the generation bench's items that carry a wrong-answer warning usable, so that
the pipeline should set them aside for a spare fact, as it does items the estimate rates low
(issue 44)?

The warnings are the option check's (`quality/option_checks.py`): "option-other-kind" (a
wrong answer no one would choose) and "option-other-form" (a hint: another form than the
key's). Their parts were chosen on CELA's labelled cloze tests, not on these items. Since
`wrong_answer_sets.options_of_question` a spare takes a warned option's place, so an item
still carries the warning only where too few wrong answers of the key's kind and form were
left.

Cases: every distinct item (profile, passage, question, key, wrong answers) in
docs/generation.md's readings lists over its git history, each with its latest reading
(usable / needs a fix / bad, the rubric in docs/generation.md) and the warnings it was
generated with. Until session 17 the reader was the developer, not blind to the revision;
from a3e3c57 (standard) and 1bb284e (light) a helper agent read the lists blind to the
revision. Rows in `option_warning_items.jsonl`; the figures' intervals resample whole
passages.

Run (from the repository root): .venv/bin/python studies/option_warning_items.py collect
     then: .venv/bin/python studies/option_warning_items.py
"""

import json
import random
import re
import subprocess
import sys
from pathlib import Path

from study_passages import label_share

ROWS = Path(__file__).with_suffix(".jsonl")
WARNINGS = {"option-other-kind", "option-other-form"}
#: The first revision whose list (standard, light) the second, blind reader read.
BLIND_FROM = {"standard": "a3e3c57", "light": "1bb284e"}
LINE = re.compile(
    r"\d+\. \((\S+), [^)]*\) (.*) Overall \d+%, flags ([^.]*)\. "
    r"Reading: (\*\*usable|needs a fix|bad)"
)


def _git(*args: str) -> str:
    return subprocess.run(["git", *args], capture_output=True, text=True, check=True).stdout


def _blind(rev: str, profile: str) -> bool:
    ancestor = subprocess.run(["git", "merge-base", "--is-ancestor", BLIND_FROM[profile], rev])
    return ancestor.returncode == 0


def collect() -> None:
    """Every distinct item with its latest reading (revisions newest first)."""
    items: dict[tuple[str, str, str], dict] = {}
    for rev in _git("log", "--format=%h", "--", "docs/generation.md").split():
        profile = ""
        for line in _git("show", f"{rev}:docs/generation.md").splitlines():
            if line.startswith("#### Readings"):
                profile = "light" if "light" in line else "standard"
            match = LINE.match(line)
            if not match or not profile:
                continue
            passage, body, flags, verdict = match.groups()
            items.setdefault(
                (profile, passage, body),
                {
                    "profile": profile,
                    "passage": passage,
                    "item": body,
                    "flags": flags.split(", "),
                    "verdict": verdict.strip("*"),
                    "rev": rev,
                },
            )
    with ROWS.open("w", encoding="utf-8") as out:
        for row in items.values():
            row["blind"] = _blind(row["rev"], row["profile"])
            out.write(json.dumps(row, ensure_ascii=False) + "\n")
    print(f"{len(items)} items written to {ROWS}")


def report() -> None:
    rows = [json.loads(line) for line in ROWS.open(encoding="utf-8")]
    rng = random.Random(0)
    for name, pick in (
        ("all", lambda r: True),
        ("standard", lambda r: r["profile"] == "standard"),
        ("light", lambda r: r["profile"] == "light"),
        ("blind reader", lambda r: r["blind"]),
    ):
        chosen = [r for r in rows if pick(r)]
        for warned in (True, False):
            cases = [r for r in chosen if bool(WARNINGS & set(r["flags"])) == warned]
            parts = []
            for verdict in ("usable", "bad"):
                n, share, low, high = label_share(
                    cases, verdict, lambda c: f"{c['profile']}:{c['passage']}", rng, "verdict"
                )
                parts.append(f"{verdict} {n} ({share:.0%} [{low:.0%}, {high:.0%}])")
            label = "with a warning" if warned else "without"
            fix = sum(c["verdict"] == "needs a fix" for c in cases)
            print(f"{name:13} {label:15} n={len(cases):4}  {'  '.join(parts)}  fix {fix}")


if __name__ == "__main__":
    collect() if sys.argv[1:] == ["collect"] else report()
