"""Does pysbd end a sentence where a web page's citation mark follows its stop, and does
reading each paragraph without its marks (`web_marks.unmarked`) make the sentences those of
the same text without marks?

A bench passage pasted from a web page gave "It was added to the UNESCO World Heritage List in
1985.[14] The Aqueduct of Segovia in Spain, ..." as one sentence, and the model asked when
the Aqueduct of Segovia was listed (the Pont du Gard's year). The study passages (QGEval's,
NACo's SQuAD contexts, CELA's) are clean text: pysbd's sentences of each are the reference.
A mark is put after the stop of about half the sentences, as Wikipedia does ("[n]",
seeded), and each way of splitting is asked to find the reference's sentence ends. The
passages that hold marks of their own (some SQuAD contexts do) are compared old against
new, each changed sentence in `web_mark_sentences.jsonl`.

    PYTHONPATH=app .venv/bin/python studies/web_mark_sentences.py
"""

import random
from pathlib import Path

from study_passages import cela, qgeval, squad, write_rows

from quizsmith.generation import sentences
from quizsmith.generation.sentences import split_sentences
from quizsmith.generation.web_marks import masked

ROWS = Path(__file__).with_suffix(".jsonl")


def old_split(text: str) -> list[sentences.Sentence]:
    """`split_sentences` as it was: each paragraph read with its marks."""
    unmarked = sentences.unmarked
    sentences.unmarked = lambda t: (t, list(range(len(t) + 1)))
    try:
        return split_sentences(text)
    finally:
        sentences.unmarked = unmarked


def old_ends(text: str) -> list[int]:
    """Sentence ends as before: pysbd on the text as pasted, marks and all."""
    return [s.end for s in old_split(text)]


def with_marks(text: str, rng: random.Random) -> tuple[str, list[int]]:
    """`text` with a mark after the stop of about half its sentences, and where each marked
    sentence's stop now is."""
    pieces, stops, at, n = [], [], 0, 0
    for end in old_ends(text)[:-1]:
        pieces.append(text[at:end])
        at = end
        if rng.random() < 0.5:
            n += 1
            stops.append(sum(map(len, pieces)))
            pieces.append(f"[{n}]")
    pieces.append(text[at:])
    return "".join(pieces), stops


def main() -> None:
    rng = random.Random(0)
    found = {"old": 0, "new": 0}
    marked = 0
    rows = []
    unchanged = 0
    for source, texts in (("qgeval", qgeval()), ("squad", squad()), ("cela", cela())):
        for raw in texts:
            text = " ".join(raw.split())
            web, stops = with_marks(text, rng)
            marked += len(stops)
            new = [s.end for s in split_sentences(web)]
            old = old_ends(web)
            for name, ends in (("old", old), ("new", new)):
                # found: a sentence ends at the stop, or after the mark right after it
                found[name] += sum(
                    any(stop <= e <= stop + len(web[stop:].split(" ")[0]) for e in ends)
                    for stop in stops
                )
            # The passage as it came: where it has marks of its own, what changes.
            before = [s.text for s in old_split(raw)]
            after = [s.text for s in split_sentences(raw)]
            if before == after:
                unchanged += 1
                continue
            rows.append(
                {
                    "source": source,
                    "before": [b for b in before if b not in after],
                    "after": [a for a in after if a not in before],
                }
            )
    print(f"sentence stops with a mark after them: {marked}")
    print(f"found by pysbd on the text as pasted: {found['old']}; without marks: {found['new']}")
    print(f"passages as they came: {unchanged} split the same, {len(rows)} differently")
    write_rows(ROWS, rows)
    stray = sum(1 for r in rows for b in r["before"] if not masked(b).strip())
    print(f"of the sentences no longer made, {stray} were a mark alone")


if __name__ == "__main__":
    main()
