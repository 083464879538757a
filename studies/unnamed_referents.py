"""Study: does the parser find questions that point at something they do not name ("What is
the title of his two-volume report?", "... demonstrate that plants only do this in light?")
better than the pattern `stem_checks.unnamed_referent` used before (issue 44)?

The pattern before (kept below as `pattern_check`, from bfc5d01) found "this", "these" or
"those" before a word; pronouns it did not read: "he", "his", "the tunnel" were in 6 of the
standard bench's 120 items at cdaf489 read "needs a fix" or "bad". The shipped check reads the
parse: a demonstrative determiner whose noun the question does not name before it, a
demonstrative standing alone ("do this"), a third-person pronoun with no noun or name in the
question outside its own phrase. Both run over questions none of it was written for:
- written by people, who saw the passage: QGEval's 200 references, NACo's 748 SQuAD questions
  with their two rewordings (each flagged one is read: does it name what it points at?);
- QGEval's 3,000 generated questions, rated 1-3 for clarity by people who saw the passage;
- Quiz Design's 1,088 machine-written questions, kept or removed by teachers (3 documents).
A flagged question should be rated unclear, or removed, more often than the rest. Every
flagged question: unnamed_referents.jsonl (a hand reading where written: "reading").
Result: see studies/README.md (`unnamed_referents`).
Run: PYTHONPATH=app .venv/bin/python studies/unnamed_referents.py
"""

import ast
import json
import math
import re
from collections import Counter
from pathlib import Path

from study_passages import DATA, earlier_readings, write_rows

from quizsmith.generation.stem_checks import unnamed_referent

_DEMONSTRATIVE = re.compile(r"\b(?:[Tt]his|[Tt]hese|[Tt]hose)\s+([A-Za-z]+)")
_NO_REFERENCE_AFTER = frozenset(
    ["who", "whom", "that", "which", "of", "in", "is", "was", "are", "were"]
)


def pattern_check(stem: str) -> str:
    for match in _DEMONSTRATIVE.finditer(stem):
        if match.group(0)[0] == "T" and match.start() > 0:
            continue
        noun = match.group(1).lower()
        if noun in _NO_REFERENCE_AFTER:
            continue
        if re.search(rf"\b{re.escape(noun.rstrip('s'))}", stem[: match.start()].lower()):
            continue
        return f"it refers to {match.group(0)}"
    return ""


def wilson(hits: int, n: int) -> str:
    if not n:
        return "n/a"
    p, z = hits / n, 1.96
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return f"{hits}/{n} = {p:.0%} [{centre - half:.0%}, {centre + half:.0%}]"


def listed(questions):
    return ast.literal_eval(questions) if isinstance(questions, str) else questions


rows = []  # (source, group, question, bad: bool | None)
for row in json.loads((DATA / "qgeval" / "instances.json").read_text(encoding="utf-8")):
    rows.append(("people", "qgeval", row["reference"], None))
    rows += [("qgeval", "", q["prediction"], q["clarity"] < 3) for q in listed(row["questions"])]
with (DATA / "naco" / "squad_candidates.jsonl").open(encoding="utf-8") as lines:
    for r in map(json.loads, lines):
        asked = dict.fromkeys(r[q] for q in ("refq", "annoq", "annoq_clue_refq"))
        rows += [("people", "squad", q, None) for q in asked]
with (DATA / "quizdesign" / "quiz_design_groups_dev.jsonl").open(encoding="utf-8") as lines:
    for g in map(json.loads, lines):
        rows += [
            ("quizdesign", g["doc_id"], q["question"], q["label"] == 0)
            for q in listed(g["questions"])
        ]

OUT = Path(__file__).with_suffix(".jsonl")
readings = earlier_readings(OUT, "source", "question")
results = []
for source, group, question, bad in rows:
    before, now = pattern_check(question), unnamed_referent(question)
    result = {"source": source, "group": group, "question": question, "bad": bad}
    result |= {"before": before, "now": now}
    if before or now:
        result["reading"] = readings.get((source, question), {}).get("reading", "")
    results.append(result)
write_rows(OUT, [r for r in results if r["before"] or r["now"]])

people = [r for r in results if r["source"] == "people"]
print(f"written by people: {len(people)} questions")
for name in ("before", "now"):
    print(f"  flagged {name}: {sum(bool(r[name]) for r in people)}")
for source, what in (("qgeval", "rated below 3 for clarity"), ("quizdesign", "removed")):
    rated = [r for r in results if r["source"] == source]
    share = wilson(sum(r["bad"] for r in rated), len(rated))
    print(f"{source}: {len(rated)} questions, {what}: {share}")
    for name in ("before", "now"):
        hit = [r for r in rated if r[name]]
        rest = [r for r in rated if not r[name]]
        print(
            f"  flagged {name}: {wilson(sum(r['bad'] for r in hit), len(hit))}; "
            f"the rest {wilson(sum(r['bad'] for r in rest), len(rest))}"
        )
    if source == "quizdesign":
        for doc in sorted({r["group"] for r in rated}):
            hit = [r for r in rated if r["now"] and r["group"] == doc]
            rest = [r for r in rated if not r["now"] and r["group"] == doc]
            print(
                f"    document {doc}: flagged now {wilson(sum(r['bad'] for r in hit), len(hit))}, "
                f"the rest {wilson(sum(r['bad'] for r in rest), len(rest))}"
            )
        reasons = Counter(r["bad"] and "removed" for r in rated if r["now"])
        print(f"    {dict(reasons)}")
