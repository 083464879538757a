"""Benchmark: provider overhead and the KV-cache reuse of option_logprobs.

    .venv/bin/python bench/providers.py [--runs 5]

1. Prompt evaluation and generation speed (tokens/s) of each bundled GGUF model through
   `LlamaCppProvider.complete` versus llama-cpp-python's `Llama.create_completion` called
   directly with the same settings (n_ctx, threads, same prompts). Each run starts with a
   different first line so that no run reuses another's cached prompt.
2. `option_logprobs` for a 4-option MCQ after a ~300-token passage: KV reuse versus the
   prefix evaluated again for every option ("scratch") and versus one batch per option
   ("single-pass").

Medians over --runs runs; results in bench/results/providers.{json,md}.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from common import git_revision, machine, median, write_results
from quizsmith.providers import catalog
from quizsmith.providers.llamacpp import LlamaCppProvider, physical_cores

MODELS = ["smollm2-135m-instruct", "gemma3-270m"]
N_CTX = 4096
PASSAGE = (
    "The Nile is the longest river in Africa. It flows north for about 6,650 kilometres "
    "and empties into the Mediterranean Sea. The Aswan High Dam, completed in 1970, "
    "controls its annual flood and produces hydroelectric power for Egypt. "
)
OPTIONS = [" the Mediterranean Sea", " the Red Sea", " the Atlantic Ocean", " Lake Victoria"]


def passage_prompt(run: int, count_tokens: Any, n_tokens: int) -> str:
    text = f"Reading {run}.\n"
    while count_tokens(text) < n_tokens:
        text += PASSAGE
    return text


def bench_speed(model_id: str, runs: int) -> dict[str, Any]:
    from llama_cpp import Llama

    path = catalog.locate(catalog.find(model_id, catalog.load_catalog()))
    threads = physical_cores()
    ours = LlamaCppProvider(path, model_id=model_id, n_ctx=N_CTX, n_threads=threads)
    direct = Llama(
        model_path=str(path),
        n_ctx=N_CTX,
        n_threads=threads,
        n_threads_batch=threads,
        logits_all=False,
        verbose=False,
    )

    def count(text: str) -> int:
        return len(direct.tokenize(text.encode(), add_bos=False))

    def call_ours(prompt: str, max_tokens: int) -> tuple[float, int, int]:
        started = time.perf_counter()
        r = ours.complete(prompt, max_tokens=max_tokens, temperature=0.0)
        return time.perf_counter() - started, r.prompt_tokens, r.completion_tokens

    def call_direct(prompt: str, max_tokens: int) -> tuple[float, int, int]:
        started = time.perf_counter()
        r = direct.create_completion(prompt, max_tokens=max_tokens, temperature=0.0)
        u = r["usage"]
        return time.perf_counter() - started, u["prompt_tokens"], u["completion_tokens"]

    out: dict[str, Any] = {"threads": threads}
    ours.complete("warm up", max_tokens=2)
    direct.create_completion("warm up", max_tokens=2)
    calls = {"provider": call_ours, "direct": call_direct}
    prompt_tps: dict[str, list[float]] = {k: [] for k in calls}
    gen_tps: dict[str, list[float]] = {k: [] for k in calls}
    # Interleaved (provider, direct, provider, ...) so that drift in machine load hits both.
    for run in range(runs):
        for label, fn in calls.items():
            prompt = passage_prompt(run, count, 300) + label
            # Prompt speed: a one-token answer is almost all prompt evaluation.
            secs, n_prompt, _ = fn(prompt, 1)
            prompt_tps[label].append(n_prompt / secs)
            # Generation speed: a short prompt and 64 new tokens, minus the prompt's share.
            short = f"Story {run} {label}: Once upon a time"
            secs_p, _, _ = fn(short + " ", 1)
            secs, _, n_gen = fn(short, 64)
            gen_tps[label].append(max(1, n_gen - 1) / max(1e-6, secs - secs_p))
    for label in calls:
        out[label] = {
            "prompt_tps": median(prompt_tps[label]),
            "generation_tps": median(gen_tps[label]),
        }
    out["overhead_prompt"] = 1 - out["provider"]["prompt_tps"] / out["direct"]["prompt_tps"]
    out["overhead_generation"] = (
        1 - out["provider"]["generation_tps"] / out["direct"]["generation_tps"]
    )
    direct.close()
    return out


def bench_logprobs(model_id: str, runs: int) -> dict[str, Any]:
    path = catalog.locate(catalog.find(model_id, catalog.load_catalog()))
    provider = LlamaCppProvider(path, model_id=model_id, n_ctx=N_CTX)
    prefix = passage_prompt(0, provider.count_tokens, 300) + "\nQ: Where does the Nile end?\nA:"
    out: dict[str, Any] = {"prefix_tokens": provider.count_tokens(prefix)}
    provider.option_logprobs(prefix, OPTIONS)  # warm up
    max_diff = 0.0
    for strategy in ("reuse", "scratch", "single-pass"):
        times = []
        for _ in range(runs):
            started = time.perf_counter()
            result = provider.option_logprobs(prefix, OPTIONS, strategy=strategy)
            times.append(time.perf_counter() - started)
            if strategy == "reuse":
                reference = result
            elif strategy == "scratch":
                diffs = [abs(a.total - b.total) for a, b in zip(reference, result, strict=True)]
                max_diff = max(max_diff, *diffs)
        out[strategy] = median(times)
    out["speedup_vs_scratch"] = out["scratch"] / out["reuse"]
    out["speedup_vs_single_pass"] = out["single-pass"] / out["reuse"]
    out["max_abs_diff_reuse_vs_scratch"] = max_diff
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    data: dict[str, Any] = {"machine": machine(), "revision": git_revision(), "runs": args.runs}
    data["speed"] = {m: bench_speed(m, args.runs) for m in MODELS}
    data["option_logprobs"] = {m: bench_logprobs(m, args.runs) for m in MODELS}

    md = [
        "### Providers (`bench/providers.py`)",
        "",
        f"Command: `.venv/bin/python bench/providers.py --runs {args.runs}` at revision "
        f"{data['revision']}, {data['machine']['date']}. Machine: {data['machine']['cpu']}, "
        f"{data['machine']['logical_cpus']} logical CPUs, {data['machine']['memory_gib']} GiB, "
        f"Python {data['machine']['python']}. Medians of {args.runs} runs.",
        "",
        "| model | path | prompt tok/s | generation tok/s |",
        "| --- | --- | ---: | ---: |",
    ]
    for m, s in data["speed"].items():
        for label in ("direct", "provider"):
            speeds = s[label]
            md.append(
                f"| {m} | {label} | {speeds['prompt_tps']:.0f} | {speeds['generation_tps']:.1f} |"
            )
        md.append(
            f"| {m} | **provider overhead** | {100 * s['overhead_prompt']:+.1f}% | "
            f"{100 * s['overhead_generation']:+.1f}% |"
        )
    md += [
        "",
        "Target: provider overhead under 10% (a negative overhead is run-to-run noise).",
        "",
        "`option_logprobs`, 4-option MCQ after a ~300-token passage (seconds per call):",
        "",
        "| model | prefix tokens | KV reuse | from scratch | single pass | reuse speed-up "
        "| max abs diff |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for m, r in data["option_logprobs"].items():
        md.append(
            f"| {m} | {r['prefix_tokens']} | {r['reuse']:.3f} | {r['scratch']:.3f} | "
            f"{r['single-pass']:.3f} | {r['speedup_vs_scratch']:.2f}x | "
            f"{r['max_abs_diff_reuse_vs_scratch']:.1e} |"
        )
    md += ["", "Target: KV reuse at least 2x faster than from scratch.", ""]
    text = "\n".join(md)
    write_results("providers", data, text)
    print(text)


if __name__ == "__main__":
    main()
