"""Benchmark: seconds per item for each metric on the bundled models, and for the "live" set
(NACo k=1 + KDA with the default solvers) that re-scores an item while a teacher edits it.

Items are real SQuAD questions from ../shared/data/naco (the reference question as the
stem, a second human question as MRE's reference) built into 4-option MCQs with
distractors of the same kind (number / name / other) taken from other items' answers.

    .venv/bin/python bench/metrics.py [--items 5] [--threads 0]

Wall-clock medians per item; the first item of each metric is a warm-up (model loading) and
is not counted. Results in bench/results/metrics.{json,md}.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

from common import git_revision, machine, median, write_results

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from quizsmith.domain import Item
from quizsmith.metrics import registry
from quizsmith.metrics.base import MetricContext
from quizsmith.settings import Settings
from support.squad import squad_mcqs


def items(n: int) -> list[Item]:
    return squad_mcqs(range(5, 5 + 37 * n, 37))


METRICS = ["naco", "kda", "exam", "mirror", "mre"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=5)
    parser.add_argument("--threads", type=int, default=0, help="llama.cpp threads (0: cores)")
    args = parser.parse_args()
    bench_items = items(args.items + 1)
    ctx = MetricContext(settings=Settings(n_threads=args.threads))
    per_metric: dict[str, list[float]] = {}
    not_scored: dict[str, int] = {}
    for name in METRICS:
        metric = registry.get(name)()
        times = []
        for i, item in enumerate(bench_items):
            started = time.perf_counter()
            result = metric.score(item, ctx)
            if i:  # the first item loads the models
                times.append(time.perf_counter() - started)
            not_scored[name] = not_scored.get(name, 0) + int(not result.scored)
        per_metric[name] = times
    live = [a + b for a, b in zip(per_metric["naco"], per_metric["kda"], strict=True)]
    info = machine()
    data: dict[str, Any] = {
        "machine": info,
        "revision": git_revision(),
        "items": args.items,
        "threads": args.threads,
        "seconds": per_metric,
        "live": live,
        "not_scored": not_scored,
    }
    md = [
        "## Metrics (`bench/metrics.py`)",
        "",
        f"Command: `.venv/bin/python bench/metrics.py --items {args.items}` at revision "
        f"{data['revision']}, {info['date']}; {info['cpu']}, {info['logical_cpus']} logical "
        f"CPUs, idle otherwise. Default roles (SmolLM2-135M, Gemma-3-270M, MiniLM); "
        f"{args.items} SQuAD MCQs after one warm-up item; medians.",
        "",
        "| metric | median s/item | min | max | not scored |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    for name, times in per_metric.items():
        md.append(
            f"| {name} | {median(times):.2f} | {min(times):.2f} | {max(times):.2f} | "
            f"{not_scored[name]} of {len(bench_items)} |"
        )
    md.append(
        f"| **live set** (NACo k=1 + KDA) | **{median(live):.2f}** | {min(live):.2f} | "
        f"{max(live):.2f} | |"
    )
    md += ["", "Target for the live set: under 2 s per item on 2 cores.", ""]
    text = "\n".join(md)
    write_results("metrics", data, text)
    print(text)


if __name__ == "__main__":
    main()
