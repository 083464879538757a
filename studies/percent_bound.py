"""Study: may a percentage of at most 100 have wrong answers over 100 (issue 44)?

`answer_kinds.numeric_variants` multiplied "about 68 %" by 3 ("about 204 %", a bench item).
On the QGEval passages and NACo's SQuAD contexts (none written for it), every number
constituent that is a percentage of at most 100 is printed with the variants over 100 the
rule before this study made (seed 0) and its sentence, to read whether it is a share of a
whole or a decrease (never over 100) or an increase or growth rate (it may be).
Result (2026-11-29, read one by one): 114 percentages; 107 shares or decreases, 7 increases
or growth rates (cases 19, 64, 73, 75, 76, 90, 91); 34 had a variant over 100, 2 of them
increases (19: an "80-percent increase"; 73: "increased by 65%"). Shipped: variants of such a
percentage stay at most 100.
Run: .venv/bin/python studies/percent_bound.py (prints the cases as numbered above; with the
shipped rule no variant is over 100, so the variants column is empty unless
generation/answer_kinds.py is taken from c2ae6ec, the revision before the rule)
"""

import json
import random
import re
from pathlib import Path

from quizsmith.generation.analysis import analyse
from quizsmith.generation.answer_kinds import numeric_variants

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
NUMBER = re.compile(r"\d[\d,]*(?:\.\d+)?")


def value(text: str) -> float:
    found = NUMBER.search(text)
    return float(found.group().replace(",", "")) if found else 0.0


rows = json.loads((DATA / "qgeval" / "instances.json").read_text(encoding="utf-8"))
passages = list(dict.fromkeys(r["passage"] for r in rows if "<sep>" not in r["passage"]))
with (DATA / "naco" / "squad_candidates.jsonl").open(encoding="utf-8") as lines:
    passages += list(dict.fromkeys(json.loads(line)["context"] for line in lines))
out = []
for text in passages:
    analysis = analyse(text)
    for c in analysis.constituents:
        percent = c.head == "%" or re.search(r"per ?cent", c.text, re.IGNORECASE)
        if c.kind != "number" or not percent or not NUMBER.search(c.text) or value(c.text) > 100:
            continue
        over = [v for v in numeric_variants(c.text, random.Random(0)) if value(v) > 100]
        out.append((c.text, over, analysis.sentences[c.sentence_index].text))
print(len(out), "percent keys <= 100;", sum(1 for o in out if o[1]), "with a variant over 100")
for i, (key, over, sentence) in enumerate(out):
    print(i, "|", key, "|", over, "|", sentence[:220].replace("\n", " "))
