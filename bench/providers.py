"""Benchmark: provider overhead, the KV-cache reuse of option_logprobs, and batch chat
throughput through the `openai` provider's bounded pool.

    .venv/bin/python bench/providers.py [--runs 5] [--requests 8] [--part speed|scaling]

1. Prompt evaluation and generation speed (tokens/s) of each bundled GGUF model through
   `LlamaCppProvider.complete` versus llama-cpp-python's `Llama.create_completion` called
   directly with the same settings (n_ctx, threads, same prompts). Each run starts with a
   different first line so that no run reuses another's cached prompt.
2. `option_logprobs` for a 4-option MCQ after a ~300-token passage: KV reuse versus the
   prefix evaluated again for every option ("scratch") and versus one batch per option
   ("single-pass").

3. Batch chat throughput (`--part scaling`): llama-cpp-python's OpenAI-compatible server on
   127.0.0.1 with the bundled SmolLM2 model is sent the same batch of --requests chat requests
   with max_concurrency 1, 2 and 4, next to the local provider doing the same work
   in-process (`--base-url` measures another server instead).

Medians over --runs runs; results in bench/results/providers.json (sections "providers" and
"scaling").
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))  # support.llama_server
from common import git_revision, machine, median, write_results
from quizsmith.providers import Message, catalog, provider_for
from quizsmith.providers.llamacpp import LlamaCppProvider
from quizsmith.providers.llamacpp_models import physical_cores
from quizsmith.providers.openai_compat import OpenAIProvider
from quizsmith.settings import Endpoint, Settings
from support.llama_server import llama_server

MODELS = ["smollm2-135m-instruct", "gemma3-270m"]
N_CTX = 4096
PASSAGE = (
    "The Nile is the longest river in Africa. It flows north for about 6,650 kilometres "
    "and empties into the Mediterranean Sea. The Aswan High Dam, completed in 1970, "
    "controls its annual flood and produces hydroelectric power for Egypt. "
)
OPTIONS = [" the Mediterranean Sea", " the Red Sea", " the Atlantic Ocean", " Lake Victoria"]
TOPICS = ["rivers", "volcanoes", "photosynthesis", "fractions", "the Roman Empire", "magnets"]


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


def speed(args: argparse.Namespace) -> None:
    data: dict[str, Any] = {"machine": machine(), "revision": git_revision(), "runs": args.runs}
    data["speed"] = {m: bench_speed(m, args.runs) for m in MODELS}
    data["option_logprobs"] = {m: bench_logprobs(m, args.runs) for m in MODELS}

    md = [
        "### Providers (`bench/providers.py --part speed`)",
        "",
        f"Command: `.venv/bin/python bench/providers.py --part speed --runs {args.runs}` at "
        f"revision "
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


def requests(n: int) -> list[dict[str, Any]]:
    return [
        {
            "messages": [
                Message("user", f"Write one quiz question about {TOPICS[i % len(TOPICS)]}.")
            ],
            "max_tokens": 48,
            "temperature": 0.0,
            "seed": i,
        }
        for i in range(n)
    ]


def scaling(args: argparse.Namespace) -> None:
    batch = requests(args.requests)
    rows: list[dict[str, Any]] = []

    local = provider_for("smollm2-135m-instruct", Settings())
    local.chat(**batch[0])  # load and warm up
    started = time.perf_counter()
    results = [local.chat(**r) for r in batch]
    secs = time.perf_counter() - started
    tokens = sum(r.completion_tokens for r in results)
    rows.append(
        {"path": "local provider (in-process)", "concurrency": 1, "seconds": secs, "tokens": tokens}
    )

    model = catalog.locate(catalog.find("smollm2-135m-instruct", catalog.load_catalog()))
    server = (
        contextlib.nullcontext(args.base_url) if args.base_url else llama_server(model, n_ctx=2048)
    )
    with server as base_url:
        for concurrency in (int(c) for c in args.concurrency.split(",")):
            endpoint = Endpoint(
                name="bench",
                base_url=base_url,
                model=args.model,
                max_concurrency=concurrency,
                key_name="bench" if os.environ.get("QUIZSMITH_API_KEY_BENCH") else "",
            )
            provider = OpenAIProvider(endpoint)
            provider.chat(**batch[0])  # warm up
            started = time.perf_counter()
            results = provider.chat_many(batch)
            secs = time.perf_counter() - started
            tokens = sum(r.completion_tokens for r in results)
            target = args.base_url or "llama_cpp.server"
            rows.append(
                {"path": f"openai provider -> {target}", "concurrency": concurrency,
                 "seconds": secs, "tokens": tokens}
            )  # fmt: skip
            provider.close()

    data = {
        "machine": machine(),
        "revision": git_revision(),
        "requests": args.requests,
        "rows": rows,
    }
    md = [
        "### Batch chat throughput (`bench/providers.py --part scaling`)",
        "",
        f"Command: `.venv/bin/python bench/providers.py --part scaling --requests {args.requests}` "
        f"at revision "
        f"{data['revision']}, {data['machine']['date']}; {data['machine']['cpu']}, "
        f"{data['machine']['logical_cpus']} logical CPUs. {args.requests} chat requests of up to "
        "48 new tokens, SmolLM2-135M-Instruct; one run.",
        "",
        "| path | max_concurrency | seconds | requests/s | generated tok/s |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    for r in rows:
        md.append(
            f"| {r['path']} | {r['concurrency']} | {r['seconds']:.2f} | "
            f"{args.requests / r['seconds']:.2f} | {r['tokens'] / r['seconds']:.1f} |"
        )
    text = "\n".join(md) + "\n"
    write_results("providers", data, text, section="scaling")
    print(text)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", choices=("speed", "scaling"), help="only this part")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--requests", type=int, default=8, help="scaling: chat requests")
    parser.add_argument("--base-url", help="scaling: measure this server instead of a local one")
    parser.add_argument("--model", default="smollm2", help="scaling: model name on --base-url")
    parser.add_argument("--concurrency", default="1,2,4", help="scaling: comma-separated levels")
    args = parser.parse_args()
    if args.part in (None, "speed"):
        speed(args)
    if args.part in (None, "scaling"):
        scaling(args)


if __name__ == "__main__":
    main()
