"""Study: should the chat question prompts show worked examples whose fact speaks of what the
earlier lines name ("he" for Alexander Fleming, "the river" for the Nile), and whose question
names it?

A chat question reads the lines before its fact (the passage's first statement, or the lines
a fact points back to: `antecedents.lines_before`), but the prompts' three worked examples
had no earlier lines; questions that name nothing they ask about ("What is the name of the
dam?", "How many people can the theater hold?") were a frequent fault the bench's readers
gave (9 of the 43 bad standard items at 8ad712a), and 48 of 87 "needs a fix" readings in
`together_constituents`. Variants, on the same facts, greedy as the app's first attempt:
- plain: the app's prompts (three worked examples, `prompts._STEM_SHOTS`);
- referents: the same and two more whose fact has earlier lines (`REFERENT_SHOTS` below,
  written in the form of an item's own task, just before the prompts' STEM_CHAT_HEAD_END).

Concluded, not kept (docs/generation.md, "Tried and not kept"): with the two examples the
model named what a fact points back to a little more often, but put the answer in the
question more often too, and fewer facts gave a question; those it gave read no better.

Facts: the first three targets the app would choose (`app_targets`) in passages of two kinds:
encyclopedia-style passages helper agents wrote for the project (`written_passages.json`, from
the 81st on, which earlier studies ran the app on; none read while the examples were written)
and NACo's SQuAD contexts (Wikipedia paragraphs, mid-article), alternately, 30 each. Each fact
goes through the app's question step as `builder` applies it: the question with its own answer
(the stem checks, a whole constituent of the fact, not one of a list, the judge's kind check);
where that is dropped and the fact's kind is one the second pass asks
(`pipeline.ANSWER_AWARE_KINDS`), the answer-aware question with the same checks; then the
passage's subject named (`naming_the_subject`). Rows to question_referents.jsonl; where the two
variants' questions differ, every one kept is read blind by helper agents (question and key
against the passage, the two versions shuffled together and unmarked: usable / needs a fix /
bad, and whether it names what it asks about), written into the rows ("read", "read_names",
"read_why").

    PYTHONPATH=app .venv/bin/python studies/question_referents.py [--passages 60] [--per 3]
    .venv/bin/python studies/question_referents.py --report
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import study_passages as study  # noqa: E402

ROWS = HERE / "question_referents.jsonl"
VARIANTS = ("plain", "referents")

#: The "referents" variant's examples (general knowledge, written for the study): (earlier
#: lines, fact, answer, question); the fact speaks of what the earlier lines name, and the
#: question names it.
REFERENT_SHOTS = (
    (
        "Alexander Fleming was a Scottish doctor and microbiologist.",
        "In 1928 he noticed that a mould growing on one of his dishes had killed the bacteria "
        "around it.",
        "a mould",
        "What did Alexander Fleming notice had killed the bacteria in one of his dishes in 1928?",
    ),
    (
        "The Nile is the longest river in Africa.",
        "Every summer the river flooded, leaving a layer of black silt on the fields along its "
        "banks.",
        "black silt",
        "What did the Nile leave on the fields along its banks when it flooded each summer?",
    ),
)


def with_referent_shots(messages_of):
    """`prompts._question_messages` with REFERENT_SHOTS after its worked examples."""
    from quizsmith.generation.prompts import STEM_CHAT_HEAD_END, earlier_lines
    from quizsmith.prompt_fence import fence

    def messages(rules, shot, task, difficulty, reply):
        out = messages_of(rules, shot, task, difficulty, reply)
        extra = "\n\n".join(
            earlier_lines(before) + shot.format(fact=fence(fact), answer=answer, question=q)
            for before, fact, answer, q in REFERENT_SHOTS
        )
        end = f"\n\n{STEM_CHAT_HEAD_END}"
        out[-1]["content"] = out[-1]["content"].replace(end, f"\n\n{extra}{end}", 1)
        return out

    return messages


#: The written passages from here on: the first 80 were the ones earlier question studies
#: read most (`together_constituents`' "opening" variant, the first 282 facts).
WRITTEN_FROM = 80


def ask(provider, judge, analysis, target, variant: str) -> dict:
    """The app's question for the target's fact with the variant's examples."""
    from quizsmith.generation import distractors as dis
    from quizsmith.generation import prompts, writer
    from quizsmith.generation.antecedents import lines_before
    from quizsmith.generation.passage_subject import naming_the_subject, subject_of
    from quizsmith.generation.pipeline import ANSWER_AWARE_KINDS

    messages_of = prompts._question_messages
    if variant == "referents":
        prompts._question_messages = with_referent_shots(messages_of)
    try:
        started = time.perf_counter()
        before, shared = lines_before(analysis, target.sentence_index)
        written, answer = writer.propose_question_and_answer(
            provider, target.fact, difficulty=None, seed=0, before=before, before_shared=shared
        )
        followed, outcome = study.together_outcome(analysis, target, written, answer, judge)
        key, method = (followed.answer if followed else answer), "together"
        if outcome != "kept" and target.kind in ANSWER_AWARE_KINDS:
            key, method = target.answer, "answer-aware"
            written = writer.write_stem(
                provider,
                "chat",
                target.fact,
                target.answer,
                difficulty=None,
                seed=0,
                temperature=0.0,
                before=before,
                before_shared=shared,
            )
            if written.text is None:
                outcome = f"dropped: {written.reason}"
            elif why := dis.key_of_another_kind(judge, written.text, target.answer, {}):
                outcome = f"dropped: {why}"
            else:
                outcome = "kept"
    finally:
        prompts._question_messages = messages_of
    question = written.text or ""
    if outcome == "kept":
        question = naming_the_subject(question, key, subject_of(analysis))
    return {
        "question": question,
        "answer": key or "",
        "method": method,
        "outcome": outcome,
        "seconds": round(time.perf_counter() - started, 2),
    }


