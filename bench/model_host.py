"""Benchmark: what the model host (a child process that runs the local models) costs against
running them in the app's own process, measured in one run as paired ratios.

1. Re-score after a stem edit: the live set of the item editor (`live_order`) on SQuAD MCQs
   (support/squad.py), each item scored once (which reads its passage), then re-scored
   after its stem was reworded; the re-score is timed. In-process and hosted alternate per
   item (order swapped every item), so both see the same load; the first item of each mode
   loads the models and is not counted.
2. A --n item multiple-choice generation about resources/sample_passage.txt (ranked, the
   panel's defaults) in each mode, after a warm-up generation of one item in each, with the
   kept passage states dropped before each timed run (`host_client.forget_kept_state`).
3. Memory: resident size of this process and the host after the hosted runs.

    .venv/bin/python bench/model_host.py [--items 6] [--n 5] [--profile standard]

Results in bench/results/model_host.{json,md}.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from common import git_revision, machine, median, write_results

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from quizsmith import paths
from quizsmith.domain import Item, Passage
from quizsmith.jobs import CancelToken, run_to_end
from quizsmith.metrics import registry
from quizsmith.metrics.base import MetricContext
from quizsmith.operations.jobs import default_live_metrics, live_order
from quizsmith.providers import host_client, host_protocol
from quizsmith.settings import Settings
from support.squad import squad_mcqs

MODES = ("in-process", "hosted")
TARGET_RATIO = 1.1


def use(mode: str) -> None:
    os.environ[host_protocol.HOST_ENV] = "1" if mode == "hosted" else "0"


def stem_edited(item: Item) -> Item:
    return replace(item, stem=item.stem.rstrip(" ?") + ", according to the passage?")


def rescore_times(settings: Settings, n_items: int) -> dict[str, list[float]]:
    items = squad_mcqs(range(5, 5 + 37 * n_items, 37))
    names = live_order(default_live_metrics(settings.profile))
    metrics = [registry.get(name)() for name in names]
    contexts = {}
    for mode in MODES:
        use(mode)
        contexts[mode] = MetricContext(settings=settings)
    times: dict[str, list[float]] = {mode: [] for mode in MODES}
    for i, item in enumerate(items):
        order = MODES if i % 2 == 0 else MODES[::-1]
        for mode in order:
            use(mode)
            draft = replace(item, scores={})
            for metric in metrics:
                metric.score(draft, contexts[mode])
            edited = stem_edited(draft)
            started = time.perf_counter()
            for metric in metrics:
                edited.scores[metric.name] = metric.score(edited, contexts[mode])
            if i:
                times[mode].append(time.perf_counter() - started)
        print(
            f"item {i}: " + ", ".join(f"{m} {times[m][-1]:.2f} s" for m in MODES if i), flush=True
        )
    return times


def generation_seconds(settings: Settings, n: int) -> dict[str, float]:
    from quizsmith.generation import GenerationRequest, generate_items

    text = (paths.resources_dir() / "sample_passage.txt").read_text(encoding="utf-8")
    out: dict[str, float] = {}
    for mode in MODES:  # warm-up: the models load
        use(mode)
        run_to_end(
            generate_items(
                Passage(text=text), GenerationRequest(n=1), settings=settings, cancel=CancelToken()
            )
        )
    for mode in MODES:
        use(mode)
        host_client.forget_kept_state()
        started = time.perf_counter()
        _, result = run_to_end(
            generate_items(
                Passage(text=text),
                GenerationRequest(n=n, types=("mcq",)),
                settings=settings,
                cancel=CancelToken(),
            )
        )
        out[mode] = time.perf_counter() - started
        out[f"{mode} items"] = len(result.items)
        print(f"generation {mode}: {out[mode]:.1f} s, {len(result.items)} items", flush=True)
    return out


def median_interval(values: list[float], rounds: int = 10_000) -> tuple[float, float]:
    """95% bootstrap interval of the median (percentile method, fixed seed)."""
    import numpy as np

    rng = np.random.default_rng(0)
    data = np.asarray(values)
    medians = np.median(rng.choice(data, size=(rounds, len(data)), replace=True), axis=1)
    return float(np.percentile(medians, 2.5)), float(np.percentile(medians, 97.5))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--items", type=int, default=6)
    parser.add_argument("--n", type=int, default=5)
    parser.add_argument("--profile", default="standard")
    parser.add_argument("--threads", type=int, default=0)
    args = parser.parse_args()
    settings = Settings(profile=args.profile, n_threads=args.threads)
    rescore = rescore_times(settings, args.items)
    ratios = [h / p for h, p in zip(rescore["hosted"], rescore["in-process"], strict=True)]
    low, high = median_interval(ratios)
    generation = generation_seconds(settings, args.n) if args.n else {}
    host = host_client.shared_host()
    memory = host.admin("memory")
    data: dict[str, Any] = {
        "machine": machine(),
        "revision": git_revision(),
        "command": " ".join(["bench/model_host.py", *sys.argv[1:]]),
        "rescore_s": rescore,
        "rescore_ratio_median": median(ratios),
        "rescore_ratio_interval_95": [low, high],
        "generation_s": generation,
        "host_memory_mib": memory,
    }
    gen_ratio = generation["hosted"] / generation["in-process"] if generation else None
    m = data["machine"]
    data["generation_ratio"] = gen_ratio
    lines = [
        "## Model host overhead (`bench/model_host.py`)",
        "",
        f"Command: `.venv/bin/python {data['command']}` at revision {data['revision']}, "
        f"{m['date']}; {m['cpu']}, {m['logical_cpus']} logical CPUs, {m['memory_gib']} GiB, "
        f"Python {m['python']}. Profile {args.profile}. In-process and hosted runs alternate "
        "item by item in one process (paired); the first item of each mode loads the models "
        "and is not counted.",
        "",
        "| measure | in-process | hosted | ratio (hosted / in-process) | target |",
        "| --- | ---: | ---: | ---: | ---: |",
        f"| re-score after a stem edit, median of {len(ratios)} items | "
        f"{median(rescore['in-process']):.2f} s | {median(rescore['hosted']):.2f} s | "
        f"{median(ratios):.3f} [{low:.3f}, {high:.3f}] (median of {len(ratios)} paired ratios, "
        f"95% bootstrap interval) | <= {TARGET_RATIO} |",
    ]
    if generation:
        lines.append(
            f"| {args.n}-item MCQ generation (one run each) | {generation['in-process']:.1f} s "
            f"| {generation['hosted']:.1f} s | {gen_ratio:.3f} | |"
        )
    lines += [
        "",
        f"Paired ratios: {', '.join(f'{r:.3f}' for r in ratios)}. Host after the runs: "
        f"{memory.get('rss_mib', 0):.0f} MiB resident (peak {memory.get('peak_mib', 0):.0f} "
        f"MiB); this bench's own process ran the in-process mode too, so its size says "
        "nothing about the window's (tests/gui/test_model_host_gui.py checks that: < 400 MB).",
        "",
    ]
    write_results("model_host", data, "\n".join(lines))
    print("\n".join(lines))
    host_client.close_shared()


if __name__ == "__main__":
    main()
