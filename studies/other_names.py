"""Study: a name's other name given by a naming participle is another right answer (issue 44).

The bench's sonnet item offered "Petrarch" as a wrong answer beside the key "Francesco
Petrarca", which the passage calls "known in English as Petrarch"; the analysis's other names
(`PassageAnalysis.aliases`) came from appositions only. `analysis._other_names` adds a name's
other name where a naming participle modifies it ("X, known (in English) as Y", "X, called
Y", with Y's conjuncts). Every pair it adds on passages it was not written for (QGEval's,
CELA's and NACo's SQuAD contexts; the rule was written for the two sentences in its
docstring) is printed with its sentence, to read: is Y another name of X? Per-pair readings
go to other_names.jsonl (field "reading": "alias", "not", with a note).
Result: see studies/README.md (`other_names`).
Run: PYTHONPATH=app .venv/bin/python studies/other_names.py
"""

import json
from pathlib import Path

from study_passages import cela, earlier_readings, qgeval, squad

from quizsmith.generation import analysis as an

OUT = Path(__file__).with_suffix(".jsonl")
readings = earlier_readings(OUT, "name", "other", "sentence")

shipped = an._other_names
found: list[tuple[str, str, str]] = []


def recording(doc, offset, mine):
    pairs = shipped(doc, offset, mine)
    found.extend((a.text, b.text, doc.text) for a, b in pairs)
    return pairs


an._other_names = recording
rows = []
for source, passages in (("qgeval", qgeval()), ("cela", cela()), ("squad", squad())):
    for p, text in enumerate(passages):
        an.analyse.cache_clear()
        found.clear()
        an.analyse(text)
        for name, other, sentence in found:
            old = readings.get((name, other, sentence), {})
            rows.append(
                {
                    "source": source,
                    "passage": p,
                    "name": name,
                    "other": other,
                    "sentence": sentence,
                    "reading": old.get("reading", ""),
                    "note": old.get("note", ""),
                }
            )
OUT.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
read = [r for r in rows if r["reading"]]
print(f"{len(rows)} pairs; read {len(read)}:")
for kind in ("alias", "not"):
    print(f"  {kind}: {sum(r['reading'] == kind for r in read)}")
