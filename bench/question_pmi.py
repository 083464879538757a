"""Tried and not kept: does the key explain the question's wording? (issue 26, judgement)

    .venv/bin/python bench/question_pmi.py --shard 0/2 &   # fill, one thread each
    .venv/bin/python bench/question_pmi.py --shard 1/2
    .venv/bin/python bench/question_pmi.py --report

The standard overall estimate (light + 1.5B reader signals) reads r 0.474 with QGEval
acceptance; issue 26 asks for 0.55. The reader's answer sees whether the question points at
the key; a rater also rejects a question whose wording the key does not account for. So the
1.5B model, in the reader's own chat after the passage (its kept state serves both), is
given a question-writing task, and the question's total log-probability as its reply is
read twice: for "the question whose answer is KEY" and for "any fact the passage states".
The difference is the pointwise mutual information of question and key given the passage.

`--report`: over the items read (bench/judgement.py's interleaved QGEval order, sharded by
passage), Pearson r of the PMI alone with acceptance, and what it adds to the shipped
standard estimate: the light + reader blend's out-of-fold estimate (bench/standard_reader.py,
5 folds grouped by passage) is stacked with the PMI in a logistic regression, itself out of
fold over the same passage groups, against the estimate alone; the paired difference in r
with 95% intervals by resampling passages. Per-item results:
bench/results/question-pmi.jsonl; the table: bench/results/question_pmi.md.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from common import git_revision, machine, per_item_results, write_results
from judgement import pearson, r_gain, shard_arg, stacked_out_of_fold, with_ci
from quizsmith.providers.base import Provider, Transient
from quizsmith.quality.reader import PASSAGE_LEAD, READER_SYSTEM
from standard_reader import MODEL, qgeval_estimate, records

RESULTS = Path(__file__).resolve().parent / "results" / "question-pmi.jsonl"
#: After the passage, in the reader's chat: its system prompt asks for answers, so the task
#: says it changes (without "Task change" the PMI read r 0.15 on the first 87 questions,
#: with it 0.43; a writer's own system prompt, which costs a second passage reading, 0.40).
WRITER_TASK = (
    "Task change: do not answer. You write exam questions now. Given this answer, reply with "
    "one clear, grammatical question that the passage answers with exactly that answer, and "
    "nothing else."
)
ANY_ANSWER = "any fact the passage states"


def question_logprob(model: Provider, passage: str, question: str, answer: str) -> float:
    """The question's total log-probability as the reply to the writing task for `answer`;
    the passage block and the task are kept heads, the answer line is read each time."""
    block = f"{PASSAGE_LEAD}{passage}\n\n"
    task = f"{block}{WRITER_TASK}\n"
    asked = f"{task}Answer: {answer}"
    messages = [
        {"role": "system", "content": READER_SYSTEM},
        {"role": "user", "content": asked},
    ]
    heads = (PASSAGE_LEAD, block, task, Transient(asked))
    (scored,) = model.reply_logprobs(messages, [question.strip()], reuse_prefix=heads)
    return scored.total


def question_pmi(model: Provider, passage: str, question: str, key: str) -> float:
    """log p(question | KEY) - log p(question | any fact), in nats."""
    with_key = question_logprob(model, passage, question, key)
    return with_key - question_logprob(model, passage, question, ANY_ANSWER)


def fill(args: argparse.Namespace) -> None:
    from quizsmith.providers import catalog
    from quizsmith.providers.llamacpp import LlamaCppProvider

    k, n = args.shard
    rows = records(args.passages)
    passages = list(dict.fromkeys(r["passage"] for r in rows))
    mine = set(passages[k::n])
    known = per_item_results(RESULTS, "key")
    path = catalog.locate(catalog.find(MODEL, catalog.load_catalog()))
    model = LlamaCppProvider(path, model_id=MODEL, n_ctx=2048, n_threads=args.threads)
    with RESULTS.open("a", encoding="utf-8") as out:
        for row in rows:
            if row["passage"] not in mine or row["key"] in known:
                continue
            started = time.perf_counter()
            pmi = question_pmi(model, row["passage"], row["question"], row["answer"])
            line = {"key": row["key"], "reader_q_pmi": pmi}
            out.write(json.dumps({**line, "seconds": time.perf_counter() - started}) + "\n")
            out.flush()


def report(args: argparse.Namespace) -> None:
    all_keys, all_groups, all_full, all_y = qgeval_estimate(args)
    read = per_item_results(RESULTS, "key")
    chosen = [i for i, key in enumerate(all_keys) if key in read]
    keys = [all_keys[i] for i in chosen]
    groups, full, y = all_groups[chosen], all_full[chosen], all_y[chosen]
    pmi = np.array([read[key]["reader_q_pmi"] for key in keys])
    logit = np.log(full / (1 - full))
    alone = stacked_out_of_fold([logit], y, groups)
    both = stacked_out_of_fold([logit, (pmi - pmi.mean()) / pmi.std()], y, groups)
    data: dict[str, Any] = {
        "machine": machine(),
        "revision": git_revision(),
        "items": len(y),
        "passages": len(set(groups.tolist())),
        "median_seconds": float(np.median([read[key]["seconds"] for key in keys])),
        "pmi_r_accept": with_ci(pmi, y, groups=groups),
        "pmi_r_residual": round(pearson(pmi, y - full), 3),
        "estimate_r_accept": round(pearson(alone, y), 3),
        "with_pmi_r_accept": round(pearson(both, y), 3),
        "gain": r_gain(both, alone, y, groups),
    }
    r, gain = data["pmi_r_accept"], data["gain"]
    md = [
        "## Question PMI given the key (`bench/question_pmi.py`): tried, not kept",
        "",
        f"At revision {data['revision']}, {data['machine']['date']}, "
        f"{data['machine']['cpu']}; {MODEL}, one thread per shard, a median "
        f"{data['median_seconds']:.1f} s per question. QGEval: {data['items']} questions of "
        f"{data['passages']} passages, the first each shard reached in bench/judgement.py's "
        "order (the fill was stopped there: see docs/evaluation.md).",
        "",
        f"- PMI alone, r with acceptance: {r['value']:.3f} "
        f"[{r['ci95_by_passage'][0]:.2f}, {r['ci95_by_passage'][1]:.2f}]; with what the "
        f"standard estimate misses (acceptance minus its out-of-fold estimate): "
        f"{data['pmi_r_residual']:+.3f}.",
        f"- Stacked on the standard estimate, out of fold: r {data['with_pmi_r_accept']:.3f} "
        f"against {data['estimate_r_accept']:.3f}; paired difference {gain['value']:+.3f} "
        f"[{gain['ci95_by_passage'][0]:+.3f}, {gain['ci95_by_passage'][1]:+.3f}].",
        "",
    ]
    write_results("question_pmi", data, "\n".join(md))
    print("\n".join(md))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--passages", type=int, default=200)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--shard", type=shard_arg, default=(0, 1), help="K/N: every N-th passage")
    parser.add_argument("--cache-dir", default=None, help="the evaluation cache (light signals)")
    parser.add_argument("--report", action="store_true")
    args = parser.parse_args()
    report(args) if args.report else fill(args)


if __name__ == "__main__":
    main()
