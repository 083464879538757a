"""Study: is a number's wrong answer within a few percent of the key a fair option? With the
wrong-answer prompt's worked examples (gen-2026.12-2) the 1.5B model wrote numbers closer to
the key ("635", "633", "637 kilometres" for "about 636 kilometres": 16 of 50 wrong answers
for 17 numeric keys within 5%, against 8 with rules alone; `wrong_answer_examples`). Years,
eras, decades and times of day are left out: they move by their own steps.

Cases: every question with a numeric key (a number with digits, not a year or a date:
`answer_kinds.kind_of` says "number") that the 1.5B model wrote in `together_constituents`
and `answer_aware_opening` on the passages written for the project (variant "opening",
kept); the model's wrong answers for each (`writer.propose_distractors`, the app's prompt,
seed 0, no kind named), each with its distance from the key (|value - key| / key). Every
candidate within 10% of the key and as many beyond it are read blind (helper agents,
shuffled, the distance not shown): "fair" (a student who learned the passage tells it from
the key, and it is wrong per the passage) or "unfair" (too close to tell, or also right
given the passage's "about", rounding or range), with the reason ("read", "read_why").

    PYTHONPATH=app .venv/bin/python studies/close_numbers.py
    .venv/bin/python studies/close_numbers.py --report
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import study_passages as study  # noqa: E402

ROWS = HERE / "close_numbers.jsonl"
_NUMBER = re.compile(r"\d(?:[\d,]*\d)?(?:\.\d+)?")


def value(text: str) -> float | None:
    match = _NUMBER.search(text)
    return float(match.group().replace(",", "")) if match else None


def questions() -> list[dict]:
    from quizsmith.generation.answer_kinds import kind_of

    found: dict[tuple, dict] = {}
    for name, answer_field in (
        ("together_constituents.jsonl", "answer"),
        ("answer_aware_opening.jsonl", "target"),
    ):
        for line in (HERE / name).read_text(encoding="utf-8").splitlines():
            r = json.loads(line)
            key = r[answer_field]
            if r["variant"] != "opening" or r["outcome"] != "kept" or kind_of(key) != "number":
                continue
            # Years, eras and times of day move by other steps (`numeric_variants`).
            if not value(key) or re.search(r"\b(1\d{3}|20\d\d)\b|\b(AD|BC)\b|:", key):
                continue
            found.setdefault(
                (r["passage"], r["question"]),
                {"passage": r["passage"], "fact": r["fact"], "question": r["question"], "key": key},
            )
    return list(found.values())


def report() -> None:
    import random

    rows = [json.loads(line) for line in ROWS.read_text(encoding="utf-8").splitlines()]
    read = [r for r in rows if "read" in r]
    rng = random.Random(0)
    print(f"{len(rows)} candidates of {len({(r['passage'], r['question']) for r in rows})} keys")
    for low, high in ((0, 0.02), (0.02, 0.05), (0.05, 0.10), (0.10, 0.25), (0.25, 1e9)):
        band = [r for r in read if low <= r["distance"] < high]
        if band:
            n, share, lo, hi = study.label_share(band, "unfair", lambda r: r["passage"], rng)
            print(
                f"distance {low:.0%}-{high:.0%}: unfair {n} of {len(band)} ({share:.0%} "
                f"[{lo:.0%}, {hi:.0%}])"
            )


def main() -> None:
    parser = study.study_arguments(per=0)
    if parser.parse_args().report:
        report()
        return
    from quizsmith.generation import writer

    generator = study.standard_model("generator")

    def rows(done: dict):
        for case in questions():
            key_value = value(case["key"])
            wrong, _ = writer.propose_distractors(
                generator, "chat", case["question"], case["key"], case["fact"], seed=0
            )
            for text in wrong:
                v = value(text)
                if v is None or text == case["key"]:
                    continue
                yield {**case, "wrong": text, "distance": round(abs(v - key_value) / key_value, 4)}

    study.run_rows(ROWS, ("passage", "question", "wrong"), ("wrong",), rows)
    report()


if __name__ == "__main__":
    main()
