"""Study: is a one-word "name" the tagger reads as a common noun or an adjective a name
(issue 44)?

The small pipeline's entity recogniser takes capitalised words for names, most of all at a
sentence's start: "Farmers depend on the monsoon ...", "Daytime summer temperatures ...",
"Chambers and valves" (a heading) were names on the bench passages at 5e87ffe, and a bench
item offered "Scholars" as a place where Beethoven was born (cdaf489). Its tagger, reading the
same word, calls it a common noun (NN, NNS) or an adjective (JJ). This lists every one-word
name entity of QGEval's, CELA's and NACo's SQuAD passages (none written for it) as the
analysis reads it, with its tag; each one the tagger calls NN, NNS or JJ (nationalities, the
NORP type, aside: "Roman", "French" are adjectives by right) is read: a name, or not?
Per-case rows in common_noun_names.jsonl.
Result: see studies/README.md (`common_noun_names`).
Run: PYTHONPATH=app .venv/bin/python studies/common_noun_names.py
"""

from collections import Counter
from pathlib import Path

from study_passages import earlier_readings, every_constituent, write_rows

OUT = Path(__file__).with_suffix(".jsonl")
COMMON = ("NN", "NNS", "JJ")
readings = earlier_readings(OUT, "name", "sentence")
rows = []


def recording(source, c, tokens, sentence):
    if c.kind != "name" or len(tokens) != 1 or c.label == "NORP":
        return
    tag = tokens[0].tag_
    row = {"source": source, "name": c.text, "label": c.label, "tag": tag}
    row |= {"first": c.start == sentence.start, "sentence": sentence.text}
    if tag in COMMON:
        row["reading"] = readings.get((c.text, sentence.text), {}).get("reading", "")
    rows.append(row)


every_constituent(recording)
write_rows(OUT, [r for r in rows if r["tag"] in COMMON])
print(f"one-word names: {len(rows)}")
print(Counter((r["tag"] in COMMON, r["first"]) for r in rows))
print(Counter(r["tag"] for r in rows).most_common(8))
