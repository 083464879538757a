"""Study: does the stem check read a number or a time written in words as one (issue 44)?

`stem_checks.asks_for_other_kind` read a key's kind with `answer_kinds.kind_of`, which finds
digits only: "fifteen" was a phrase, so "How many fraternities ...?" asked "for a date or an
amount, but the key is neither", and "Who wrote the Italian sonnet?" passed with the key
"fourteenth-century" (a standard bench item at cdaf489, read bad). `stem_checks.answer_kind`
asks the parser where `kind_of` finds a name or a phrase. This runs both readings over every
question of QGEval (its 200 references and 3,000 generated questions, rated for answer
consistency) and the 748 SQuAD questions of NACo's data, each with its passage's answer, and
prints the pairs whose key the two read differently, with what the check says of them.
Questions written by people (the references, SQuAD's) ask for their answer: a rejection
there is wrong.
Result: see studies/README.md (`word_form_keys`).
Run: PYTHONPATH=app .venv/bin/python studies/word_form_keys.py
"""

import ast
import json
from collections import Counter

from study_passages import DATA

from quizsmith.generation import stem_checks
from quizsmith.generation.answer_kinds import kind_of

pairs = []
for row in json.loads((DATA / "qgeval" / "instances.json").read_text(encoding="utf-8")):
    pairs.append(("people", row["reference"], row["answer"], None))
    questions = row["questions"]
    questions = ast.literal_eval(questions) if isinstance(questions, str) else questions
    pairs += [
        ("qgeval", q["prediction"], row["answer"], q["answer_consistency"]) for q in questions
    ]
with (DATA / "naco" / "squad_candidates.jsonl").open(encoding="utf-8") as lines:
    pairs += [("people", r["refq"], r["answer"], None) for r in map(json.loads, lines)]

changed = [p for p in pairs if stem_checks.answer_kind(p[2]) != kind_of(p[2])]
now = [stem_checks.asks_for_other_kind(q, a) for _, q, a, _ in changed]
shipped = stem_checks.answer_kind
stem_checks.answer_kind = kind_of  # the digits-only reading, as before
before = [stem_checks.asks_for_other_kind(q, a) for _, q, a, _ in changed]
stem_checks.answer_kind = shipped
print(f"{len(pairs)} questions; {len(changed)} keys read otherwise by the parser")
print("(written by, rejected before, rejected now):")
for case, count in sorted(
    Counter((p[0], bool(b), bool(n)) for p, b, n in zip(changed, before, now, strict=True)).items()
):
    print(f"  {case}: {count}")
freed = [
    p[3] for p, b, n in zip(changed, before, now, strict=True) if p[0] == "qgeval" and b and not n
]
rated = [p[3] for p in pairs if p[0] == "qgeval"]
print(
    f"QGEval questions no longer rejected: {len(freed)}, rated below 2.5 for answer "
    f"consistency {sum(r < 2.5 for r in freed)} (all QGEval questions: "
    f"{sum(r < 2.5 for r in rated) / len(rated):.0%})"
)
for p, n in zip(changed, now, strict=True):
    if n:
        print(f"  still rejected: {p[1]!r} | {p[2]} | {n}")
