"""Should four shapes of rule-made question make no question?

The light profile's items are mostly rule-made questions (`generation/rule_questions.py`;
104 of its 120 bench items at session 20, 27 usable). The bench's blind reader called several
of its ungrammatical ones bad, and four shapes among them can be read from the parse; the
rule was changed to make none of them (22a38bd, TRIED_REVISION):

- the answer alone in brackets, an aside ("the German botanist Matthias Schleiden (what
  year) and ..."): no question;
- the answer one member of a list (the parser's conjuncts: "the place values are 1, how
  many, 4, 8", "How many symphonies did Beethoven write, 5 piano concertos and ...?"): no
  question;
- a number that counts nothing named, asked "how many" ("the standard deviation is how
  many?", "was made in how many?"): no question, except a year the parser reads by its era
  ("completed in AD 226": "in what year");
- "who" for a phrase that holds a person's name without being one ("named who" for
  "Shakespeare's Globe"): "what" unless the phrase's own head is typed a person.

Both versions ran on the first ten targets the app chooses in QGEval's and CELA's passages
and NACo's SQuAD passages 400 on (the `rule_questions` study wrote and revised the rule on
SQuAD 0-399; none of these was read for the shapes). No model runs. Where the two differ
(306 targets), each question was read by three readers (helper agents, a third of the list
each) who saw it alone, with its fact and key, in a shuffled list that did not say which
version wrote it: usable / fix / bad with the reason (`old_reading`, `new_reading`).

Result: **the old questions of the three dropped shapes read far better than the bench
suggested**: in brackets 26 usable, 10 to fix, 3 bad of 39 ("Radio On: A Listener's Diary
(what year) is the first book by Sarah Vowell?"); one of a list 130, 40, 21 of 191 ("...
visitors to what, the Tamar Valley and ...?" names the list's others, so it singles out the
key); a number that counts nothing 19, 40, 15 of 74 (the fixes mostly another question word:
"how old", "how much", "what time"). Dropping them would lose 175 usable questions to save
39 bad ones, and a dropped fact goes to the light model's own question (2 usable of 39 on
the bench at session 17). Not shipped. The era year changed 4 questions (3 fix -> fix, 1 fix
-> bad: "at what year" for a height): not shipped. The person check changed 1 ("a process
known as who?" -> "what?", fix -> usable) and is shipped, as a reading of the parse
(the phrase's own head, not any of its words) rather than a new rule.

    PYTHONPATH=app .venv/bin/python studies/rule_question_shapes.py
"""

from pathlib import Path

from rule_questions import compared_row, module_at
from study_passages import app_targets, cela, earlier_readings, qgeval, squad, write_rows

from quizsmith.generation.web_marks import masked

ROWS = Path(__file__).with_suffix(".jsonl")
#: The revisions whose `rule_questions.wh_question` are the old rule and the one tried.
OLD_REVISION = "9cfd7a4"
TRIED_REVISION = "22a38bd"
TARGETS = 10


def rule_at(revision: str):
    """`rule_questions` as it was at `revision`."""
    from quizsmith.generation import parser

    if not hasattr(parser, "listed"):
        # The tried rule imported the parser's list test, which left the app with it.
        parser.listed = lambda token: (
            token.pos_ in ("NOUN", "PROPN", "NUM") and bool(token.conjuncts)
        )
    return module_at(revision, "app/quizsmith/generation/rule_questions.py")


def shape(tried, fact: str, answer: str, at: int, old_question: str) -> str:
    """Which of the four shapes a target is, read as the tried rule reads it."""
    from quizsmith.generation.parser import parse

    doc = parse(masked(fact).rstrip())
    span = [t for t in doc if at <= t.idx < at + len(answer)]
    inside = {t.i for t in span}
    roots = [t for t in span if t.head.i not in inside or t.head.i == t.i]
    if len(roots) != 1:
        return "other"
    if tried._bracketed(span):
        return "brackets"
    if tried._listed(roots[0]):
        return "list"
    if "how many" in (old_question or ""):
        return "count"
    return "who" if "who" in (old_question or "").lower() else "other"


def passages() -> list[tuple[str, str]]:
    return [
        *((f"qgeval:{i}", t) for i, t in enumerate(qgeval())),
        *((f"cela:{i}", t) for i, t in enumerate(cela())),
        *((f"squad:{i}", t) for i, t in enumerate(squad()) if i >= 400),
    ]


def main() -> None:
    old, tried = rule_at(OLD_REVISION), rule_at(TRIED_REVISION)
    earlier = earlier_readings(ROWS, "fact", "answer")
    rows = []
    for name, text in passages():
        try:
            _, targets = app_targets(text, TARGETS)
        except ValueError:
            continue  # a passage the app turns down (too long)
        for target in targets:
            at = target.answer_start - target.fact_start
            row = compared_row(name, target, old.wh_question, tried.wh_question, earlier)
            if row["old"] == row["new"]:
                continue
            kind = shape(tried, target.fact, target.answer, at, row["old"])
            rows.append({"passage": row.pop("passage"), "shape": kind, **row})
    write_rows(ROWS, rows)
    print(f"{len(rows)} targets where the versions differ")
    for kind in ("brackets", "list", "count", "who", "other"):
        for side in ("old", "new"):
            made = [r for r in rows if r["shape"] == kind and r[side] is not None]
            read = [r[f"{side}_reading"].split(":")[0] for r in made if f"{side}_reading" in r]
            counts = {v: read.count(v) for v in ("usable", "fix", "bad")}
            print(f"{kind:9} {side}: made {len(made)}, read {len(read)}: {counts}")


if __name__ == "__main__":
    main()
