"""Benchmark: a question's options scored in one multi-sequence batch against one option after
another (issue 16, item 2), in the three places that score options: KDA, EXAM and the
distractor filter's "also true per the passage" check (generation/distractors.py:qa_reading).

Items are real SQuAD MCQs (tests/support/squad.py, picked as bench/metrics.py picks them).
Each item is timed in both modes, alternating which goes first, in two states:
- cold: the models' kept prompt states and remembered answers dropped first (a first score);
- warm: only the remembered answers dropped (a re-score after an edit: the passage's state
  is restored, the question and the options are evaluated again).
Reported: the metric's wall-clock seconds and the part of it spent in `option_logprobs`.

Every `option_logprobs` call of the batched runs is recorded and replayed on both paths to
measure how far the batched log-probabilities are from the sequential ones, and whether the
best option (highest total and highest mean) changes.

    .venv/bin/python bench/option_scoring.py [--items 10] [--threads 1]

Results in bench/results/option_scoring.{json,md}.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from common import git_revision, machine, median, write_results

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from quizsmith.domain import Item
from quizsmith.generation.distractors import qa_reading
from quizsmith.metrics import registry
from quizsmith.metrics.base import MetricContext
from quizsmith.providers import manager
from quizsmith.providers.llamacpp import LlamaCppProvider
from quizsmith.providers.llamacpp_models import forget_kept_state
from quizsmith.settings import Settings
from support.squad import squad_mcqs

MODES = ("batched", "sequential")
STATES = ("cold", "warm")


def items(n: int) -> list[Item]:
    return squad_mcqs(range(5, 5 + 37 * n, 37))


def set_mode(mode: str) -> None:
    for provider in list(manager._cache.values()):
        if isinstance(provider, LlamaCppProvider):
            provider.batch_options = mode == "batched"


def drop_memos() -> None:
    for provider in list(manager._cache.values()):
        if isinstance(provider, LlamaCppProvider):
            provider._get().memo.clear()


class Recorder:
    """Wraps LlamaCppProvider.option_logprobs: seconds spent in it, and the calls made."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self.calls: list[tuple[LlamaCppProvider, str, tuple[str, ...], Any]] = []
        self.record = False
        self._original = LlamaCppProvider.option_logprobs

    @contextmanager
    def installed(self) -> Iterator[None]:
        original = self._original
        recorder = self

        def timed(
            provider: LlamaCppProvider, prefix: str, options: Sequence[str], **kw: Any
        ) -> Any:
            started = time.perf_counter()
            try:
                return original(provider, prefix, options, **kw)
            finally:
                recorder.seconds += time.perf_counter() - started
                if recorder.record:
                    recorder.calls.append(
                        (provider, prefix, tuple(options), kw.get("reuse_prefix", ""))
                    )

        LlamaCppProvider.option_logprobs = timed  # type: ignore[method-assign]
        try:
            yield
        finally:
            LlamaCppProvider.option_logprobs = original  # type: ignore[method-assign]


def fact_of(item: Item) -> str:
    """The passage sentence holding the key (the generator's "fact"), else the first one."""
    text = item.passage.text if item.passage else ""
    sentences = re.split(r"(?<=[.!?])\s+", text)
    return next((s for s in sentences if item.key in s), sentences[0])


def jobs(ctx: MetricContext, all_items: list[Item]) -> dict[str, Callable[[int], object]]:
    kda, exam = registry.get("kda")(), registry.get("exam")()
    qa = ctx.provider("qa")

    def distractors(i: int) -> object:
        # An over-generated pool as the builder filters it: this item's distractors and the
        # next two items' (7 options in all with the key).
        item = all_items[i]
        pool = [o.text for j in (i, i + 1, i + 2) for o in all_items[j].options if not o.is_key]
        pool = [p for p in dict.fromkeys(pool) if p != item.key][:6]
        return qa_reading(qa, fact_of(item), item.stem, item.key)(pool)

    return {
        "KDA": lambda i: kda.score(all_items[i], ctx),
        "EXAM": lambda i: exam.score(all_items[i], ctx),
        "distractor filter": distractors,
    }


