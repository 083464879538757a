"""Does showing the model the lines before a fact that points back ("It was closed in 1642
...", "His calendar ...") give questions that name what the pronoun means?

The model writes each question with its own answer from the fact sentence alone; on the
bench it asked "When was the Palace of Westminster closed?" of "It was closed in 1642, when
Parliament banned stage plays ..." (the second Globe). Of the app's first five targets on
120 QGEval passages, 67 of 600 facts open with or have as subject such a pronoun.

On QGEval passages (none written for this; the app's first five targets each), every target
whose sentence points back (`antecedents.refers_back`) is asked twice with the 1.5B model,
greedy, the same seed: the fact alone (as shipped before) and with `antecedent_text` before
it. Each question is checked as the app checks it (`writer.propose_question_and_answer`,
the answer a whole constituent of the fact: `constituent_targets.followed_target`). Rows in
`pronoun_context.jsonl`; the readings of the questions that pass ("referent": "named"
where the question names what the pronoun means, rightly; "wrong" where it names something
else or misreads the fact; "unnamed" where it names nothing, keeps the pronoun or says "the
author", "the team") are written there by hand (one reader, not blind to the side) and
survive a rerun.

Result (2026-11-30, the first 47 such facts of QGEval passages 120 on, 1.5B model, 2 cores,
1,480 s): the fact alone, 14 questions pass the checks: 1 names the referent, 5 name
something else ("When was Maria Alyokhina released ...?" of Tolokonnikova's release beside
her; "How many centavos are in one dollar?" of the peso), 8 name nothing ("Which NFL team
drafted him?"). With the lines before it, 17 pass: 13 name it, 0 something else, 4 nothing
("Which conference do the team belong to?" where the lines before name no team either).

The answer-aware question (the second pass, `writer.write_stem` for the target's own key)
is asked the same two ways ("aware_alone", "aware_with_context"), read the same way.

Result (2026-11-30, session 17, the same 47 facts, 1,066 s for the new sides): alone, 22
answer-aware questions pass the checks: none names the referent, 12 name something else or
misread the fact ("In which year did the Cherry Hill Mall open?" of the Hawaiian Cottage),
10 nothing. With the lines before it, 37 pass: 33 name it, 1 misreads ("Which voice actress
voiced ...?" for one of her roles), 3 nothing ("the team").
The questions with the lines before read for use (the question alone: grammatical, asks
for its key, clear without the passage; "question_reading"): with its own answer 12 usable
and 5 to fix of the 17 that pass; answer-aware 18 usable, 14 to fix, 5 bad of 37 ("In
which episode ... first introduced?" for "one-time"). Per fact, 12 and 18 usable of 47.

    PYTHONPATH=app .venv/bin/python studies/pronoun_context.py [FACTS] [--fresh]

Sides already in the .jsonl for a fact are kept (the prompts are deterministic, greedy);
`--fresh` asks every side again.
"""

import sys
import time
from pathlib import Path

from study_passages import app_targets, earlier_readings, qgeval, write_rows

from quizsmith.generation import writer
from quizsmith.generation.antecedents import antecedent_text
from quizsmith.generation.constituent_targets import followed_target
from quizsmith.providers.manager import provider_for_role
from quizsmith.settings import Settings

ROWS = Path(__file__).with_suffix(".jsonl")
SEED = 7


def asked(generator, analysis, target, before: str) -> dict:
    written, answer = writer.propose_question_and_answer(
        generator, target.fact, difficulty=None, seed=SEED, before=before
    )
    followed = followed_target(analysis, target, answer, set()) if written.text else None
    reason = written.reason or ("" if followed else "its answer is no phrase of the fact")
    return {"question": written.text or "", "answer": answer, "passes": not reason, "why": reason}


def aware(generator, target, before: str) -> dict:
    written = writer.write_stem(
        generator,
        "chat",
        target.fact,
        target.answer,
        difficulty=None,
        seed=SEED,
        temperature=0.0,
        before=before,
    )
    return {
        "question": written.text or "",
        "passes": written.text is not None,
        "why": written.reason or "",
    }


SIDES = ("alone", "with_context", "aware_alone", "aware_with_context")
#: The readings written by hand into a side's row: what the question names, and (for the two
#: sides with the lines before) whether the question is usable as written, to fix or bad.
READINGS = ("referent", "question_reading")


def ask(side: str, generator, analysis, target, before: str) -> dict:
    """One side's question: with its own answer or for the target's key, the lines before
    shown or not."""
    shown = before if side.endswith("with_context") else ""
    if side.startswith("aware"):
        return aware(generator, target, shown)
    return asked(generator, analysis, target, shown)


def main() -> None:
    numbers = [a for a in sys.argv[1:] if a.isdigit()]
    most = int(numbers[0]) if numbers else 47
    fresh = "--fresh" in sys.argv
    generator = provider_for_role("generator", Settings(profile="standard", n_threads=2))
    earlier = earlier_readings(ROWS, "passage", "fact")
    rows = []
    started = time.perf_counter()
    for p, text in enumerate(qgeval()[120:], 120):
        analysis, targets = app_targets(text, 5)
        for target in targets:
            before = antecedent_text(analysis, target.sentence_index)
            # One question per fact, as the app asks it (`BuildContext.together_written`).
            if not before or len(rows) >= most or any(r["fact"] == target.fact for r in rows):
                continue
            row = {"passage": p, "fact": target.fact, "before": before, "target": target.answer}
            row["kind"] = target.kind
            old = earlier.get((p, target.fact), {})
            for side in SIDES:
                kept = side in old and not fresh
                row[side] = old[side] if kept else ask(side, generator, analysis, target, before)
            for side in SIDES:
                same = old.get(side, {}).get("question") == row[side]["question"]
                for reading in READINGS:
                    if same and reading in old[side]:
                        row[side][reading] = old[side][reading]
            rows.append(row)
    write_rows(ROWS, rows)
    print(f"{len(rows)} facts, {time.perf_counter() - started:.0f} s")
    for side in SIDES:
        passed = [r[side] for r in rows if r[side]["passes"]]
        read = [q for q in passed if "referent" in q]
        counts = {k: sum(q["referent"] == k for q in read) for k in ("named", "wrong", "unnamed")}
        print(f"{side}: {len(passed)} of {len(rows)} pass the checks; read {len(read)}: {counts}")


if __name__ == "__main__":
    main()
