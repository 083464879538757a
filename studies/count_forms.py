"""Study: do a count's wrong answers keep its form (issue 44)?

A number key with the noun it counts ("9 symphonies") got bare numbers as wrong answers on
the bench (32, 4, 1), and a bare key ("118") a count with a noun ("63 elements"): the form
check let a missing unit pass, and read "8 symphonies" on its own as a noun phrase, not a
number, so the nearby values of a counted key were dropped as "not of the key's kind".
For every number constituent of the QGEval and CELA passages (nothing here was written for
it), this counts what the form check (`distractors.kind_and_form`) lets through: the key's
nearby values (`numeric_variants`, seed 0), and for a key counting a noun its bare value
("32" for "9 symphonies"), for a bare key its value with a noun ("118 items"); a key whose
unit is "%" or "$" counts as bare here. Run it at the revision before the change and after
(with that revision's code on the path), and compare.
Result: see studies/README.md (`count_forms`).
Run: .venv/bin/python studies/count_forms.py
"""

import random
import re
from collections import Counter

from study_passages import cela, qgeval

from quizsmith.generation.analysis import analyse
from quizsmith.generation.answer_kinds import numeric_variants
from quizsmith.generation.distractors import kind_and_form

passages = qgeval() + cela()

tally: Counter[str] = Counter()
for text in passages:
    analysis = analyse(text)
    for key in (c for c in analysis.constituents if c.kind == "number"):
        value = re.search(r"\d[\d,.]*|[A-Za-z]+", key.text)
        if value is None:
            continue
        counted = bool(key.head) and key.head not in ("%", "$")
        group = "counted" if counted else "bare"
        tally[f"{group} keys"] += 1
        variants = numeric_variants(key.text, random.Random(0))
        passed = sum(not kind_and_form(key, key.text, v, analysis) for v in variants)
        tally[f"{group}: nearby values"] += len(variants)
        tally[f"{group}: nearby values passed"] += passed
        if counted:
            # The key's value without its noun: the odd one out by form.
            bare = value.group()
            tally["counted: bare value passed"] += not kind_and_form(key, key.text, bare, analysis)
            tally["counted: bare value tried"] += 1
        else:
            other = f"{value.group()} items"
            tally["bare: value with a noun passed"] += not kind_and_form(
                key, key.text, other, analysis
            )
            tally["bare: value with a noun tried"] += 1
for name in sorted(tally):
    print(f"{name}: {tally[name]}")
