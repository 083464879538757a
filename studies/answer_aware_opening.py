"""Study: should a chat model's answer-aware question (the second pass, `builder`: the fact's
own key given) read the passage's first statement before its fact, as the question with its
own answer does since session 22 (`antecedents.context_before`)?

The answer-aware question is the standard profile's fallback where a fact's question with its
own answer was dropped; it reads the lines a fact points back to only. Its questions often
leave their subject unnamed ("In which year did John die?", "Who supported the group for
many years?" on the bench). Variants, on the same facts, greedy as the app's first attempt:
- alone: the lines the fact points back to (`antecedent_text`), as the app does today;
- opening: those lines, else the passage's first statement (`context_before`).

Facts: the first five targets the app would choose (`app_targets`) in the passages helper
agents wrote for the project (`written_passages.json`), of the kinds the second pass asks
(`pipeline.ANSWER_AWARE_KINDS`: numbers, dates, names), where the two variants' lines differ
(a fact that points back reads the same lines in both). Each question goes through the app's
checks (`writer.write_stem`'s, then the judge's "asks for another kind" check, as `builder`
applies them). Rows to answer_aware_opening.jsonl; where the two variants' questions differ,
every one kept is read blind by helper agents (question and key against the passage, the two
versions shuffled together and unmarked: usable / needs a fix / bad, the rubric of
`together_constituents.report`), written into the rows ("read", "read_why").

    PYTHONPATH=app .venv/bin/python studies/answer_aware_opening.py [--passages 160] [--per 5]
    .venv/bin/python studies/answer_aware_opening.py --report
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import study_passages as study  # noqa: E402

ROWS = HERE / "answer_aware_opening.jsonl"
VARIANTS = ("alone", "opening")


def ask(provider, judge, analysis, target, before: str) -> dict:
    from quizsmith.generation import distractors as dis
    from quizsmith.generation import writer

    started = time.perf_counter()
    written = writer.write_stem(
        provider,
        "chat",
        target.fact,
        target.answer,
        difficulty=None,
        seed=0,
        temperature=0.0,
        before=before,
    )
    outcome = "kept"
    if written.text is None:
        outcome = f"dropped: {written.reason}"
    elif why := dis.key_of_another_kind(judge, written.text, target.answer, {}):
        outcome = f"dropped: {why}"
    return {
        "question": written.text or "",
        "outcome": outcome,
        "seconds": round(time.perf_counter() - started, 2),
    }


def report() -> None:
    """What each variant kept, and the readings of the kept questions that differ between
    the variants (a fact kept by one variant only counts for that one)."""
    import random

    rows = [json.loads(line) for line in ROWS.read_text(encoding="utf-8").splitlines()]
    rng = random.Random(0)
    facts = study.by_fact(rows, VARIANTS)
    for variant in VARIANTS:
        mine = [f[variant] for f in facts]
        kept = sum(r["outcome"] == "kept" for r in mine)
        secs = sorted(r["seconds"] for r in mine)
        print(f"{variant}: kept {kept} of {len(mine)} facts, median {secs[len(secs) // 2]} s")
    differ = [f for f in facts if f["alone"]["question"] != f["opening"]["question"]]
    print(f"facts whose questions differ: {len(differ)}")
    study.paired_readings(differ, "alone", "opening", rng)


def main() -> None:
    parser = study.study_arguments(per=5)
    args = parser.parse_args()
    if args.report:
        report()
        return
    from quizsmith.generation.antecedents import antecedent_text, context_before
    from quizsmith.generation.pipeline import ANSWER_AWARE_KINDS

    provider, judge = study.standard_model("generator"), study.standard_model("qa")
    passages = study.written_passages()

    def rows(done: dict):
        for p in passages[: args.passages]:
            analysis, targets = study.app_targets(p["text"], args.per)
            for target in targets:
                if target.kind not in ANSWER_AWARE_KINDS:
                    continue
                lines = {
                    "alone": antecedent_text(analysis, target.sentence_index),
                    "opening": context_before(analysis, target.sentence_index),
                }
                if lines["alone"] == lines["opening"]:
                    continue
                for variant in VARIANTS:
                    yield {
                        "passage": p["name"],
                        "fact": target.fact,
                        "target": target.answer,
                        "variant": variant,
                        **ask(provider, judge, analysis, target, lines[variant]),
                    }

    study.run_rows(ROWS, ("passage", "fact", "target", "variant"), ("question",), rows)
    report()


if __name__ == "__main__":
    main()
