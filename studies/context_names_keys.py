"""How often do the lines shown before a fact that points back name an earlier item's key?

A chat model reads a fact that points back ("She described a machine ...") with the
sentences before it (`antecedents.antecedent_text`) and names what they speak of in most
of its questions (13 of 17 with its own answer, 33 of 37 answer-aware, in
`pronoun_context`). Where that is an earlier item's key, the question gives that item away:
the interlocking `pipeline._passes` already makes a fact wait where its own sentence names
the key. This counts, for the first five targets the app
chooses on QGEval passages (in the order it asks them, each taken as made), the targets
that point back, and those whose earlier lines name an earlier target's key while their own
sentence does not. No model runs; rows in `context_names_keys.jsonl`.

Result (2026-11-30, 200 passages, 1,000 targets): 226 point back; 107 of them have an
earlier key in the lines before and not in their sentence (the passage's subject, mostly:
"Sophocles" before "She gives a stirring speech ...", "Guo Shoujing" before "He was one of
the first mathematicians ...").

    PYTHONPATH=app .venv/bin/python studies/context_names_keys.py [PASSAGES]
"""

import sys
from pathlib import Path

from study_passages import app_targets, qgeval, write_rows

from quizsmith.generation.antecedents import antecedent_text
from quizsmith.generation.pipeline import given_away

ROWS = Path(__file__).with_suffix(".jsonl")


def main() -> None:
    passages = qgeval()[: int(sys.argv[1]) if len(sys.argv) > 1 else 200]
    rows, targets_seen = [], 0
    for p, text in enumerate(passages):
        analysis, targets = app_targets(text, 5)
        keys: list[str] = []
        for target in targets:
            targets_seen += 1
            before = antecedent_text(analysis, target.sentence_index)
            if before:
                named = [k for k in keys if given_away(k, [before])]
                in_fact = [k for k in keys if given_away(k, [target.fact])]
                rows.append(
                    {
                        "passage": p,
                        "fact": target.fact,
                        "before": before,
                        "keys_named": named,
                        "keys_in_fact": in_fact,
                    }
                )
            keys.append(target.answer)
    write_rows(ROWS, rows)
    only_before = sum(bool(r["keys_named"]) and not r["keys_in_fact"] for r in rows)
    print(
        f"{len(passages)} passages, {targets_seen} targets, {len(rows)} point back, "
        f"{only_before} with an earlier key in the lines before and not in their sentence"
    )


if __name__ == "__main__":
    main()
