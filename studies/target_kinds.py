"""Study: which kinds of key give the standard profile's usable items, and should a chat
generator's targets be ranked by them (issue 44)?

The targets are ranked by kind (`constituent_targets._BASE`): a term the passage defines
first (0.95, "what a textbook section teaches"), then dates, numbers, names, noun phrases
last. A chat generator writes each question with its own answer, and the key follows that
answer, so the kind of a delivered item's key is what was asked, whatever the target.

Cases: every distinct standard-profile item of docs/generation.md's readings lists over
their git history (`option_warning_items.jsonl`, which holds each with its latest reading:
usable / needs a fix / bad, against the rubric in docs/generation.md), its key read by the
passage's analysis (`PassageAnalysis.find`): a term or a noun phrase, a date, a number or a
name, or none (a key the analysis does not hold as one constituent). Until session 17 the
reader was the developer, not blind to the revision; the figures are given for the blind
reader's items too. Intervals resample whole passages (`label_share`).

Result (2026-12-01): **a term or a phrase key 23 usable of 186 (12% [7%, 18%], 23
passages), bad 34%; a date, number or name 77 of 186 (41% [35%, 49%]), bad 24%**; the blind
reader's alone, 10 of 50 (20% [9%, 32%]) against 34 of 69 (49% [35%, 64%]). By kind: dates
44 of 76, numbers 9 of 29, names 24 of 81, terms 14 of 107, phrases 9 of 79. QGEval's
passages, read for nothing before, point the same way for the 1.5B model's answer-aware
questions (the `second_pass_kinds` study: names, numbers and dates 15 usable of 37, phrases
and terms 1 of 11).

Tried (90f1423, reverted): a chat generator's term and phrase targets fell below its names
(terms 0.95 -> 0.7), so that each passage's first targets were its dates, numbers and names.
The standard bench with it, on its first 13 passages (stopped there), against the docs'
list of 7946d27's items, both read blind by the same helper agents, shuffled and unmarked
(`target_kinds.jsonl`): only 8 of 65 questions changed (the 1.5B model writes each question
with its own answer, and asked the same things of the sentences); the 8 new read 2 usable,
3 to fix, 3 bad, the 8 gone 2, 2, 4. All 65: 26 usable, 16 to fix, 23 bad against 29, 12,
24, most of the difference in the wrong answers of unchanged questions (another target
order gives another seed: 17 usable of 38 against 20), which is run-to-run noise. No
evidence of a gain: the ranking stays (terms first, what a textbook section teaches). What
the key's kind says is about the sentences the model asks, not about the targets.

Run (from the repository root): PYTHONPATH=app .venv/bin/python studies/target_kinds.py
"""

import json
import random
import re
import tomllib
from collections import Counter
from pathlib import Path

from study_passages import label_share

from quizsmith.generation.analysis import analyse

ITEMS = Path(__file__).with_name("option_warning_items.jsonl")
PASSAGES = Path(__file__).resolve().parents[1] / "bench" / "passages.toml"
KEY = re.compile(r"Key: \*(.*?)\*;")
GROUPS = {"term": "term or phrase", "phrase": "term or phrase"}


def cases() -> list[dict]:
    texts = {p["name"]: p["text"] for p in tomllib.loads(PASSAGES.read_text())["passage"]}
    analyses: dict = {}
    found = []
    for line in ITEMS.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        key = KEY.search(row["item"])
        if row["profile"] != "standard" or key is None or row["passage"] not in texts:
            continue
        if row["passage"] not in analyses:
            analyses[row["passage"]] = analyse(texts[row["passage"]])
        constituent = analyses[row["passage"]].find(key.group(1))
        kind = constituent.kind if constituent else "none"
        verdict = row["verdict"]
        read = "usable" if verdict.startswith("usable") else "fix" if "fix" in verdict else "bad"
        group = GROUPS.get(kind, "none" if kind == "none" else "date, number or name")
        found.append({**row, "kind": kind, "group": group, "read": read})
    return found


def main() -> None:
    rows = cases()
    rng = random.Random(0)
    by_kind = Counter((r["kind"], r["read"]) for r in rows)
    for kind in ("date", "number", "name", "term", "phrase", "none"):
        n = sum(v for (k, _), v in by_kind.items() if k == kind)
        print(f"{kind:7} {by_kind[(kind, 'usable')]} usable of {n}")
    for group in ("term or phrase", "date, number or name", "none"):
        for blind in (False, True):
            sub = [r for r in rows if r["group"] == group and (r["blind"] or not blind)]
            usable, share, low, high = label_share(sub, "usable", lambda r: r["passage"], rng)
            bad = sum(r["read"] == "bad" for r in sub) / max(1, len(sub))
            passages = len({r["passage"] for r in sub})
            print(
                f"{group:21} {'blind' if blind else 'all':5} usable {usable} of {len(sub)} "
                f"({share:.0%} [{low:.0%}, {high:.0%}], {passages} passages), bad {bad:.0%}"
            )


if __name__ == "__main__":
    main()
