"""Study: a number constituent takes the noun it counts (analysis._with_counted_noun, issue 44).

On 200 QGEval passages (shuffled, seed 0; none written for the rule), the analysis is made
with the rule swapped out and in; every number constituent it changes is printed for reading.
Result (2026-11-29, d803b03): 289 number constituents, 71 changed; 69 became the number with
the noun it counts, 1 a parser error ("3 No" of "3 No. 1 singles"), 1 awkward ("44 story").
Run: .venv/bin/python studies/number_units.py
"""

import json
import random
from pathlib import Path

from quizsmith.generation import analysis as an

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "qgeval" / "instances.json"
rows = json.loads(DATA.read_text(encoding="utf-8"))
passages = list(dict.fromkeys(r["passage"] for r in rows if "<sep>" not in r["passage"]))
random.Random(0).shuffle(passages)
orig = an._with_counted_noun
changed, numbers = [], 0
for text in passages[:200]:
    an.analyse.cache_clear()
    an._with_counted_noun = lambda toks: toks
    before = {(c.start, c.text) for c in an.analyse(text).constituents if c.kind == "number"}
    an.analyse.cache_clear()
    an._with_counted_noun = orig
    after = [(c.start, c.text) for c in an.analyse(text).constituents if c.kind == "number"]
    numbers += len(after)
    for start, t in after:
        if (start, t) not in before:
            old = next((b for s, b in before if s == start), None)
            changed.append((old, t))
print("passages", min(200, len(passages)), "numbers", numbers, "changed", len(changed))
for old, new in changed:
    print(repr(old), "->", repr(new))
