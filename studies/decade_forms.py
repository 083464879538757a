"""Study: do a decade's wrong answers keep its form ("the 1930s" for "the 1920s"), and does a
year keep years beside it? Seen in `wrong_answer_examples`' readings: "1920s" got "1889s",
"1909s", "1898s" (nearby values moved by years), "early 1640s" got "early 1651s".

No model: every constituent the analysis reads as a year (`answer_kinds.kind_of`) in QGEval's,
CELA's and SQuAD's passages and in the passages written for the project (none read for this
rule). For each decade: its nearby values before the change (by years, the old rule kept
below) and now (`numeric_variants`), and how many are decades; for each year and each decade:
the passage's own candidates of the other form (`same_passage_candidates`), which the filter
now drops as odd by their form ("1925" beside "the 1920s", "1920s" beside 1925).

    PYTHONPATH=app .venv/bin/python studies/decade_forms.py
"""

from __future__ import annotations

import random
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import study_passages as study  # noqa: E402


def by_years(answer: str, rng: random.Random) -> list[str]:
    """The old rule for a decade: its four digits moved by 2-25 years."""
    match = re.search(r"\d{4}", answer)
    assert match
    out = []
    while len(out) < 4:
        new = int(match.group()) + rng.choice([-1, 1]) * rng.randint(2, 25)
        candidate = answer[: match.start()] + str(new) + answer[match.end() :]
        if candidate != answer and candidate not in out:
            out.append(candidate)
    return out


def main() -> None:
    from quizsmith.generation import distractors as dis
    from quizsmith.generation.analysis import analyse

    texts = [
        *study.qgeval(),
        *study.cela(),
        *study.squad(),
        *(p["text"] for p in study.written_passages()),
    ]
    rng = random.Random(0)
    decades = years = 0
    old_decades = new_decades = old_total = new_total = 0
    odd_beside_decade = odd_beside_year = beside_decade = beside_year = 0
    examples: list[str] = []
    for text in texts:
        analysis = analyse(text)
        seen: set[str] = set()
        for c in analysis.constituents:
            if c.text in seen or dis.kind_of(c.text) != "year":
                continue
            seen.add(c.text)
            decade = dis.is_decade_of(c.text)
            others = [
                t
                for t in dis.same_passage_candidates(analysis, c.text, random.Random(0), [])
                if dis.kind_of(t) == "year"
            ]
            odd = [t for t in others if dis.is_decade_of(t) != decade]
            if decade:
                decades += 1
                old = by_years(c.text, rng)
                new = dis.numeric_variants(c.text, random.Random(decades))
                old_total += len(old)
                new_total += len(new)
                old_decades += sum(dis.is_decade_of(v) for v in old)
                new_decades += sum(dis.is_decade_of(v) for v in new)
                beside_decade += len(others)
                odd_beside_decade += len(odd)
                if len(examples) < 8:
                    examples.append(f"{c.text}: before {old}, now {new}, odd in passage {odd}")
            else:
                years += 1
                beside_year += len(others)
                odd_beside_year += len(odd)
    print(f"{len(texts)} passages; {decades} decades, {years} years (distinct per passage)")
    print(
        f"decades' nearby values that are decades: before {old_decades} of {old_total}, "
        f"now {new_decades} of {new_total}"
    )
    print(
        f"the passage's year candidates of the other form (now dropped): beside a decade "
        f"{odd_beside_decade} of {beside_decade}, beside a year {odd_beside_year} of {beside_year}"
    )
    print("\n".join(examples))


if __name__ == "__main__":
    main()
