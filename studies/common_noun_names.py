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

from study_passages import analyse_every_passage, earlier_readings, write_rows

from quizsmith.generation import analysis as an

OUT = Path(__file__).with_suffix(".jsonl")
COMMON = ("NN", "NNS", "JJ")
readings = earlier_readings(OUT, "name", "sentence")
read_sentence = an._read_sentence
rows = []
source_now = {"source": ""}


def recording(analysis, sentence, doc):
    read_sentence(analysis, sentence, doc)
    for c in analysis.in_sentence(sentence.index):
        at = c.start - sentence.start
        tokens = [t for t in doc if at <= t.idx < at + len(c.text)]
        if c.kind != "name" or len(tokens) != 1 or c.label == "NORP":
            continue
        tag = tokens[0].tag_
        row = {"source": source_now["source"], "name": c.text, "label": c.label, "tag": tag}
        row |= {"first": at == 0, "sentence": sentence.text}
        if tag in COMMON:
            row["reading"] = readings.get((c.text, sentence.text), {}).get("reading", "")
        rows.append(row)


an._read_sentence = recording
analyse_every_passage(source_now)
write_rows(OUT, [r for r in rows if r["tag"] in COMMON])
print(f"one-word names: {len(rows)}")
print(Counter((r["tag"] in COMMON, r["first"]) for r in rows))
print(Counter(r["tag"] for r in rows).most_common(8))
