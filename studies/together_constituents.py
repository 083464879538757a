"""Study (concluded, not kept; docs/generation.md, "Tried and not kept"): may a chat model's
question with its own answer choose that answer among the fact's constituents (a JSON-schema
enum the sampler must keep to) instead of writing it freely?

Today (`writer.propose_question_and_answer`) the 1.5B model writes a question and a free
answer; where the answer is no whole constituent of the fact the question is dropped, and
about half of all facts give nothing (pipeline.CHAT_SPARE_TARGETS): each such call costs
~2.5 s of a quiz. Variants, on the same facts and seeds:
- free: today's prompt and schema;
- enum: the same prompt, the answer an enum of the fact's constituents (question first);
- (a pilot, code not kept: the same enum with the answer written before the question wrote
  statements or the fact's words on 8 of 20 facts, written passages 0-9);
- opening: today's prompt and schema, with the passage's first statement shown as the lines
  before a fact that has none of its own (`antecedents`), so the question can name what the
  passage is about (run on the first 282 facts, then stopped for time).

Facts: the first targets the app would choose (`app_targets`) of the encyclopedia-style
passages helper agents wrote for the project (`written_passages.json`), none read for this.
Each variant's question goes through the app's checks as `builder._together` applies them
(the stem checks; the answer a whole constituent of the fact; not one of a list). Rows with
each variant's question, answer and outcome go to together_constituents.jsonl. Readings:
the questions the enum kept where the free answer was dropped ("converted"), and those both
kept alike ("both"), shuffled together and unmarked, read blind by four helper agents (question
and key against the passage: usable / needs a fix / bad; the rubric in `report`'s docstring),
written into the rows ("read", "read_why").

    PYTHONPATH=app .venv/bin/python studies/together_constituents.py [--passages 160] [--per 3]
    .venv/bin/python studies/together_constituents.py --report
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from study_passages import (  # noqa: E402
    app_targets,
    earlier_readings,
    label_share,
    record,
    standard_model,
    study_arguments,
    together_outcome,
    write_rows,
    written_passages,
)

ROWS = HERE / "together_constituents.jsonl"
VARIANTS = ("free", "enum", "opening")
#: The variants run by default ("opening" ran on the first 282 facts alone, `--variants`).
DEFAULT_VARIANTS = ("free", "enum")


def askable_texts(analysis, target) -> list[str]:
    """The fact's constituents and whole phrases, as the passage spells them."""
    from quizsmith.generation.analysis import whole_phrases

    texts = [
        c.text
        for c in analysis.constituents
        if target.fact_start <= c.start and c.end <= target.fact_end
    ]
    texts += [
        analysis.text[a:b] for a, b in whole_phrases(analysis, target.fact_start, target.fact_end)
    ]
    # llama-cpp-python's JSON-schema converter writes an enum value holding a double quote or
    # a backslash into a grammar it cannot parse, and sampling with it crashes the process
    # (studies/answer_choices.py): such phrases stay out of the enum.
    return list(dict.fromkeys(t for t in texts if t.strip() and '"' not in t and "\\" not in t))


def schema_for(variant: str, choices: list[str]) -> dict:
    from quizsmith.generation import prompts

    if variant in ("free", "opening"):
        return prompts.QUESTION_ANSWER_SCHEMA
    properties = dict(prompts.QUESTION_ANSWER_SCHEMA["properties"])
    properties["answer"] = {"type": "string", "enum": choices}  # the question still first
    return {**prompts.QUESTION_ANSWER_SCHEMA, "properties": properties}


def ask(provider, analysis, target, variant: str, seed: int) -> dict:
    from quizsmith.generation import writer
    from quizsmith.generation.antecedents import antecedent_text, context_before

    # "opening": the lines the app now shows (the first statement where a fact points back
    # to nothing); the other variants saw the lines a fact points back to only.
    before = (context_before if variant == "opening" else antecedent_text)(
        analysis, target.sentence_index
    )
    started = time.perf_counter()
    written, answer = writer.propose_question_and_answer(
        provider,
        target.fact,
        difficulty=None,
        seed=seed,
        before=before,
        schema=schema_for(variant, askable_texts(analysis, target)),
    )
    seconds = time.perf_counter() - started
    stem = written.text or ""
    followed, outcome = together_outcome(analysis, target, written, answer)
    return {
        "question": stem,
        "answer": followed.answer if followed else answer,
        "outcome": outcome,
        "seconds": round(seconds, 2),
    }


