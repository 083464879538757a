"""Study: the passage's own noun phrases as wrong answers for a key that is a common-noun
phrase ("rock", "the nucleus", "aerobic respiration").

On the generation bench (standard profile, at 7de56d5) the 50 items whose key is such a
phrase read 7 usable, 29 to fix, 14 bad, against 36 of 70 usable for names, numbers and
dates; most faults were wrong answers of another kind, and 77 of their 150 wrong answers were
noun phrases of the passage that are neither the key's fellow list members, nor share its
head noun, nor are terms the passage defines ("Most geologists" for what tectonic plates are
made of, which is another target's answer), written by the model or offered by
`distractors.same_passage_candidates`, which gave a phrase key every phrase constituent of
the passage, the quiz's other answers and the defined terms.

Variants, each through the app's own `builder.build_candidates` (one answer-aware question
for the target's own phrase, its wrong answers with every check; greedy, the standard
profile's 1.5B models):
- now: as the app was at 5da0a8e (every phrase of the passage a candidate: `every_phrase`);
- kin: as the app was at c66704b (`every_phrase(head_only=True)`): for a phrase or term
  key, the passage's other phrases only where they share its head noun; its fellow list
  members, the defined terms and the quiz's other answers as before; the model's
  candidates as before;
- strict: as kin, and the defined terms and the quiz's other answers only where
  `wrong_answer_sets.unlike_the_key` does not mark them (the key's head noun or the noun
  the passage calls it; a term beside a term). The app keeps them, last, instead
  (studies/other_answers_kind.py).
Passages: NACo's SQuAD contexts (studies/study_passages.py), none written for either variant;
of the first 6 targets `choose_targets` picks per passage, up to 3 whose answer is a phrase
or a term.
Per case and variant: question, key, wrong answers with their sources, what was dropped, to
OUT.jsonl. studies/phrase_wrong_answers.jsonl holds one line per case (both variants) with
my readings of every case that made an item in either (read_now, read_kin: usable, fix, bad
or lost, i.e. not made; better: which variant's item is better; why): one reader, who knew
which variant was which. An item is usable when question, key and all three wrong answers
hold; to fix when one wrong answer fails, or the stem wants a small edit and none fails; bad
otherwise.

Run on passages 0..199 (259 cases, 141 passages with a phrase
target; 73 cases made an item in either variant, from 58 passages). Passages 0..119 ran on
5da0a8e's app with "kin" written as a filter over "now"'s list (the same candidates; the
same-head phrases in another shuffled order), 120..199 on c66704b's, with the app's function
itself.

Result (intervals: 95%, bootstrap over the 58 passages): now 73 items, 58 bad (79% [69%,
89%]), 10 to fix, 5 usable; kin 49 items, 23 bad (47% [32%, 62%]), 16 to fix, 10 usable; the
24 items kin did not make all read bad under now. Item by item kin is better 37 times, now 2,
the same set 22, both bad and neither better 12. Shipped (`distractors.
same_passage_candidates`). Not tried on 100 cases: the defined terms and the quiz's other
answers kept whatever their kind (both of now's 2 wins are of that: "chopin" and "works"
beside "rubato"); the "strict" variant drops those `unlike_the_key` marks; measured on
other passages (studies/other_answers_kind.py), the app puts them last instead.
Run: PYTHONPATH=app .venv/bin/python studies/phrase_wrong_answers.py OUT.jsonl FROM TO [VARIANTS]
"""

import json
import sys
import time
from pathlib import Path
from typing import Any

from study_passages import squad

from quizsmith.domain import Passage
from quizsmith.generation import distractors as dis
from quizsmith.generation.analysis import analyse
from quizsmith.generation.build_context import BuildContext
from quizsmith.generation.builder import build_candidates
from quizsmith.generation.constituent_targets import passage_targets
from quizsmith.generation.targets import choose_targets
from quizsmith.generation.wrong_answer_sets import unlike_the_key
from quizsmith.jobs import CancelToken
from quizsmith.providers.manager import provider_for_role
from quizsmith.settings import Settings

PHRASE_KINDS = ("phrase", "term")


