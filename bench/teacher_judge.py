"""A probe for issue 45: does the 1.5B model, asked as a judge, see what teachers remove?

    .venv/bin/python bench/teacher_judge.py --limit 200      # after teacher_decisions --fill

Nothing in the shipped signals predicts Quiz Design's keep/remove decisions (r within
+-0.2, docs/evaluation.md). This asks the standard profile's instruct model two yes/no
questions per question, each read as log P("Yes") - log P("No") of its reply (no sampling):
- `judge_keep`: would a teacher keep it (fluent, answerable from the passage, asking for
  exactly the intended answer)?
- `judge_target`: is the intended answer the answer to it, by the passage?
on the first `--limit` Quiz Design questions in bench/teacher_decisions.py's order (answer
spans in a seeded random order, so any prefix covers every document), and reports each one's
r with keep, nothing fitted, intervals by resampling answer spans. Per-item results go to
bench/results/teacher-judge.jsonl (a re-run extends it).
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
from common import per_item_results
from judgement import interval, pearson
from teacher_decisions import RESULTS as SIGNALS
from teacher_report import auc, demeaned

MODEL = "qwen2.5-coder-1.5b-instruct"
OUT = Path(__file__).resolve().parent / "results" / "teacher-judge.jsonl"
SYSTEM = "You are a teacher reviewing quiz questions written for a passage."
ASKS = {
    "judge_keep": (
        "Would a teacher keep this question in a quiz? It must be fluent, answerable from the "
        "passage, and ask for exactly the intended answer. Reply Yes or No."
    ),
    "judge_target": (
        "According to the passage, is the intended answer the answer to this question? "
        "Reply Yes or No."
    ),
}


def judge(model: Any, row: dict[str, Any], passage: str) -> dict[str, float]:
    head = f"Passage: {passage}\n\n"
    out = {}
    for name, ask in ASKS.items():
        content = f"{head}Question: {row['question']}\nIntended answer: {row['answer']}\n\n{ask}"
        messages = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": content}]
        yes, no = model.reply_logprobs(messages, ["Yes", "No"], reuse_prefix=("Passage: ", head))
        out[name] = yes.total - no.total
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--limit", type=int, default=200)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    from quizsmith.providers import catalog
    from quizsmith.providers.llamacpp import LlamaCppProvider
    from teacher_decisions import in_run_order, records, with_text

    found = records()
    passages = {r.key: r.item.passage.text for r in found if r.item.passage}
    rows = with_text(list(per_item_results(SIGNALS, "key").values()), found)
    rows = in_run_order(rows, lambda r: r["group"])
    rows = rows[: args.limit]
    done = per_item_results(OUT, "key")
    path = catalog.locate(catalog.find(MODEL, catalog.load_catalog()))
    model = LlamaCppProvider(path, model_id=MODEL, n_ctx=2048, n_threads=args.threads)
    with OUT.open("a", encoding="utf-8") as out:
        for row in rows:
            if row["key"] in done:
                continue
            started = time.perf_counter()
            values = judge(model, row, passages[row["key"]])
            record = {"key": row["key"], **values, "seconds": time.perf_counter() - started}
            out.write(json.dumps(record) + "\n")
            out.flush()
    found = per_item_results(OUT, "key")
    rows = [r for r in rows if r["key"] in found]
    y = np.array([r["label"] for r in rows], dtype=float)
    groups = np.array([str(r["group"]) for r in rows])
    print(f"n={len(rows)} questions, {len(set(groups))} answer spans, {int(y.sum())} kept")
    for name in ASKS:
        x = np.array([found[r["key"]][name] for r in rows])
        wx, wy = demeaned(x, groups), demeaned(y, groups)
        print(
            f"{name}: r {pearson(x, y):.2f} {interval(x, y, pearson, groups=groups)}, "
            f"AUC {auc(x, y):.2f}, within a span r {pearson(wx, wy):.2f} "
            f"{interval(wx, wy, pearson, groups=groups)}"
        )


if __name__ == "__main__":
    main()
