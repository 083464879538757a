"""Study: should a constituent keep its quotation marks and brackets in pairs
(`generation/paired_marks.py`)?

A blind reading in `question_referents` called the keys 'The "Notre Dame Victory March' and
'"Notre Dame Victory March' fixes: the parser's entities and noun chunks sometimes take one
mark of a pair and not the other. The rule: a span with a lone mark takes the partner just
outside it, else leaves a lone mark at its edge out, else makes no constituent.

Cases: every constituent with a lone double quote or bracket that the analysis made before the
rule on QGEval's, CELA's (blanks filled) and NACo's SQuAD passages and the passages written for
the project (1,095; none written for the rule), beside what the analysis makes there now. One
helper agent read each case blind (the two versions shuffled, unmarked, in their context):
each version clean or not as an answer option (a whole phrase, every mark paired, nothing cut
off), and which is better ("no answer made here" better than an unclean one). The rule was
written after the first 49 cases were listed; the report gives the other cases apart.
Rows (case, readings) in paired_marks.jsonl.

    PYTHONPATH=app .venv/bin/python studies/paired_marks.py            # the cases again
    .venv/bin/python studies/paired_marks.py --report
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import study_passages as study  # noqa: E402

ROWS = HERE / "paired_marks.jsonl"
#: Cases listed while the rule was written (the first 50 of a listing that also counted
#: single quotes, one of them an apostrophe).
SEEN = 49


def texts() -> dict[tuple[str, int], str]:
    sources = (
        ("qgeval", study.qgeval()),
        ("cela", study.cela()),
        ("squad", study.squad()),
        ("written", [p["text"] for p in study.written_passages()]),
    )
    return {(name, i): text for name, found in sources for i, text in enumerate(found)}


def cases() -> list[dict]:
    """Each constituent with a lone mark before the rule, and what covers it now."""
    from quizsmith.generation import analysis
    from quizsmith.generation.paired_marks import unpaired

    passages = texts()
    rule = analysis.paired
    analysis.paired = lambda span: span  # the analysis before the rule
    found = []
    try:
        for (source, i), text in passages.items():
            for c in analysis.analyse(text).constituents:
                if unpaired(c.text):
                    found.append({"source": source, "passage": i, "old": c.text, "at": c.start})
    finally:
        analysis.paired = rule
        analysis.analyse.cache_clear()
    for n, case in enumerate(found):
        text = passages[(case["source"], case["passage"])]
        end = case["at"] + len(case["old"])
        now = analysis.analyse(text).constituents
        case["new"] = [c.text for c in now if c.start < end and case["at"] < c.end]
        case["context"] = text[max(0, case["at"] - 60) : end + 60]
        case["seen"] = n < SEEN
    return found


def report() -> None:
    rows = [json.loads(line) for line in ROWS.read_text(encoding="utf-8").splitlines()]
    changed = [r for r in rows if r["new"] != [r["old"]]]
    print(f"{len(rows)} constituents with a lone mark before the rule; {len(changed)} changed")
    unseen = [r for r in rows if not r["seen"]]
    for name, group in (("all", rows), ("not listed while written", unseen)):
        group = [r for r in group if "read_better" in r]
        better = Counter(r["read_better"] for r in group)
        new = Counter(r["read_new"] for r in group)
        old = Counter(r["read_old"] for r in group)
        print(
            f"{name} ({len(group)} read): better new {better['new']}, old {better['old']}, "
            f"same {better['same']}; new clean {new['clean']}, no answer {new['none']}, "
            f"unclean {new['unclean']}; old clean {old['clean']}"
        )


def main() -> None:
    if "--report" in sys.argv:
        report()
        return
    earlier = {}
    if ROWS.exists():
        for line in ROWS.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            earlier[(row["source"], row["passage"], row["at"], row["old"])] = row
    rows = []
    for case in cases():
        old = earlier.get((case["source"], case["passage"], case["at"], case["old"]), {})
        if old.get("new") == case["new"]:  # the readings hold for what is made now
            case.update({k: v for k, v in old.items() if k.startswith("read")})
        rows.append(case)
    study.write_rows(ROWS, rows)
    report()


if __name__ == "__main__":
    main()
