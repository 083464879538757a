"""Study: a name that ends in a possessive "'s" is the possessor, not a name with "'s" (issue 44).

The parser's entities keep the "'s" of "Édouard Manet's painting"; the bench's impressionism
passage offered "Édouard Manet's" as a wrong answer, and an item's key was "John's" (read:
a cut). But some names hold their "'s" ("Moody's", "St Chad's is ..."). The rule
(`analysis._possessor`) drops the "'s" where the name is the possessor (the parser's `poss`)
of a noun after it. This lists every name constituent of QGEval's, CELA's and NACo's SQuAD
passages (none written for the rule) that ends in "'s", as the analysis read it before the
rule, with what the rule does; each one it changes is read: is the name without "'s" what the
sentence names ("the name") or not ("not", with why)? Per-case rows in possessive_names.jsonl.
Result: see studies/README.md (`possessive_names`).
Run: PYTHONPATH=app .venv/bin/python studies/possessive_names.py
"""

from pathlib import Path

from study_passages import earlier_readings, every_constituent, write_rows

from quizsmith.generation import analysis as an

OUT = Path(__file__).with_suffix(".jsonl")
readings = earlier_readings(OUT, "name", "at", "sentence")
shipped = an._possessor
an._possessor = lambda tokens: False  # every name as before, to see what the rule changes
rows = []


def recording(source, c, tokens, sentence):
    if c.kind != "name" or not c.text.endswith(("'s", "\u2019s")):
        return
    at = c.start - sentence.start
    old = readings.get((c.text, at, sentence.text), {})
    rows.append(
        {
            "source": source,
            "name": c.text,
            "at": at,
            "sentence": sentence.text,
            "changed": shipped(tokens),
            "reading": old.get("reading", ""),
            "note": old.get("note", ""),
        }
    )


every_constituent(recording)
write_rows(OUT, rows)
changed = [r for r in rows if r["changed"]]
print(f"{len(rows)} names ending in 's; the rule changes {len(changed)}:")
for reading in ("the name", "not", ""):
    print(f"  {reading or 'not read'}: {sum(r['reading'] == reading for r in changed)}")
for r in rows:
    if not r["changed"]:
        print(f"  kept: {r['name']!r}")