def passages(count: int) -> list[dict]:
    """`count` passages, alternately written for the project and SQuAD's."""
    written = study.written_passages()[WRITTEN_FROM:]
    squad = [{"name": f"squad-{i}", "text": t} for i, t in enumerate(study.squad())]
    mixed = [p for pair in zip(written, squad, strict=False) for p in pair]
    return mixed[:count]


def report() -> None:
    """What each variant kept, and the readings of the kept questions that differ. Rubric
    (given to the readers with the passage, the question and its key): usable when the
    question is grammatical and stands on its own, the passage answers it, and the key is
    right and is exactly what it asks for; needs a fix when one small edit (a word or two of
    the question or the key) makes it so; else bad. "Names it": a student who has not seen
    the passage can tell what the question is about ("the dam", "he", "the university" the
    passage alone makes clear do not)."""
    import random

    rows = [json.loads(line) for line in ROWS.read_text(encoding="utf-8").splitlines()]
    rng = random.Random(0)
    facts = study.by_fact(rows, VARIANTS)
    for variant in VARIANTS:
        mine = [f[variant] for f in facts]
        kept = sum(r["outcome"] == "kept" for r in mine)
        aware = sum(r["outcome"] == "kept" and r["method"] == "answer-aware" for r in mine)
        secs = sorted(r["seconds"] for r in mine)
        print(
            f"{variant}: kept {kept} of {len(mine)} facts ({aware} answer-aware), "
            f"median {secs[len(secs) // 2]} s"
        )

    def differs(f: dict) -> bool:
        a, b = f["plain"], f["referents"]
        return (a["outcome"] == "kept" or b["outcome"] == "kept") and (
            (a["question"], a["answer"], a["outcome"]) != (b["question"], b["answer"], b["outcome"])
        )

    differ = [f for f in facts if differs(f)]
    print(f"facts whose kept questions differ: {len(differ)}")
    study.paired_readings(differ, "plain", "referents", rng)
    # Per fact, a fact one variant kept and the other not counts as "bad" for the other: a
    # quiz then needs a spare fact (or has one item fewer).
    usable = {v: sum(f[v].get("read") == "usable" for f in differ) for v in VARIANTS}
    print(f"usable per fact where they differ ({len(differ)}): {usable}")


def main() -> None:
    parser = study.study_arguments(per=3, passages=60)
    args = parser.parse_args()
    if args.report:
        report()
        return
    provider, judge = study.standard_model("generator"), study.standard_model("qa")

    def rows(done: dict):
        for p in passages(args.passages):
            analysis, targets = study.app_targets(p["text"], args.per)
            for target in targets:
                for variant in VARIANTS:
                    key = (p["name"], target.fact, target.answer, variant)
                    if key in done:
                        yield done[key]
                        continue
                    yield {
                        "passage": p["name"],
                        "fact": target.fact,
                        "target": target.answer,
                        "variant": variant,
                        **ask(provider, judge, analysis, target, variant),
                        "text": p["text"],
                    }

    study.run_rows(ROWS, ("passage", "fact", "target", "variant"), ("question", "answer"), rows)
    report()


if __name__ == "__main__":
    main()
