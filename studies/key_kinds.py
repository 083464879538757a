"""Study: where no question names the kind it asks for ("What did Leroy call the artists of
the show?"), does the kind the QA model gives the key ("Impressionists": a movement), asked of
each wrong answer as a named kind is ("Is Punk a movement?"), drop wrong answers of another
kind and keep those of the key's (issue 44)?

The standard bench's commonest fault, read blind in session 18, was wrong answers of another
kind where the question names none: "Punk; Jazz; Classic" for what Leroy called the painters,
"royal jelly; queen; queens" for a bee species. The kind check ("Is X a <kind>?",
`distractor_kinds.first_that_pass`) ran only where a question names a kind, "Where ...?"
asks for a place, or the parse types the key as a person or a place.

Cases: every wrong answer the 1.5B model wrote for a key without a digit in two sets: the
standard bench's items (bench/results/generation.json at its last five 24-passage runs and
docs/generation.md's latest list) and `studies/phrase_wrong_answers.jsonl` (SQuAD passages,
phrase keys, both of its variants), 605 distinct (question, key, wrong answer). Each read
blind by helper agents (two halves, shuffled; they saw the question, key, sentence and wrong
answer, not the check): "same" (of the kind the question asks for, as the key), "other"
(another kind, or no answer), "right" (right too). Studied: those the app checks no kind of
today (no kind named, not "Where", the key not typed a person or place, not a number or a
date). The prompt (`KIND_PROMPT`, four general-knowledge examples) was written on 13 of the
bench's keys before any case was read.

Run: PYTHONPATH=app .venv/bin/python studies/key_kinds.py OUT.jsonl ROWS.json LABELS.jsonl...
     then: studies/key_kinds.py bootstrap OUT.jsonl
"""

import json
import random
import sys
import time
from collections import Counter
from pathlib import Path

from study_passages import passage_interval

from quizsmith.generation import distractor_kinds as kinds
from quizsmith.generation.analysis import parse_phrase
from quizsmith.generation.answer_kinds import kind_of
from quizsmith.generation.key_kinds import KEY_AFFIRMS_KIND, said_kind
from quizsmith.providers import provider_for
from quizsmith.settings import Settings

OUT = Path(__file__).with_suffix(".jsonl")


def current_kind(question: str, key: str) -> str | None:
    """The kind the app checks today where a question stands alone (`wrong_answer_sets`)."""
    asked = kinds.kind_of_stems([question])
    if asked:
        return asked
    if kinds.kind_asked_of_key(question) == kinds.PLACE:
        return kinds.PLACE
    key_c = parse_phrase(key)
    return kinds.kind_of_entity(key_c.group if key_c else None)


def main(out_path: str, rows_path: str, label_paths: list[str]) -> None:
    rows = {r["id"]: r for r in json.loads(Path(rows_path).read_text(encoding="utf-8"))}
    labels = {}
    for path in label_paths:
        for line in Path(path).read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            labels[row["id"]] = row["label"]
    qa = provider_for(str(Settings(profile="standard", n_threads=2).role("qa")), Settings())
    started = time.perf_counter()
    derived: dict[tuple[str, str], str | None] = {}
    key_reads: dict[tuple[str, str], float] = {}
    tally: Counter = Counter()
    with Path(out_path).open("w", encoding="utf-8") as out:
        for i in sorted(rows):
            r = rows[i]
            q, key, wrong = r["question"], r["key"], r["wrong"]
            if kind_of(key) != "phrase" and kind_of(key) != "name":
                continue  # numbers and dates: the form checks
            if current_kind(q, key):
                continue
            key_c = parse_phrase(key)
            if key_c is not None and key_c.kind not in ("phrase", "term", "name"):
                continue  # a count ("four ways", "one"): the form checks, as in the app
            group = "phrase" if key_c is None or key_c.kind != "name" else key_c.group
            if (q, key) not in derived:
                derived[(q, key)] = said_kind(qa, q, key)
            kind = derived[(q, key)]
            row = {**r, "label": labels[i], "key_group": group, "kind": kind}
            if kind is not None:
                check = kinds.kind_reading(qa, kind)
                if (kind, key) not in key_reads:
                    key_reads[(kind, key)] = check.says_yes(key)
                key_read = key_reads[(kind, key)]
                bar = max(min(0.0, key_read) - kinds.KIND_MARGIN, kinds.KIND_FLOOR)
                reading = check.says_yes(wrong)
                row.update(key_reading=round(key_read, 2), reading=round(reading, 2))
                # Without the key's own Yes (the first variant), and as shipped.
                row["dropped_any"] = reading < bar
                row["dropped"] = reading < bar and key_read >= KEY_AFFIRMS_KIND
            else:
                row["dropped_any"] = row["dropped"] = False
            tally[(group == "phrase", labels[i], row["dropped"])] += 1
            out.write(json.dumps(row, ensure_ascii=False) + "\n")
            out.flush()
    print(f"{len(derived)} keys, {time.perf_counter() - started:.0f} s")
    for phrase in (True, False):
        print("phrase keys" if phrase else "names of other types")
        for label in ("same", "other", "right"):
            dropped = tally[(phrase, label, True)]
            n = dropped + tally[(phrase, label, False)]
            print(f"  {label}: dropped {dropped} of {n}")


def bootstrap(path: str = str(OUT)) -> None:
    """Shares dropped with 95% intervals, bootstrap over passages (the row's source)."""
    cases = [json.loads(line) for line in Path(path).read_text(encoding="utf-8").splitlines()]
    rng = random.Random(0)
    for phrase in (True, False):
        part = [c for c in cases if (c["key_group"] == "phrase") == phrase]
        passages = len({c["src"].split("#")[0] for c in part})
        for label in ("same", "other", "right"):

            def share(sample, label=label, field="dropped"):
                of = [c for c in sample if c["label"] == label]
                return sum(c[field] for c in of) / max(1, len(of))

            low, high = passage_interval(part, lambda c: c["src"].split("#")[0], share, rng)
            n = sum(c["label"] == label for c in part)
            print(
                f"{'phrase' if phrase else 'name'} {label}: n={n} dropped {share(part):.0%} "
                f"[{low:.0%}, {high:.0%}] over {passages} passages "
                f"(without the key's own Yes: {share(part, field='dropped_any'):.0%})"
            )


if __name__ == "__main__":
    if sys.argv[1] == "bootstrap":
        bootstrap(*sys.argv[2:3])
    else:
        main(sys.argv[1], sys.argv[2], sys.argv[3:])
