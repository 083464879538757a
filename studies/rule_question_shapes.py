"""Do four shapes of rule-made question read badly enough to make none?

The light profile's items are mostly rule-made questions (`generation/rule_questions.py`;
104 of its 120 bench items at session 20, 27 usable). The blind reading of the bench found
four shapes among its ungrammatical ones, each read from the parse:

- the answer alone in brackets, an aside ("the German botanist Matthias Schleiden (what
  year) and ..."): now no question;
- the answer one member of a list (the parser's conjuncts: "the place values are 1, how
  many, 4, 8", "How many symphonies did Beethoven write, 5 piano concertos and ...?"): now
  no question;
- a number that counts nothing named, asked "how many" ("the standard deviation is how
  many?", "falls to how many?", "was made in how many?"): now no question, except a year the
  parser reads by its era ("completed in AD 226": "in what year");
- "who" for a phrase that holds a person's name without being one ("named who" for
  "Shakespeare's Globe"): now "what" unless the phrase's own head is typed a person.

Both versions of the rule run on the first ten targets the app chooses in QGEval's and
CELA's passages and NACo's SQuAD passages 400 on (the `rule_questions` study wrote and
revised the rule on SQuAD 0-399; none of these was read for the new shapes). No model runs.
Where the two differ, each question was read by a reader (a helper agent) who saw it alone,
with its fact and key, in a shuffled list that did not say which version wrote it: usable /
fix / bad, with the reason (`old_reading`, `new_reading`; kept across reruns while the
question is the same).

    PYTHONPATH=app .venv/bin/python studies/rule_question_shapes.py
"""

import importlib.util
import subprocess
import sys
import tempfile
from pathlib import Path

from rule_questions import shown
from study_passages import app_targets, cela, earlier_readings, qgeval, squad, write_rows

from quizsmith.generation import rule_questions

ROWS = Path(__file__).with_suffix(".jsonl")
#: The revision whose `rule_questions.wh_question` is the old rule.
OLD_REVISION = "9cfd7a4"
TARGETS = 10


def old_rule():
    source = subprocess.run(
        ["git", "show", f"{OLD_REVISION}:app/quizsmith/generation/rule_questions.py"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    path = Path(tempfile.mkdtemp()) / "old_rule_questions.py"
    path.write_text(source, encoding="utf-8")
    spec = importlib.util.spec_from_file_location("old_rule_questions", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["old_rule_questions"] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module.wh_question


def passages() -> list[tuple[str, str]]:
    return [
        *((f"qgeval:{i}", t) for i, t in enumerate(qgeval())),
        *((f"cela:{i}", t) for i, t in enumerate(cela())),
        *((f"squad:{i}", t) for i, t in enumerate(squad()) if i >= 400),
    ]


def main() -> None:
    old = old_rule()
    earlier = earlier_readings(ROWS, "fact", "answer")
    rows = []
    for name, text in passages():
        try:
            _, targets = app_targets(text, TARGETS)
        except ValueError:
            continue  # a passage the app turns down (too long)
        for target in targets:
            at = target.answer_start - target.fact_start
            made_old, why_old = shown(old, target.fact, target.answer, at)
            made_new, why_new = shown(rule_questions.wh_question, target.fact, target.answer, at)
            if made_old == made_new:
                continue
            row = {
                "passage": name,
                "fact": target.fact,
                "answer": target.answer,
                "old": made_old,
                "old_dropped": why_old,
                "new": made_new,
                "new_dropped": why_new,
            }
            was = earlier.get((target.fact, target.answer), {})
            for side in ("old", "new"):
                if was.get(side) == row[side] and f"{side}_reading" in was:
                    row[f"{side}_reading"] = was[f"{side}_reading"]
            rows.append(row)
    write_rows(ROWS, rows)
    print(f"{len(rows)} targets where the versions differ")
    for side in ("old", "new"):
        made = [r for r in rows if r[side] is not None]
        read = [r[f"{side}_reading"].split(":")[0] for r in made if f"{side}_reading" in r]
        counts = {v: read.count(v) for v in ("usable", "fix", "bad")}
        print(f"{side}: made {len(made)}, read {len(read)}: {counts}")


if __name__ == "__main__":
    main()
