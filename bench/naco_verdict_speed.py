"""Seconds per NACo verdict call: v1 (the first 64 tokens) against v2 (stops at part 2),
interleaved on the same items, in one process (docs/metrics/naco-profiles.md, "Speed").

    .venv/bin/python bench/naco_verdict_speed.py [--items 12] [--threads 0]

Items: bench/metrics.py's SQuAD MCQs. Per item, one untimed v2 call first (the passage's
prompt state is then kept, as in the live set after the first score), then v1 and v2 timed,
in alternating order from item to item, each with the model's remembered answers dropped
(every timed call generates). Results in bench/results/naco_verdict_speed.{json,md}.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

from common import git_revision, machine, median, write_results
from metrics import items
from quizsmith.metrics import naco_prompts as prompts
from quizsmith.metrics.base import MetricContext
from quizsmith.metrics.naco import NacoMetric, a2_verdict, split_passages
from quizsmith.settings import Settings


def v1_call(model: Any, passages: list[str], question: str) -> str:
    return str(
        model.chat(
            [{"role": "user", "content": prompts.a2_prompt(passages, question)}],
            max_tokens=64,
            temperature=0.0,
            seed=0,
            reuse_prefix=prompts.a2_reading(passages),
        ).text
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=12)
    parser.add_argument("--threads", type=int, default=0)
    args = parser.parse_args()
    ctx = MetricContext(settings=Settings(n_threads=args.threads))
    model, _ = NacoMetric()._fewshot_models(ctx)
    memo = model._get().memo  # type: ignore[attr-defined]
    times: dict[str, list[float]] = {"v1": [], "v2": []}
    tokens: dict[str, list[int]] = {"v1": [], "v2": []}
    for i, item in enumerate(items(args.items)):
        passages = split_passages(item)
        a2_verdict(model, passages, item.stem, 64)
        order = ("v1", "v2") if i % 2 else ("v2", "v1")
        for kind in order:
            memo.clear()
            started = time.perf_counter()
            if kind == "v1":
                text = v1_call(model, passages, item.stem)
            else:
                text = a2_verdict(model, passages, item.stem, 64)[1]
            times[kind].append(time.perf_counter() - started)
            tokens[kind].append(model.count_tokens(text))
    v1, v2 = median(times["v1"]), median(times["v2"])
    data = {
        "machine": machine(),
        "revision": git_revision(),
        "items": args.items,
        "seconds": times,
        "tokens": tokens,
        "median": {"v1": v1, "v2": v2, "speed_up": v1 / v2},
    }
    info = data["machine"]
    rows = [
        "# NACo verdict call: v1 against v2 (`bench/naco_verdict_speed.py`)\n",
        f"Command: `.venv/bin/python bench/naco_verdict_speed.py --items {args.items} "
        f"--threads {args.threads}` at revision {data['revision']}, {info['date']}; "
        f"{info['cpu']}, {info['logical_cpus']} logical CPUs. SmolLM2-135M's A.2 verdict on "
        "bench/metrics.py's SQuAD items, the passage's prompt state kept, remembered answers "
        "dropped before each timed call, v1 and v2 alternating which goes first.\n",
        "| verdict call | median s | min | max | median tokens |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    for kind, label in (("v1", "v1: first 64 tokens"), ("v2", "v2: stops at part 2")):
        t = times[kind]
        rows.append(
            f"| {label} | {median(t):.2f} | {min(t):.2f} | {max(t):.2f} "
            f"| {median([float(x) for x in tokens[kind]]):.0f} |"
        )
    rows.append(f"\nSpeed-up of the median: {v1 / v2:.1f}x ({args.items} items, interleaved).")
    write_results("naco_verdict_speed", data, "\n".join(rows))


if __name__ == "__main__":
    main()
