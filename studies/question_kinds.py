"""Study: does the parser read what a question asks for, and what its key is, better than the
digit and pattern rules `stem_checks.asks_for_other_kind` used before (issue 44)?

The rules before (kept below as `pattern_check`, from 4ad98e9) found a "when" anywhere in a
question ("How many times did he have surgery when he was on the show?") and read a key's
kind from its digits ("fifteen" a phrase, "In 2002" a number), so they rejected questions
that ask for their key, and passed "Who wrote the Italian sonnet?" with the key
"fourteenth-century" (a standard bench item at cdaf489, read bad). The shipped check reads
the question's own wh-word and the key's constituent in its sentence from the parse. Both run
over every question of QGEval (200 references and 3,000 generated questions rated for answer
consistency) and NACo's 748 SQuAD questions with their annotators' rewordings, each with its
answer and the passage sentence that holds it. Questions written by people ask for their
answer: a rejection there is most likely wrong. Each question either rejects: question_kinds.jsonl.
Result: see studies/README.md (`question_kinds`).
Run: PYTHONPATH=app .venv/bin/python studies/question_kinds.py
"""

import ast
import json
import re
from collections import Counter
from pathlib import Path

from study_passages import DATA

from quizsmith.generation.answer_kinds import kind_of
from quizsmith.generation.sentences import split_sentences
from quizsmith.generation.stem_checks import asks_for_other_kind

_ASKS_TIME = re.compile(
    r"\b(when|what year|which year|what date|which century|what century|"
    r"how long ago|in what year|what decade)\b",
    re.IGNORECASE,
)
_ASKS_YEAR = re.compile(r"\b(?:what|which)\s+year\b", re.IGNORECASE)
_NAMES_A_PERIOD = re.compile(r"\b(?:centur(?:y|ies)|decades?|millenni(?:um|a))\b", re.IGNORECASE)
_ASKS_AMOUNT = re.compile(
    r"\bhow (many|much|long|far|old|large|big|high|tall|fast)\b|"
    r"\bwhat (percentage|proportion|number|amount)\b",
    re.IGNORECASE,
)
_ASKS_PERSON_OR_PLACE = re.compile(
    r"^\s*(who|whom|whose|where)\b|\bwhat is the name\b|\bname of the\b", re.IGNORECASE
)


def pattern_check(stem: str, answer: str) -> str:
    """A question whose wh-word asks for another kind of thing than the key is (a "when"
    question with a name as its key) does not have the key as its answer."""
    kind = kind_of(answer)
    if kind in ("year", "date"):
        if _ASKS_AMOUNT.search(stem) or _ASKS_PERSON_OR_PLACE.search(stem):
            return "the question asks for something other than a date"
        if kind == "date" and _ASKS_YEAR.search(stem):
            # "In which year was it first aired?" with the key "August 1999": "October 1999"
            # is right too (generation-readings-6f607a1.txt, git history, item 8).
            return "the question asks for a year, but the key is a date within one"
    elif kind == "number":
        # "the 20th century" is a number and a time: "In which century ...?" fits it.
        asks_time = _ASKS_TIME.search(stem) and not _NAMES_A_PERIOD.search(answer)
        if asks_time or _ASKS_PERSON_OR_PLACE.search(stem):
            return "the question asks for something other than a number"
    elif _ASKS_TIME.search(stem) or _ASKS_AMOUNT.search(stem):
        return "the question asks for a date or an amount, but the key is neither"
    return ""


def sentence_of(passage: str, answer: str) -> str:
    return next((s.text for s in split_sentences(passage) if answer in s.text), "")


OUT = Path(__file__).with_suffix(".jsonl")
rows = []
for row in json.loads((DATA / "qgeval" / "instances.json").read_text(encoding="utf-8")):
    fact = sentence_of(row["passage"], row["answer"])
    rows.append(("people", row["reference"], row["answer"], fact, None))
    questions = row["questions"]
    questions = ast.literal_eval(questions) if isinstance(questions, str) else questions
    rows += [
        ("generated", q["prediction"], row["answer"], fact, q["answer_consistency"])
        for q in questions
    ]
with (DATA / "naco" / "squad_candidates.jsonl").open(encoding="utf-8") as lines:
    for r in map(json.loads, lines):
        fact = sentence_of(r["context"], r["answer"])
        rows += [("people", r[q], r["answer"], fact, None) for q in ("refq", "annoq")]

results = []
for by, question, answer, fact, rating in rows:
    before, now = pattern_check(question, answer), asks_for_other_kind(question, answer, fact)
    results.append(
        {
            "by": by,
            "question": question,
            "answer": answer,
            "rating": rating,
            "before": before,
            "now": now,
        }
    )
rejected = [r for r in results if r["before"] or r["now"]]  # the rest passed both
OUT.write_text(
    "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rejected), encoding="utf-8"
)
print("(written by, rejected before, rejected now): questions")
for case, count in sorted(
    Counter((r["by"], bool(r["before"]), bool(r["now"])) for r in results).items()
):
    print(f"  {case}: {count}")
rated = [r["rating"] for r in results if r["by"] == "generated"]
print(
    "generated questions rated below 2.5 for answer consistency: "
    f"{sum(x < 2.5 for x in rated) / len(rated):.0%}"
)
for name in ("before", "now"):
    hit = [r["rating"] for r in results if r["by"] == "generated" and r[name]]
    print(f"  rejected {name}: {len(hit)}, of them below 2.5: {sum(x < 2.5 for x in hit)}")