def every_phrase(analysis, key, rng, others=(), head_only=False):
    """`distractors.same_passage_candidates` as it was at 5da0a8e: every constituent of the
    key's group, for a phrase key every noun phrase of the passage; with `head_only`, as it
    was at c66704b ("kin"): a phrase key's other phrases only where they share its head
    noun, the terms and other answers whatever their kind."""
    key_c = analysis.find(key) or dis.parse_phrase(key)
    siblings = analysis.siblings(key)
    wanted = key.casefold()
    rest = [
        c.text
        for c in analysis.constituents
        if c.text.casefold() != wanted
        and c.text not in siblings
        and key_c is not None
        and c.group == key_c.group
        and not (head_only and key_c.kind in PHRASE_KINDS and c.head != key_c.head)
    ]
    rest = list(dict.fromkeys(rest))
    rng.shuffle(rest)
    terms = [t for t in [*analysis.terms, *others] if t.casefold() != wanted and t not in siblings]
    return list(dict.fromkeys([*siblings, *rest, *terms]))


def kin_candidates(analysis, key, rng, others=()):
    return every_phrase(analysis, key, rng, others, head_only=True)


def strict_candidates(analysis, key, rng, others=()):
    marked = {*others, *analysis.terms}
    found = kin_candidates(analysis, key, rng, others)
    unlike = set(unlike_the_key(analysis, key, [t for t in found if t in marked]))
    return [t for t in found if t not in unlike]


VARIANTS = {"now": every_phrase, "kin": kin_candidates, "strict": strict_candidates}


class Remembered:
    """A provider whose chat replies are kept: the variants share the question and the
    model's wrong answers (greedy, so the same anyway), and pay only for what differs."""

    def __init__(self, inner: Any) -> None:
        self._inner, self._seen = inner, {}

    def chat(self, *args: Any, **kwargs: Any) -> Any:
        key = repr((args, sorted(kwargs.items())))
        if key not in self._seen:
            self._seen[key] = self._inner.chat(*args, **kwargs)
        return self._seen[key]

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


def source(analysis, key: str, text: str) -> str:
    c = analysis.find(text)
    key_c = analysis.find(key)
    if text.casefold() in {s.casefold() for s in analysis.siblings(key)}:
        return "sibling"
    if text.casefold() in {t.casefold() for t in analysis.terms}:
        return "term"
    if c is None:
        return "model"
    if key_c is not None and c.head == key_c.head:
        return "head"
    return "chunk"


def main() -> None:
    out = Path(sys.argv[1])
    first, last = int(sys.argv[2]), int(sys.argv[3])
    variants = sys.argv[4].split(",") if len(sys.argv) > 4 else ["now", "kin"]
    settings = Settings(n_threads=2, profile="standard")
    gen = Remembered(provider_for_role("generator", settings))
    qa = provider_for_role("qa", settings)
    embed = provider_for_role("embeddings", settings).embed
    rows = [json.loads(line) for line in out.read_text().splitlines()] if out.exists() else []
    done = {r["id"] for r in rows}
    for pi, text in enumerate(squad()[first:last], first):
        analysis = analyse(text)
        targets = choose_targets(
            passage_targets(analysis), 6, passage_text=text, sentences=analysis.sentences
        )
        phrase_targets = [
            t
            for t in targets
            if (c := analysis.find(t.answer)) is not None and c.kind in PHRASE_KINDS
        ][:3]
        for ti, target in enumerate(phrase_targets):
            for variant in variants:
                rid = f"{pi}#{ti}:{variant}"
                if rid in done:
                    continue
                dis.same_passage_candidates = VARIANTS[variant]
                ctx = BuildContext(
                    passage=Passage(text=text, title=f"squad-{pi}"),
                    generator=gen,
                    profile="chat",
                    embed=embed,
                    qa=qa,
                    cancel=CancelToken(),
                    difficulty=None,
                    seed=0,
                    passage_answers=list(dict.fromkeys(t.answer for t in targets)),
                    passage_terms=dict(analysis.terms),
                    qa_knows_kinds=True,
                    answer_aware=True,
                )
                started = time.perf_counter()
                built = build_candidates(target, "mcq", 1, ctx)
                item = built.candidates[0] if built.candidates else None
                row = {
                    "id": rid,
                    "fact": target.fact,
                    "question": item.stem if item else None,
                    "key": target.answer,
                    "wrong": [
                        [d, source(analysis, target.answer, d)]
                        for d in (item.distractors if item else [])
                    ],
                    "notes": built.notes,
                    "seconds": round(time.perf_counter() - started, 2),
                }
                rows.append(row)
                with out.open("a", encoding="utf-8") as f:
                    f.write(json.dumps(row) + "\n")
                print(rid, row["question"], row["key"], row["wrong"], flush=True)


if __name__ == "__main__":
    main()
