"""Study: should the chat wrong-answer prompt (`prompts.distractors_chat`) show worked examples,
as the question prompts do (issue 44, point 2)?

Wrong answers of another kind or level than the key, or implausible ones, were the largest
share of the standard bench's bad items (session 23's blind reading: "Bangladesh", "Sri
Lanka" for a state, "proton pump" for a process, three later scientists for the printer of
1440). The prompt had rules only. Variants, on the same questions and keys, each through the
app's whole wrong-answer step (the model's list, the passage's phrases, nearby values, every
check, the second set where the first leaves too few: `builder.build_candidates`):
- plain: the prompt as it was (kept below, `plain_prompt`);
- examples: the prompt with four worked examples (`prompts._WRONG_ANSWER_SHOTS`).

Questions: those the 1.5B model wrote in two earlier studies on the passages helper agents
wrote for the project (`written_passages.json`; none read for this): the question with its
own answer (`together_constituents.jsonl`, variant "opening", kept) and the answer-aware
question (`answer_aware_opening.jsonl`, variant "opening", kept); per passage at most one of
each, in the passages' order, those with their own answer first, up to `--facts`. The
question is taken as written (no model call for it); the same seed for both variants (the
app's: the target's).

Rows to wrong_answer_examples.jsonl; each item (question, key, the wrong answers chosen) is
read blind by helper agents, both variants shuffled together and unmarked: the bench's
rubric (usable / needs a fix / bad) and how many wrong answers fail ("read", "read_why",
"read_failing").

    PYTHONPATH=app .venv/bin/python studies/wrong_answer_examples.py [--facts 140]
    .venv/bin/python studies/wrong_answer_examples.py --report
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import study_passages as study  # noqa: E402

ROWS = HERE / "wrong_answer_examples.jsonl"
VARIANTS = ("plain", "examples")


def plain_prompt(question: str, answer: str, fact: str, kind: str | None = None) -> list[dict]:
    """The chat wrong-answer prompt as it was before this study (rules, no examples)."""
    from quizsmith.generation.distractor_kinds import indefinite_article
    from quizsmith.prompt_fence import FENCE_NOTE, fence

    asks = ""
    if kind:
        article = indefinite_article(kind)
        asks = f"The question asks for {article} {kind}: every wrong answer must be one. "
    return [
        {
            "role": "system",
            "content": f"You write answer options for multiple-choice quizzes. {FENCE_NOTE}",
        },
        {
            "role": "user",
            "content": f"Source:\n{fence(fact)}\nQuestion: {question}\nCorrect answer: "
            f"{answer}\n\n{asks}Write five wrong answers that a student who did not learn the fact "
            "might choose: the same kind of thing as the correct answer (a year for a year, a "
            "person for a person), similar length, clearly false according to the source. "
            "Use real names, never placeholders such as John Doe. "
            'Reply as JSON with the key "wrong_answers".',
        },
    ]


def questions(limit: int) -> list[dict]:
    """The earlier studies' kept questions (passage, fact, question, answer, how written)."""
    found: dict[str, list[dict]] = {}
    for name, how, answer_field in (
        ("together_constituents.jsonl", "together", "answer"),
        ("answer_aware_opening.jsonl", "answer-aware", "target"),
    ):
        for line in (HERE / name).read_text(encoding="utf-8").splitlines():
            r = json.loads(line)
            if r["variant"] != "opening" or r["outcome"] != "kept":
                continue
            mine = found.setdefault(r["passage"], [])
            if not any(q["how"] == how for q in mine):
                mine.append(
                    {
                        "passage": r["passage"],
                        "fact": r["fact"],
                        "target": r["target"],
                        "question": r["question"],
                        "answer": r[answer_field],
                        "how": how,
                    }
                )
    order = [p["name"] for p in study.written_passages()]
    # Most of the app's items are questions with their own answer (96 of 115 on the standard
    # bench at 8ad712a): all of those first, then the answer-aware ones.
    picked = [
        q
        for how in ("together", "answer-aware")
        for n in order
        for q in found.get(n, [])
        if q["how"] == how
    ]
    return picked[:limit]


