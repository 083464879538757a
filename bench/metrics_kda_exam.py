"""Seconds per item for KDA (default solvers) and EXAM (answerable from its passage) on the
bundled models, over real SQuAD items built into 4-option MCQs.

Reports wall-clock and process CPU seconds: on a shared machine the wall clock measures the
neighbours as much as the metric, while CPU seconds with one llama.cpp thread approximate
the single-core cost.

    .venv/bin/python bench/metrics_kda_exam.py --items 10 --threads 1 [--out FILE.json]
"""

from __future__ import annotations

import argparse
import json
import random
import time
from pathlib import Path
from typing import Any

from common import machine, median
from quizsmith.domain import Item, Passage
from quizsmith.metrics.base import MetricContext
from quizsmith.metrics.exam import ExamMetric
from quizsmith.metrics.kda import KdaMetric
from quizsmith.settings import Settings

SQUAD = Path(__file__).parents[1].parent / "shared" / "data" / "naco" / "squad_candidates.jsonl"


def _kind(answer: str) -> str:
    if any(c.isdigit() for c in answer):
        return "number"
    return "name" if answer[:1].isupper() else "other"


def items(n: int) -> list[Item]:
    rows = [json.loads(line) for line in SQUAD.read_text(encoding="utf-8").splitlines()]
    out = []
    for i in range(5, 5 + 37 * n, 37):
        row = rows[i % len(rows)]
        pool = sorted(
            {
                r["answer"]
                for r in rows
                if _kind(r["answer"]) == _kind(row["answer"])
                and r["answer"].casefold() != row["answer"].casefold()
            }
        )
        out.append(
            Item(
                type="mcq",
                stem=row["refq"],
                key=row["answer"],
                options=Item.make_options(row["answer"], random.Random(i).sample(pool, 3)),
                passage=Passage(text=row["context"]),
            )
        )
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--items", type=int, default=10)
    parser.add_argument("--threads", type=int, default=0, help="llama.cpp threads (0: cores)")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    ctx = MetricContext(settings=Settings(n_threads=args.threads))
    batch = items(args.items)
    results: dict[str, Any] = {"machine": machine(), "threads": args.threads}
    for metric in (KdaMetric(), ExamMetric()):
        metric.score(batch[0], ctx)  # load the models outside the timing
        wall, cpu, values = [], [], []
        for item in batch:
            c, w = time.process_time(), time.perf_counter()
            result = metric.score(item, ctx)
            cpu.append(time.process_time() - c)
            wall.append(time.perf_counter() - w)
            values.append(result.value)
        results[metric.name] = {
            "median_wall_s": median(wall),
            "median_cpu_s": median(cpu),
            "values": values,
        }
        print(
            f"{metric.name}: median {median(wall):.2f} s wall, {median(cpu):.2f} s CPU per item "
            f"over {len(batch)} items; values {values}"
        )
    if args.out:
        args.out.write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