def groups(rows: list[dict]) -> dict[str, list[dict]]:
    """Per fact, the row read for it: "converted" (the enum's, where only it was kept), "both"
    (the enum's, where both kept the same question and key), "other" (the rest, read too)."""
    by: dict[tuple, dict] = {}
    for r in rows:
        by.setdefault((r["passage"], r["fact"]), {})[r["variant"]] = r
    out: dict[str, list[dict]] = {"converted": [], "both": [], "other": []}
    for pair in by.values():
        free, enum = pair.get("free"), pair.get("enum")
        if not (free and enum and "read" in enum):
            continue
        same = (free["question"], free["answer"]) == (enum["question"], enum["answer"])
        if enum["outcome"] == "kept" and free["outcome"] != "kept":
            out["converted"].append(enum)
        elif enum["outcome"] == "kept" and free["outcome"] == "kept" and same:
            out["both"].append(enum)
        else:
            out["other"].append(enum)
    return out


def report() -> None:
    """The facts each variant kept a question for, and the readings. Rubric (given to the
    readers with the passage, the question and its key): usable when the question is
    grammatical and stands on its own, the passage answers it, and the key is right and is
    exactly what it asks for; needs a fix when one small edit (a word or two of the question
    or the key) makes it so; else bad."""
    import random

    rows = [json.loads(line) for line in ROWS.read_text(encoding="utf-8").splitlines()]
    rng = random.Random(0)

    def passage_of(r: dict) -> str:
        return r["passage"]

    for variant in DEFAULT_VARIANTS:
        mine = [dict(r, read=r["outcome"] == "kept") for r in rows if r["variant"] == variant]
        n, share, low, high = label_share(mine, True, passage_of, rng)
        secs = sorted(r["seconds"] for r in mine)
        print(
            f"{variant}: kept {n} of {len(mine)} facts ({share:.0%} [{low:.0%}, {high:.0%}]), "
            f"median {secs[len(secs) // 2]} s a call"
        )
    for name, cases in groups(rows).items():
        if not cases:
            continue
        counts = []
        for label in ("usable", "fix", "bad"):
            n, share, low, high = label_share(cases, label, passage_of, rng)
            counts.append(f"{label} {n} ({share:.0%} [{low:.0%}, {high:.0%}])")
        print(f"{name}, {len(cases)} read: " + ", ".join(counts))
    opening_report(rows, rng)


def opening_report(rows: list[dict], rng) -> None:
    """The "opening" variant against "free" on the facts both ran: how many kept a question,
    and, where the two questions differ, the second readings ("read_b": both versions of
    each such fact shuffled together, unmarked, by three more helper agents)."""
    by: dict[tuple, dict] = {}
    for r in rows:
        by.setdefault((r["passage"], r["fact"]), {})[r["variant"]] = r
    pairs = [v for v in by.values() if "free" in v and "opening" in v]
    if not pairs:
        return
    for variant in ("free", "opening"):
        kept = sum(v[variant]["outcome"] == "kept" for v in pairs)
        print(f"{variant} on the {len(pairs)} facts both ran: kept {kept}")
    for variant in ("free", "opening"):
        cases = [v[variant] for v in pairs if "read_b" in v[variant]]
        counts = []
        for label in ("usable", "fix", "bad"):
            n, share, low, high = label_share(cases, label, lambda r: r["passage"], rng, "read_b")
            counts.append(f"{label} {n} ({share:.0%} [{low:.0%}, {high:.0%}])")
        print(f"{variant} where the questions differ, {len(cases)} read: " + ", ".join(counts))


def main() -> None:
    parser = study_arguments(per=3)
    parser.add_argument("--variants", default=",".join(DEFAULT_VARIANTS))
    args = parser.parse_args()
    if args.report:
        report()
        return
    provider = standard_model("generator")
    passages = written_passages()
    # Every other passage in the file's order: all six subjects, none picked by their facts.
    chosen = passages[:: max(1, len(passages) // args.passages)][: args.passages]
    earlier = earlier_readings(ROWS, "passage", "fact", "variant")
    rows = []
    partial = ROWS.with_suffix(".partial.jsonl")
    partial.unlink(missing_ok=True)
    for p in chosen:
        analysis, targets = app_targets(p["text"], args.per)
        for i, target in enumerate(targets):
            for variant in args.variants.split(","):
                row = {
                    "passage": p["name"],
                    "fact": target.fact,
                    "target": target.answer,
                    "variant": variant,
                    **ask(provider, analysis, target, variant, seed=i),
                }
                old = earlier.get((row["passage"], row["fact"], variant), {})
                record(row, old, ("question", "answer"), rows, partial)
    # The rows of variants not run this time stay (a variant added later runs alone).
    run = set(args.variants.split(","))
    kept = [r for r in earlier.values() if r["variant"] not in run]
    write_rows(ROWS, kept + rows)
    partial.unlink()
    for variant in args.variants.split(","):
        mine = [r for r in rows if r["variant"] == variant]
        kept = sum(r["outcome"] == "kept" for r in mine)
        secs = sorted(r["seconds"] for r in mine)
        print(f"{variant}: kept {kept} of {len(mine)}; median {secs[len(secs) // 2]} s")


if __name__ == "__main__":
    main()
