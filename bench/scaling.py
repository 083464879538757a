"""Benchmark: batch chat throughput through the `openai` provider's bounded pool.

    .venv/bin/python bench/scaling.py [--requests 8]

Starts llama-cpp-python's OpenAI-compatible server on 127.0.0.1 with the bundled SmolLM2
model and sends the same batch of chat requests with max_concurrency 1, 2 and 4, next to the
local provider doing the same work in-process. Results in bench/results/scaling.{json,md}.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "bench"), str(ROOT / "tests")]
from common import git_revision, machine, write_results  # noqa: E402
from quizsmith.providers import Message, catalog, provider_for  # noqa: E402
from quizsmith.providers.openai_compat import OpenAIProvider  # noqa: E402
from quizsmith.settings import Endpoint, Settings  # noqa: E402
from support.llama_server import llama_server  # noqa: E402

TOPICS = ["rivers", "volcanoes", "photosynthesis", "fractions", "the Roman Empire", "magnets"]


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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=8)
    parser.add_argument("--base-url", help="measure this server instead of a local one")
    parser.add_argument("--model", default="smollm2", help="model name on --base-url")
    parser.add_argument("--concurrency", default="1,2,4", help="comma-separated levels")
    args = parser.parse_args()
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
        "### Batch chat throughput (`bench/scaling.py`)",
        "",
        f"Command: `.venv/bin/python bench/scaling.py --requests {args.requests}` at revision "
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
    write_results("scaling", data, text)
    print(text)


if __name__ == "__main__":
    main()