def replay(calls: list[tuple[LlamaCppProvider, str, tuple[str, ...], Any]]) -> dict[str, Any]:
    """Each recorded call on both paths, its passage's state kept (alternating which path goes
    first): seconds per call, the largest token log-prob difference per model, and how many
    calls changed their best option (by total, by mean)."""
    out: dict[str, Any] = {}
    for n, (provider, prefix, options, reuse) in enumerate(calls):
        row = out.setdefault(
            provider.model_id,
            {
                "calls": 0,
                "options": 0,
                "max_abs_diff": 0.0,
                "argmax_total_changed": 0,
                "argmax_mean_changed": 0,
                "seconds": {m: [] for m in MODES},
            },
        )
        results = {}
        provider.batch_options = True  # "reuse" batches; "sequential" never does
        for mode in MODES if n % 2 == 0 else MODES[::-1]:
            provider._get().memo.clear()
            strategy = "reuse" if mode == "batched" else "sequential"
            started = time.perf_counter()
            results[mode] = provider.option_logprobs(
                prefix, options, strategy=strategy, reuse_prefix=reuse
            )
            row["seconds"][mode].append(time.perf_counter() - started)
        batched, sequential = results["batched"], results["sequential"]
        row["calls"] += 1
        row["options"] += len(options)
        for a, b in zip(batched, sequential, strict=True):
            diffs = [abs(x - y) for x, y in zip(a.token_logprobs, b.token_logprobs, strict=True)]
            row["max_abs_diff"] = max(row["max_abs_diff"], *diffs)
        if len(options) > 1:
            for key, name in ((lambda o: o.total, "total"), (lambda o: o.mean, "mean")):
                best_b = max(range(len(options)), key=lambda k: key(batched[k]))
                best_s = max(range(len(options)), key=lambda k: key(sequential[k]))
                row[f"argmax_{name}_changed"] += int(best_b != best_s)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=10)
    parser.add_argument("--threads", type=int, default=1, help="llama.cpp threads (0: cores)")
    args = parser.parse_args()
    all_items = items(args.items + 3)  # one warm-up item, two more for the distractor pools
    ctx = MetricContext(settings=Settings(n_threads=args.threads))
    recorder = Recorder()
    load_before = os.getloadavg()[0]
    seconds: dict[str, dict[str, list[float]]] = {}
    scoring: dict[str, dict[str, list[float]]] = {}
    with recorder.installed():
        for job, run in jobs(ctx, all_items).items():
            for i in range(args.items + 1):
                # Alternate which mode goes first, so neither always finds warmer caches.
                order = MODES if i % 2 == 0 else MODES[::-1]
                for mode in order:
                    set_mode(mode)
                    for state in STATES:
                        if state == "cold":
                            forget_kept_state()
                        else:
                            drop_memos()
                        recorder.seconds = 0.0
                        recorder.record = mode == "batched" and state == "cold" and i > 0
                        started = time.perf_counter()
                        run(i)
                        elapsed = time.perf_counter() - started
                        if i:  # the first item loads the models
                            key = f"{job}, {state}"
                            seconds.setdefault(key, {m: [] for m in MODES})[mode].append(elapsed)
                            scoring.setdefault(key, {m: [] for m in MODES})[mode].append(
                                recorder.seconds
                            )
    recorder.record = False
    calls = recorder.calls
    with recorder.installed():
        differences = replay(calls)
    set_mode("batched")

    load = (load_before, os.getloadavg()[0])
    info = machine()
    data: dict[str, Any] = {
        "load_average_1min": load,
        "machine": info,
        "revision": git_revision(),
        "items": args.items,
        "threads": args.threads,
        "seconds": seconds,
        "option_logprobs_seconds": scoring,
        "batched_vs_sequential": differences,
    }
    command = f"bench/option_scoring.py --items {args.items} --threads {args.threads}"
    md = [
        "## Option scoring: one batch or one option at a time (`bench/option_scoring.py`)",
        "",
        f"Command: `.venv/bin/python {command}` at revision {data['revision']}, "
        f"{info['date']}; {info['cpu']}, {info['logical_cpus']} logical CPUs, "
        f"{args.threads} llama.cpp thread(s). Default roles (solvers SmolLM2-135M and "
        f"Gemma-3-270M, qa SmolLM2-135M, MiniLM); {args.items} SQuAD MCQs after one warm-up "
        "item; both modes on every item, alternating which goes first; medians. Load average "
        f"(1 min) {load[0]:.1f} at the start, {load[1]:.1f} at the end: other work shared the "
        "machine, so the ratios (taken within one run) say more than the seconds.",
        "",
        '"Cold": kept prompt states and remembered answers dropped before the call (a first '
        'score). "Warm": remembered answers dropped, prompt states kept (a re-score after an '
        "edit). The distractor filter scores the key and six candidate distractors with the "
        "source, then the six closed-book and after a neutral question (`qa_reading`).",
        "",
        "| job | batched s | sequential s | speed-up | in option_logprobs: batched s "
        "| sequential s | speed-up |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for key, by_mode in seconds.items():
        b, s = median(by_mode["batched"]), median(by_mode["sequential"])
        sb, ss = median(scoring[key]["batched"]), median(scoring[key]["sequential"])
        md.append(
            f"| {key} | {b:.3f} | {s:.3f} | {s / b:.2f}x | {sb:.3f} | {ss:.3f} | "
            f"{ss / sb if sb else float('nan'):.2f}x |"
        )
    md += [
        "",
        "Every `option_logprobs` call of the cold batched runs replayed on both paths, the "
        "passage's state kept (medians per call; the letter solvers' options are one token "
        "each, so for them both paths only read the prefix). llama.cpp's CPU kernels depend "
        "on the batch size, so the paths give slightly different numbers; each is "
        "deterministic:",
        "",
        "| model | calls (options) | batched s/call | sequential s/call | speed-up "
        "| max abs difference (nats, per token) | best option changed (by total) "
        "| (by mean) |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for model, row in differences.items():
        b, s = median(row["seconds"]["batched"]), median(row["seconds"]["sequential"])
        md.append(
            f"| {model} | {row['calls']} ({row['options']}) | {b:.3f} | {s:.3f} | "
            f"{s / b:.2f}x | {row['max_abs_diff']:.2e} | {row['argmax_total_changed']} | "
            f"{row['argmax_mean_changed']} |"
        )
    md.append("")
    text = "\n".join(md)
    write_results("option_scoring", data, text)
    print(text)


if __name__ == "__main__":
    main()
