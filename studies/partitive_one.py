"""Study: "one" of "One of its affiliates" is no count to ask for (issue 44).

The parser reads "One" of "One of its affiliates, WCVB-TV premiered ..." as a number (the
NER's CARDINAL), and it became a number target: 2 of 19 number readings in
`second_pass_kinds` and one in `answer_choices` asked "How many of its affiliates ...?".
This lists every number constituent of QGEval's, CELA's and NACo's SQuAD passages that picks
out of a group (the number's own "of" phrase, the parser's `prep` child): the rule
(`analysis._one_of`) drops those that are a lone "one". Each sentence it drops is read:
is the number a count a teacher would ask for? Per-case results go to partitive_one.jsonl
("reading" for the dropped ones: "count" or "not a count").
Result: see studies/README.md (`partitive_one`).
Run: PYTHONPATH=app .venv/bin/python studies/partitive_one.py
"""

from pathlib import Path

from study_passages import earlier_readings, every_constituent, write_rows

from quizsmith.generation import analysis as an

OUT = Path(__file__).with_suffix(".jsonl")
readings = {
    case: row.get("reading", "")
    for case, row in earlier_readings(OUT, "number", "sentence").items()
}

shipped_one_of = an._one_of
an._one_of = lambda tokens: False  # every number as before, to see what the rule drops
rows, numbers = [], 0


def recording(source, c, tokens, sentence):
    global numbers
    if c.kind != "number":
        return
    numbers += 1
    if tokens and any(t.dep_ == "prep" and t.lower_ == "of" for t in tokens[-1].children):
        rows.append(
            {
                "source": source,
                "number": c.text,
                "sentence": sentence.text,
                "dropped": shipped_one_of(tokens),
                "reading": readings.get((c.text, sentence.text), ""),
            }
        )


every_constituent(recording)
write_rows(OUT, rows)
dropped = [r for r in rows if r["dropped"]]
print(f"{numbers} number constituents, {len(rows)} partitive, {len(dropped)} dropped:")
for reading in ("not a count", "count", ""):
    print(f"  {reading or 'not read'}: {sum(r['reading'] == reading for r in dropped)}")
