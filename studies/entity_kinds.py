"""Study: does the QA model's "Is X a <kind>?" check, asked with the kind the parser gives
the key's entity ("Is Ludwig van Beethoven a place?" for a key the passage names as a
place), drop wrong answers of another entity type and keep those of the key's (issue 44)?

Today the check runs only where a question names the kind it asks for ("Which playwright
...?"); a "Where ...?" or "What ...?" question naming none let a composer stand among places
(bench/results/generation-readings.txt, standard items 7 and 8).

On QGEval passages (shuffled, seed 1; none written for this), the passage analysis gives
each named entity its group (a person, a place, an organisation ...). For each group a
passage names, its first entity is the key; the passage's other entities of that group are
answers of the key's kind, and its entities of other groups answers of another kind (the
parser's labels in context are the reference: a sample of disagreements is printed to be
read). Each is read with `distractor_kinds.kind_reading` and the shipped bar (KIND_MARGIN
below the key, not below KIND_FLOOR). Per-case readings go to studies/entity_kinds.jsonl.

Result (2026-11-29, 150 passages, 574 s, 1.5B model on 2 cores): of candidates the parser types
as another kind, 208 of 301 dropped for a person key, 131 of 266 for a place; of those typed
as the key's kind, 23 of 161 and 9 of 131, and read one by one 30 of those 32 are parser
errors (places, bands, works typed as persons), 2 real persons lost (Boyle, Dr Pomatter).
Organisations: 51 of 158 of the key's kind dropped; nationalities 23 of 53: not shipped.
Shipped for persons and places (`distractor_kinds.ENTITY_KINDS`; docs/generation.md, step 5).

Run: .venv/bin/python studies/entity_kinds.py [PASSAGES]
"""

from __future__ import annotations

import json
import random
import sys
import time
from collections import defaultdict
from pathlib import Path

from quizsmith.generation import analysis as an
from quizsmith.generation.distractor_kinds import KIND_FLOOR, KIND_MARGIN, kind_reading
from quizsmith.providers import provider_for
from quizsmith.settings import Settings

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "qgeval" / "instances.json"
OUT = Path(__file__).with_name("entity_kinds.jsonl")
#: The kind word asked for each entity group (the parser's labels, places merged).
KIND_WORDS = {
    "name:PERSON": "person",
    "name:place": "place",
    "name:ORG": "organization",
    "name:NORP": "nationality",
    "name:EVENT": "event",
    "name:WORK_OF_ART": "work of art",
    "name:LAW": "law",
    "name:LANGUAGE": "language",
    "name:PRODUCT": "product",
}


def main(limit: int) -> None:
    rows = json.loads(DATA.read_text(encoding="utf-8"))
    passages = list(dict.fromkeys(r["passage"] for r in rows if "<sep>" not in r["passage"]))
    random.Random(1).shuffle(passages)
    qa = provider_for(str(Settings(profile="standard", n_threads=2).role("qa")), Settings())
    started = time.perf_counter()
    # per group: same kind, same kind dropped, another kind, another kind dropped
    tally: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0])
    with OUT.open("w", encoding="utf-8") as out:
        for p, text in enumerate(passages[:limit]):
            names = [c for c in an.analyse(text).constituents if c.kind == "name"]
            by_group: dict[str, list[str]] = defaultdict(list)
            for c in names:
                if c.text.casefold() not in {t.casefold() for t in by_group[c.group]}:
                    by_group[c.group].append(c.text)
            for group, texts in by_group.items():
                word = KIND_WORDS.get(group)
                if word is None:
                    continue
                key, same = texts[0], texts[1:3]
                others = [t for g, ts in by_group.items() if g != group for t in ts[:1]][:3]
                if not same and not others:
                    continue
                check = kind_reading(qa, word)
                key_reading = check.says_yes(key)
                bar = max(min(0.0, key_reading) - KIND_MARGIN, KIND_FLOOR)
                for label, answers in (("same", same), ("other", others)):
                    for answer in answers:
                        reading = check.says_yes(answer)
                        dropped = reading < bar
                        counts = tally[group]
                        at = 0 if label == "same" else 2
                        counts[at] += 1
                        counts[at + 1] += dropped
                        out.write(
                            json.dumps(
                                {
                                    "passage": p,
                                    "group": group,
                                    "kind": word,
                                    "key": key,
                                    "key_reading": round(key_reading, 2),
                                    "answer": answer,
                                    "answer_kind": label,
                                    "reading": round(reading, 2),
                                    "dropped": dropped,
                                },
                                ensure_ascii=False,
                            )
                            + "\n"
                        )
            out.flush()
    print(f"{limit} passages, {time.perf_counter() - started:.0f} s")
    print("group | key's kind: dropped / n | another kind: dropped / n")
    for group, (s, sd, o, od) in sorted(tally.items()):
        print(f"{group} | {sd} / {s} | {od} / {o}")
    s = sum(v[0] for v in tally.values())
    sd = sum(v[1] for v in tally.values())
    o = sum(v[2] for v in tally.values())
    od = sum(v[3] for v in tally.values())
    print(f"all | {sd} / {s} | {od} / {o}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 120)
