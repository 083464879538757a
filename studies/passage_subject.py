"""Study: where a passage opens by saying what its subject is ("The Danube ... is a major river
of central Europe"), does a later bare "the river" mean that subject, so that a question
saying "Where does the river enter Serbia?" may say "the Danube" (issue 44)?

The standard bench's blind reading (session 18) found about one item in eight whose question
leaves its subject unnamed ("the river", "the desert", "the table"). `passage_subject.
subject_of` reads the passage's first statement ("X is a Y"): X is the subject, Y (and X's
own head noun) the nouns it is; `naming_the_subject` puts X for a question's first bare "the
Y" (no adjective, compound, "of" phrase or clause of its own). Written on the bench's 24
passages and a few questions made up for it.

On questions: of the 3,880 questions of QGEval's 200 passages (3,000 generated, 200
references) and NACo's SQuAD candidates (references and rewordings) it changes 4: people and
the systems rated there name the subject, and few of those paragraphs open with "X is a Y"
(140 of 935 passages). So the referent is measured where the rule reads it, in the passages'
own sentences: every later sentence of a passage with a subject in which the rule finds a
bare "the Y", with the phrase replaced as a question's would be. Passages: QGEval's, CELA's
and SQuAD's (none read for the rule), and 160 encyclopedia-style passages helper agents wrote
for the project without being told the rule (`written_passages.json`; topics given by
subject, openings as they chose). Each case (passage, sentence, changed sentence) read blind
by another helper: "same" (the replaced words meant the named subject: the sentence says the
same), "other" (they meant something else, or the meaning changed), "odd" (the same, but it
reads badly).

Result (2026-11-30): of 140 cases, 127 same, 9 other, 4 odd; 114 of 114 on the written
passages, 13 of 26 on QGEval's and SQuAD's (QGEval joins paragraphs of two articles; a subject
cut at a colon). The rule then left out a subject that points back ("This process", "Its
capital"): 138 cases, 127 same (92% [86%, 97%], bootstrap over 70 passages), 9 other, 2 odd
(`passage_subject.jsonl`, the shipped rule's cases).

Run: PYTHONPATH=app .venv/bin/python studies/passage_subject.py list OUT.json
     then: studies/passage_subject.py score OUT.json READINGS.jsonl
"""

import json
import random
import sys
from pathlib import Path

from study_passages import cela, label_share, qgeval, squad, write_rows

from quizsmith.generation.analysis import analyse, fact_sentences
from quizsmith.generation.passage_subject import naming_the_subject, subject_of

WRITTEN = Path(__file__).with_name("written_passages.json")
#: A key no sentence holds: the rule leaves a question alone that would name its key.
NO_KEY = "\x00"


def passages():
    for source, texts in (("qgeval", qgeval()), ("cela", cela()), ("squad", squad())):
        for i, text in enumerate(texts):
            yield f"{source}:{i}", text
    for p in json.loads(WRITTEN.read_text(encoding="utf-8")):
        yield f"written:{p['name']}", p["text"]


def listing(out: Path) -> None:
    rows, total, with_subject = [], 0, 0
    for name, text in passages():
        total += 1
        analysis = analyse(text)
        subject = subject_of(analysis)
        if subject is None:
            continue
        with_subject += 1
        for sentence in fact_sentences(analysis)[1:]:
            changed = naming_the_subject(sentence.text, NO_KEY, subject)
            if changed != sentence.text:
                rows.append(
                    {
                        "passage_name": name,
                        "passage": text,
                        "subject": subject.text,
                        "sentence": sentence.text,
                        "changed": changed,
                    }
                )
    random.Random(19).shuffle(rows)
    for i, row in enumerate(rows):
        row["id"] = i
    out.write_text(json.dumps(rows, ensure_ascii=False, indent=0), encoding="utf-8")
    print(f"{total} passages, {with_subject} with a subject: {len(rows)} sentences changed")


def score(out: Path, readings: Path) -> None:
    rows = {r["id"]: r for r in json.loads(out.read_text(encoding="utf-8"))}
    read = [json.loads(line) for line in readings.read_text(encoding="utf-8").splitlines()]
    cases = [dict(rows[r["id"]], read=r["label"], why=r.get("why", "")) for r in read]
    for case in cases:
        del case["passage"]  # the passages are in their sources and written_passages.json
    write_rows(Path(__file__).with_suffix(".jsonl"), cases)
    rng = random.Random(0)
    passages = len({c["passage_name"] for c in cases})
    for label in ("same", "odd", "other"):
        n, share, low, high = label_share(cases, label, lambda c: c["passage_name"], rng)
        print(
            f"{label}: {n} of {len(cases)} ({share:.0%} [{low:.0%}, {high:.0%}], "
            f"bootstrap over {passages} passages)"
        )


if __name__ == "__main__":
    if sys.argv[1] == "list":
        listing(Path(sys.argv[2]))
    else:
        score(Path(sys.argv[2]), Path(sys.argv[3]))
