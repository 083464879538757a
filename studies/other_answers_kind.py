"""Study: the defined terms and the quiz's other answers as wrong answers for a phrase key.

`distractors.same_passage_candidates` gives a common-noun phrase key the passage's other
phrases only where they share its head noun (studies/phrase_wrong_answers.py), but it still
adds every term the passage defines and every other answer of the quiz, whatever their kind
("chopin" and "works" beside "rubato"; "Most geologists" among the materials of tectonic
plates; "meanders" and "levées" among a river's movements, on the generation bench). The
"strict" variant keeps those only where they share the key's head noun or the noun the
passage calls the key.

Question: of the term and other-answer candidates a phrase key gets, how many are of the
key's kind, and which does "strict" keep?

Passages: NACo's SQuAD contexts 200..634 (studies/study_passages.py): the rule was written
after reading cases of passages 0..199, so none of these was seen. Per passage the targets
`choose_targets` picks (6, as the study before), the quiz's other answers being their
answers; every target whose key is a phrase or a term is a case. No model runs: the
candidates are those that pass `distractors.kind_and_form` (the parser's form check, which
already drops a date or a name offered for a phrase), before any model's reading.

Reading: the first 160 of these candidates in a shuffled order, and the first 60 defined
terms after them (terms are rare: 6 of the 160), each shown with the key and
its sentence but not with the variant's decision (blind), read as "same" (a wrong answer of
the key's kind a teacher would set beside it for a question asking for the key in that
sentence), "alias" (the key in other words: right too) or "other" (another kind of thing, a
cut, a heading). Readings in studies/other_answers_kind.jsonl; one reader.

Listed: 3,184 such candidates for 854 phrase keys of 435 passages (3,032 other answers,
152 terms). Read (95% bootstrap intervals over the 132 passages): of 220, 28 same (13% [7%,
20%]), 11 alias (5% [0%, 12%]), 181 other (82% [74%, 91%]). By source: of the 154 other
answers 11 same, 143 other (93%); of the 66 terms 17 same, 11 alias, 38 other. Strict keeps
4 of the 220 (1 same). The terms split by key: for a key the passage defines too, 12 same,
8 alias, 5 other of 25 (its fellow terms: "sire" and "dam", "Fort Karl" and "Fort Oscar");
for a plain phrase key, 5 same, 3 alias, 33 other of 41. The rule chosen after this
reading: strict, except that a term the passage defines is alike to its other terms.
Checked on the 24 term-key term candidates not yet read (batch 3, read after the choice):
18 same, 1 alias, 5 other; but they come from the same few passages (dog breeding, Buddhist
terms, titles of prime ministers), so this is weak evidence. On the 220: it marks 194 as
unlike (175 other, 16 same, 3 alias): 90% of what it marks is of another kind, and 16
wrong answers of the key's kind are marked too.

Shipped as an order, not a filter (`wrong_answer_sets.unlike_the_key`; the marked ones stand
in last, where the model's and the passage's own fall short): dropped outright (a2d57e4),
they cost the generation bench's sonnet passage two of its five items, which were remade
from weaker facts ("little song" asked as an Italian word), and its time went from 133 s
to 756 s, far beyond the machine's slowness that day (1.6-2.2x, bench/providers.py and the
first passage); the wrong answers they had filled were the third of a set, and no third
meant no item.

Run: PYTHONPATH=app .venv/bin/python studies/other_answers_kind.py list OUT.jsonl
     then read, then: studies/other_answers_kind.py score OUT.jsonl READINGS.tsv
     (READINGS.tsv: id, reading, batch)
"""

import csv
import json
import random
import sys
from collections import Counter
from pathlib import Path

from phrase_wrong_answers import kin_candidates
from study_passages import label_share, squad

from quizsmith.generation import distractors as dis
from quizsmith.generation.analysis import analyse
from quizsmith.generation.constituent_targets import passage_targets
from quizsmith.generation.targets import choose_targets
from quizsmith.generation.wrong_answer_sets import nouns_called

PHRASE_KINDS = ("phrase", "term")


#: The "strict" variant's test for a term or other answer: it shares the key's head noun or
#: the noun the passage calls the key (the app's `unlike_the_key` adds that a term beside a
#: term the passage defines is alike, and that a key's list members are).
def strict_keeps(analysis, key: str, text: str) -> bool:
    return bool(nouns_called(analysis, key) & nouns_called(analysis, text))


