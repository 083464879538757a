"""Study: the answer-aware question of a chat generator's second pass, by the kind of its key.

The second pass (`pipeline._passes`) asks the facts whose question with its own answer was
dropped answer-aware. Its items read worse than the first pass's, and they made the bench's
slowest quizzes slower. Read on the bench (cdaf489) and in `answer_choices` (QGEval passages
0..30), those for numbers and dates read 10 usable, 6 to fix, 0 bad of 16; those for names,
phrases and terms 5, 10, 16 bad of 31. This study writes more, on passages neither saw.

Passages: QGEval's (studies/study_passages.py) FROM..TO. Facts: the first four targets the app
would choose in each. No question with its own answer is written first: every target is asked
answer-aware, as the second pass asks (`writer.write_stem`, greedy, the standard profile's
1.5B chat generator), so the facts are not only those where that question failed. The app's
stem checks run (`writer.stem_problem`); the judge's kind check does not (no QA model here).
Per fact: the key, its kind, the question or why it was dropped, to OUT.jsonl, read by hand
("reading": usable / fix / bad, with "why").
Run: PYTHONPATH=app .venv/bin/python studies/second_pass_kinds.py OUT.jsonl FROM TO
"""

import json
import sys
import time
from pathlib import Path

from study_passages import app_targets, qgeval

from quizsmith.generation.writer import write_stem
from quizsmith.providers.manager import provider_for_role
from quizsmith.settings import Settings


def main() -> None:
    out = Path(sys.argv[1])
    first, last = int(sys.argv[2]), int(sys.argv[3])
    gen = provider_for_role("generator", Settings(n_threads=2, profile="standard"))
    rows = [json.loads(line) for line in out.read_text().splitlines()] if out.exists() else []
    done = {r["id"] for r in rows}
    for pi, text in enumerate(qgeval()[first:last], first):
        _, targets = app_targets(text, 4)
        for ti, target in enumerate(targets):
            rid = f"{pi}#{ti}"
            if rid in done:
                continue
            started = time.perf_counter()
            written = write_stem(
                gen, "chat", target.fact, target.answer, difficulty=None, seed=7, temperature=0.0
            )
            row = {
                "id": rid,
                "fact": target.fact,
                "key": target.answer,
                "kind": target.kind,
                "question": written.text,
                "problem": written.reason,
                "seconds": round(time.perf_counter() - started, 2),
            }
            with out.open("a", encoding="utf-8") as f:
                f.write(json.dumps(row) + "\n")
            print(rid, target.kind, written.reason or written.text, flush=True)


if __name__ == "__main__":
    main()