def build(case: dict, text: str, models: dict, variant: str) -> dict:
    """The item the app builds for the case's question with the variant's prompt."""
    from quizsmith.domain import Passage
    from quizsmith.generation import builder, prompts, writer
    from quizsmith.generation.build_context import BuildContext
    from quizsmith.generation.pipeline import GenerationRequest, _targets
    from quizsmith.jobs import CancelToken

    ctx = BuildContext(
        passage=Passage(text=text),
        generator=models["generator"],
        profile="chat",
        embed=models["embed"],
        qa=models["qa"],
        cancel=CancelToken(),
        difficulty=None,
        seed=0,
        qa_knows_kinds=True,
    )
    targets = _targets(
        ctx.analysis, GenerationRequest(n=5, types=("mcq",)), ctx.generator, "chat", CancelToken()
    )
    ctx.passage_answers = list(dict.fromkeys(t.answer for t in targets))
    ctx.passage_terms = dict(ctx.analysis.terms)
    target = next(
        (t for t in targets if t.fact == case["fact"] and t.answer == case["target"]), None
    )
    if target is None:
        return {"outcome": "no such target now", "stem": "", "wrong": []}
    ctx.seed = target.seed(0)
    written = writer.Written(text=case["question"])
    if case["how"] == "together":
        ctx.together_written[target.fact] = (written, case["answer"])
    else:
        ctx.answer_aware = True
    saved = prompts.distractors_chat, prompts.WRONG_ANSWERS_HEAD_END, writer.write_stem
    if variant == "plain":
        prompts.distractors_chat, prompts.WRONG_ANSWERS_HEAD_END = plain_prompt, "Source:\n"
    writer.write_stem = lambda *a, **k: written  # the question as the earlier study wrote it
    started = time.perf_counter()
    try:
        built = builder.build_candidates(target, "mcq", 1, ctx)
    finally:
        prompts.distractors_chat, prompts.WRONG_ANSWERS_HEAD_END, writer.write_stem = saved
    seconds = round(time.perf_counter() - started, 2)
    if not built.candidates:
        return {
            "outcome": "no item",
            "stem": "",
            "wrong": [],
            "notes": built.notes,
            "seconds": seconds,
        }
    item = built.candidates[0]
    return {
        "outcome": "item",
        "stem": item.stem,
        "key": item.key,
        "wrong": list(item.distractors),
        "notes": built.notes,
        "seconds": seconds,
    }


RANK = {"usable": 2, "fix": 1, "bad": 0}


def report() -> None:
    import random

    rows = [json.loads(line) for line in ROWS.read_text(encoding="utf-8").splitlines()]
    rng = random.Random(0)
    by: dict[tuple, dict] = {}
    for r in rows:
        by.setdefault((r["passage"], r["fact"], r["question"]), {})[r["variant"]] = r
    pairs = [v for v in by.values() if len(v) == 2]
    for variant in VARIANTS:
        mine = [p[variant] for p in pairs]
        made = [r for r in mine if r["outcome"] == "item"]
        secs = sorted(r["seconds"] for r in mine if "seconds" in r)
        print(
            f"{variant}: an item for {len(made)} of {len(mine)} questions, "
            f"median {secs[len(secs) // 2] if secs else float('nan')} s"
        )
        read = [r for r in made if "read" in r]
        if read:
            counts = []
            for label in ("usable", "fix", "bad"):
                n, share, low, high = study.label_share(read, label, lambda r: r["passage"], rng)
                counts.append(f"{label} {n} ({share:.0%} [{low:.0%}, {high:.0%}])")
            failing = sum(r.get("read_failing", 0) for r in read)
            print(f"  read {len(read)}: " + ", ".join(counts) + f"; failing {failing}")
    both = [p for p in pairs if all("read" in p[v] for v in VARIANTS)]
    same = [p for p in both if p["plain"]["wrong"] == p["examples"]["wrong"]]
    better = sum(RANK[p["examples"]["read"]] > RANK[p["plain"]["read"]] for p in both)
    worse = sum(RANK[p["examples"]["read"]] < RANK[p["plain"]["read"]] for p in both)
    fewer = sum(p["examples"]["read_failing"] < p["plain"]["read_failing"] for p in both)
    more = sum(p["examples"]["read_failing"] > p["plain"]["read_failing"] for p in both)
    print(
        f"both made an item: {len(both)} ({len(same)} with the same wrong answers); examples "
        f"better {better}, worse {worse}; fewer failing wrong answers {fewer}, more {more}"
    )


def main() -> None:
    parser = study.study_arguments(per=0)
    parser.add_argument("--facts", type=int, default=140)
    args = parser.parse_args()
    if args.report:
        report()
        return
    from quizsmith.providers.manager import provider_for_role
    from quizsmith.settings import Settings

    models = {
        "generator": study.standard_model("generator"),
        "qa": study.standard_model("qa"),
        "embed": provider_for_role("embeddings", Settings(n_threads=2, profile="standard")).embed,
    }
    texts = {p["name"]: p["text"] for p in study.written_passages()}

    def rows(done: dict):
        for n, case in enumerate(questions(args.facts)):
            # Alternately first: the first variant reads the fact's shared heads for both.
            for variant in VARIANTS if n % 2 == 0 else VARIANTS[::-1]:
                key = (case["passage"], case["fact"], case["question"], variant)
                yield done.get(key) or {
                    **case,
                    "variant": variant,
                    **build(case, texts[case["passage"]], models, variant),
                }

    study.run_rows(ROWS, ("passage", "fact", "question", "variant"), ("wrong",), rows)
    report()


if __name__ == "__main__":
    main()