def listing(out: Path) -> None:
    rows = []
    for pi, text in enumerate(squad()[200:], 200):
        analysis = analyse(text)
        targets = choose_targets(
            passage_targets(analysis), 6, passage_text=text, sentences=analysis.sentences
        )
        answers = list(dict.fromkeys(t.answer for t in targets))
        for target in targets:
            key_c = analysis.find(target.answer)
            if key_c is None or key_c.kind not in PHRASE_KINDS:
                continue
            found = kin_candidates(
                analysis, target.answer, random.Random(0), [*answers, *analysis.terms]
            )
            siblings = {s.casefold() for s in analysis.siblings(target.answer)}
            same_head = {c.text for c in analysis.constituents if c.head == key_c.head}
            for text_ in found:
                if text_.casefold() in siblings or text_ in same_head:
                    continue  # from the lists or the head noun: not what strict changes
                if dis.kind_and_form(key_c, target.answer, text_, analysis):
                    continue  # the form filter drops it anyway (a date, a name for a phrase)
                source = "term" if text_ in analysis.terms else "other answer"
                rows.append(
                    {
                        "passage": pi,
                        "key": target.answer,
                        "fact": target.fact,
                        "candidate": text_,
                        "source": source,
                        "key_is_term": target.answer in analysis.terms,
                        "strict_keeps": strict_keeps(analysis, target.answer, text_),
                    }
                )
    random.Random(7).shuffle(rows)
    with out.open("w", encoding="utf-8") as f:
        for i, row in enumerate(rows):
            f.write(json.dumps({"id": i, **row}) + "\n")
    print(len(rows), "candidates from", len({(r["passage"], r["key"]) for r in rows}), "keys")


def score(out: Path, readings: Path) -> None:
    """Writes the read candidates with their readings to `readings`.jsonl's sibling and
    prints the shares, with 95% bootstrap intervals over passages."""
    rows = {r["id"]: r for r in map(json.loads, out.read_text().splitlines())}
    with readings.open(encoding="utf-8") as f:
        read = {int(r[0]): r[1:] for r in csv.reader(f, delimiter="\t") if r}
    cases = [dict(rows[i], read=v[0], batch=int(v[1])) for i, v in sorted(read.items())]
    by_kind = Counter(
        (c["batch"], c["source"], "term key" if c["key_is_term"] else "phrase key", c["read"])
        for c in cases
    )
    for row, count in sorted(by_kind.items()):
        print(*row, count)
    kept_file = Path(__file__).with_suffix(".jsonl")
    kept_file.write_text("".join(json.dumps(c) + "\n" for c in cases), encoding="utf-8")
    cases = [c for c in cases if c["batch"] < 3]  # batch 3 was read after the rule was chosen
    passages = sorted({c["passage"] for c in cases})
    rng = random.Random(0)
    for label in ("same", "alias", "other"):
        count, share, low, high = label_share(cases, label, lambda c: c["passage"], rng)
        print(f"{label}: {count} ({share:.0%} [{low:.0%}, {high:.0%}])")
    kept = [c for c in cases if c["strict_keeps"]]
    print(f"n={len(cases)} candidates, {len(passages)} passages; strict keeps {len(kept)}")
    for source in ("term", "other answer"):
        part = [c for c in cases if c["source"] == source]
        counts = {label: sum(c["read"] == label for c in part) for label in ("same", "alias")}
        print(source, len(part), counts, "other:", sum(c["read"] == "other" for c in part))
    for c in kept:
        print("strict keeps:", c["key"], "|", c["candidate"], "|", c["read"])
    # Shipped: strict, and a term the passage defines keeps its other terms.
    shipped = [c["strict_keeps"] or (c["key_is_term"] and c["source"] == "term") for c in cases]
    for keeps in (True, False):
        part = Counter(c["read"] for c, k in zip(cases, shipped, strict=True) if k == keeps)
        print("shipped", "keeps" if keeps else "drops", dict(part))


if __name__ == "__main__":
    if sys.argv[1] == "list":
        listing(Path(sys.argv[2]))
    else:
        score(Path(sys.argv[2]), Path(sys.argv[3]))
