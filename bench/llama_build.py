"""Benchmark: the portable llama.cpp build (packaging/llama_cpp_build.toml) against a native
(-march=native) build of the same llama-cpp-python version, on the same machine.

    .venv/bin/python bench/llama_build.py --native-dir DIR [--rounds 5]

DIR holds a native build installed with `pip install --no-deps --target DIR WHEEL`, the
wheel built with `pip wheel --no-cache-dir --no-binary llama-cpp-python
llama-cpp-python==VERSION` (pip's default flags). Each round measures both builds, one after
the other in fresh child processes, the order alternating, so drift in the machine's load
hits both; each child runs bench/providers.py's prompt/generation speed and option scoring
on SmolLM2 with one run (option scoring "from scratch": the prefix evaluated again, since
the provider's kept results would time a lookup). Medians over rounds and the
native/portable ratio go to bench/results/llama_build.{json,md}.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from common import git_revision, machine, median, write_results

MODEL = "smollm2-135m-instruct"
CHILD = f"""
import json, sys
sys.path.insert(0, {str(Path(__file__).parent)!r})
import llama_cpp
from providers import bench_logprobs, bench_speed
speed = bench_speed({MODEL!r}, 1)
scoring = bench_logprobs({MODEL!r}, 1)
info = llama_cpp.llama_print_system_info()
print(json.dumps({{"prompt_tps": speed["direct"]["prompt_tps"],
    "generation_tps": speed["direct"]["generation_tps"], "option_scoring_s": scoring["scratch"],
    "system_info": info.decode() if isinstance(info, bytes) else info,
    "module": llama_cpp.__file__}}))
"""


def measure(native_dir: Path | None) -> dict[str, Any]:
    env = dict(os.environ)
    if native_dir is not None:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(native_dir), env.get("PYTHONPATH")]))
    done = subprocess.run(
        [sys.executable, "-c", CHILD], env=env, capture_output=True, text=True, check=True
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--native-dir", type=Path, required=True)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    runs: dict[str, list[dict[str, Any]]] = {"portable": [], "native": []}
    for round_no in range(args.rounds):
        order = ["portable", "native"] if round_no % 2 == 0 else ["native", "portable"]
        for build in order:
            runs[build].append(measure(args.native_dir if build == "native" else None))
            print(build, runs[build][-1]["prompt_tps"], file=sys.stderr, flush=True)
    assert str(args.native_dir) in runs["native"][0]["module"], "the native build was not used"
    keys = ("prompt_tps", "generation_tps", "option_scoring_s")
    summary = {b: {k: median([r[k] for r in runs[b]]) for k in keys} for b in runs}
    ratio = {k: summary["native"][k] / summary["portable"][k] for k in keys}
    data = {
        "machine": machine(),
        "revision": git_revision(),
        "rounds": args.rounds,
        "model": MODEL,
        "system_info": {b: runs[b][0]["system_info"] for b in runs},
        "summary": summary,
        "native_over_portable": ratio,
        "runs": runs,
    }
    m = data["machine"]
    md = [
        "### Portable vs native llama.cpp build (`bench/llama_build.py`)",
        "",
        f"Command: `.venv/bin/python bench/llama_build.py --native-dir DIR --rounds "
        f"{args.rounds}` at revision {data['revision']}, {m['date']}. Machine: {m['cpu']}, "
        f"{m['logical_cpus']} logical CPUs, {m['memory_gib']} GiB. {MODEL}, "
        f"llama-cpp-python direct calls (bench/providers.py), medians of {args.rounds} rounds, "
        "each build in a fresh process, order alternating.",
        "",
        "| build | prompt tok/s | generation tok/s | option scoring from scratch (s, 4 "
        "options after ~300 tokens) |",
        "| --- | ---: | ---: | ---: |",
    ]
    for build in ("portable", "native"):
        s = summary[build]
        md.append(
            f"| {build} | {s['prompt_tps']:.0f} | {s['generation_tps']:.1f} | "
            f"{s['option_scoring_s']:.3f} |"
        )
    md.append(
        f"| **native / portable** | {ratio['prompt_tps']:.2f}x | {ratio['generation_tps']:.2f}x "
        f"| {ratio['option_scoring_s']:.2f}x (time) |"
    )
    md += [
        "",
        f"Portable: `{data['system_info']['portable']}`",
        "",
        f"Native: `{data['system_info']['native']}`",
        "",
    ]
    write_results("llama_build", data, "\n".join(md))


if __name__ == "__main__":
    main()
