"""Do rule-made questions read better when the parser moves the question phrase to the front?

The light profile's items are mostly rule-made questions (81 of its 120 bench items at
session 17, 7 usable): the old rule put a question phrase where the answer stood, by
patterns on the words before it, and read "In what year the English physician ... published
...?", "the German chemist what", "what 's surface", "includes what number". The new rule
(`generation/rule_questions.py`) reads the parse: the phrase the answer heads (what it
counts, whose it is, what it is called), moved to the front with the clause inverted
("did ... publish") where the parse allows, else left in place.

Both rules are run on the first five targets the app chooses in 60 of NACo's SQuAD passages,
each as the builder shows it (web marks masked, then the checks a rule-made question must
pass). No model runs. Where the two rules' questions differ, each question was read by a
reader (a helper agent) who saw it alone, with its fact and key, in a shuffled list that did
not say which rule wrote it: usable / fix / bad with the reason, and whether it is
grammatical (`old_reading`, `new_reading`, `*_grammatical`; kept across reruns while the
question is the same).

The rule was written looking at passages 0-59, then revised four times, each time after
reading a fresh block of 60 passages (the rows of each round are in git history:
`git log studies/rule_questions.jsonl`). Of the targets where the rules differ,
old / new usable, to fix, bad, none: 100-159: 30/49, 71/49, 11/15, 16/15 of 128;
160-219: 20/37, 65/45, 3/8, 26/24 of 114; 220-279: 18/28, 58/26, 13/12, 10/33 of 99;
280-339: 7/29, 74/45, 14/19, 25/27 of 120.

Result, the last version on passages 340-399 (read for nothing before; 300 targets, the
rules agree on 169; 131 where they differ): **old 13 usable, 93 to fix, 8 bad, 17 none;
new 37 usable, 45 to fix, 9 bad, 40 none**. Of the questions made, usable 11% [7%, 19%] of
114 against 41% [31%, 51%] of 91 (Wilson), bad 7% [4%, 13%] against 10% [5%, 18%],
grammatical 51% against 68%. Paired: the new rule's question is usable where the old one's
was not for 33 targets, the other way for 9. The new rule makes fewer questions (175 against
198 of 300): where the parse leaves no grammatical question (the answer a word of a title,
a modifier, a date the parser hangs on a name, a phrase before the subject that cannot move),
it makes none, and the fact goes to the model's question or a spare fact.

    PYTHONPATH=app .venv/bin/python studies/rule_questions.py [FIRST LAST]
"""

import importlib.util
import subprocess
import sys
import tempfile
from pathlib import Path

from study_passages import app_targets, earlier_readings, squad, write_rows

from quizsmith.generation import rule_questions, true_false, writer
from quizsmith.generation.web_marks import masked

ROWS = Path(__file__).with_suffix(".jsonl")
#: The revision whose `writer.wh_question` is the old rule.
OLD_REVISION = "71f8022"


def module_at(revision: str, path: str):
    """The app's module at `path` as it was at `revision` (from git), loaded on its own."""
    source = subprocess.run(
        ["git", "show", f"{revision}:{path}"], capture_output=True, text=True, check=True
    ).stdout
    name = f"{Path(path).stem}_{revision}"
    file = Path(tempfile.mkdtemp()) / f"{name}.py"
    file.write_text(source, encoding="utf-8")
    spec = importlib.util.spec_from_file_location(name, file)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def old_rule():
    """The old rule, as it was at OLD_REVISION."""
    return module_at(OLD_REVISION, "app/quizsmith/generation/writer.py").wh_question


def compared_row(passage, target, old, new, earlier: dict, **extra) -> dict:
    """A target's two rule-made questions as shown (`shown`), with the readings an earlier
    run's row gave the same questions (kept across reruns while a question is the same)."""
    at = target.answer_start - target.fact_start
    made_old, why_old = shown(old, target.fact, target.answer, at)
    made_new, why_new = shown(new, target.fact, target.answer, at)
    row = {
        "passage": passage,
        **extra,
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
    return row


def shown(rule, fact: str, answer: str, at: int) -> tuple[str | None, str]:
    """What the builder's `_rule_stem` makes of a rule's question: (question, "") or
    (None, why)."""
    stem = rule(masked(fact).rstrip(), answer, at)
    if stem is None:
        return None, "no rule-made question"
    stem = true_false.shown_statement(stem)
    reason = writer.stem_problem(stem, answer, fact, may_quote_fact=True)
    return (None, reason) if reason else (stem, "")


def main() -> None:
    first, last = (int(sys.argv[1]), int(sys.argv[2])) if len(sys.argv) > 2 else (340, 400)
    passages = squad()[first:last]
    old = old_rule()
    earlier = earlier_readings(ROWS, "fact", "answer")
    rows = []
    for p, text in enumerate(passages):
        _, targets = app_targets(text, 5)
        for target in targets:
            rows.append(compared_row(first + p, target, old, rule_questions.wh_question, earlier))
    write_rows(ROWS, rows)
    made = {side: sum(r[side] is not None for r in rows) for side in ("old", "new")}
    same = sum(r["old"] == r["new"] for r in rows if r["old"] is not None)
    print(f"{len(rows)} targets; old made {made['old']}, new made {made['new']}, same {same}")
    for side in ("old", "new"):
        read = [r[f"{side}_reading"].split(":")[0] for r in rows if f"{side}_reading" in r]
        counts = {v: read.count(v) for v in ("usable", "fix", "bad")}
        print(f"{side}: read {len(read)}: {counts}")


if __name__ == "__main__":
    main()
