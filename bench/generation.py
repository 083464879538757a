"""Benchmark: a 5-item MCQ quiz from a ~300-word passage, with and without ranking.

Passages are real QGEval/SQuAD paragraphs from ../shared/data/qgeval (consecutive paragraphs
joined until about 300 words). For each passage the quiz is generated twice on the bundled
models: with overgenerate-and-rank (3 candidates per target, NACo + KDA) and without
(`rank=False`, first valid candidate). Every kept MCQ is then scored with the live metrics so
that "passes all flags" means the same thing in both runs.

    .venv/bin/python bench/generation.py [--passages 3] [--n 5] [--threads 0]

The first quiz loads the models and is not counted. Each quiz starts with no kept prompt state
and no remembered model answers (`forget_kept_state`), as for a passage the app has not seen,
so the unranked run does not repeat the ranked run's calls for free. Results in
bench/results/generation.*.
"""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter
from pathlib import Path
from typing import Any

from common import git_revision, machine, median, write_results
from quizsmith.domain import Passage
from quizsmith.generation import GeneratedStep, GenerationRequest, generate_items
from quizsmith.jobs import CancelToken, run_to_end
from quizsmith.metrics.base import MetricContext
from quizsmith.metrics.runner import score_items
from quizsmith.providers.llamacpp import forget_kept_state
from quizsmith.settings import Settings

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "qgeval" / "instances.json"


def passages(count: int, words: int = 300) -> list[Passage]:
    rows = json.loads(DATA.read_text(encoding="utf-8"))
    texts: list[str] = []
    seen: set[str] = set()
    current: list[str] = []
    for row in rows:
        text = row["passage"].replace("<sep>", " ").strip()
        if text in seen or "<ans>" in text:
            continue
        seen.add(text)
        current.append(text)
        if sum(len(t.split()) for t in current) >= words:
            texts.append("\n\n".join(current))
            current = []
        if len(texts) == count + 1:
            break
    return [Passage(text=t, title=f"qgeval-{i}") for i, t in enumerate(texts)]


def run_quiz(passage: Passage, n: int, rank: bool, settings: Settings) -> dict[str, Any]:
    request = GenerationRequest(n=n, types=("mcq",), rank=rank, candidates_per_target=3)
    forget_kept_state()
    started = time.perf_counter()
    events, result = run_to_end(
        generate_items(passage, request, settings=settings, cancel=CancelToken())
    )
    seconds = time.perf_counter() - started
    items = [e.payload.item for e in events if isinstance(e.payload, GeneratedStep)]
    # Score what was kept with the live metrics (already scored when ranked).
    missing = [it for it in items if "naco" not in it.scores or "kda" not in it.scores]
    if missing:
        run_to_end(score_items(missing, ["naco", "kda"], MetricContext(settings=settings)))
    passing = sum(1 for it in items if not it.flags)
    return {
        "seconds": seconds,
        "items": len(items),
        "passing": passing,
        "shortfall": result.shortfall,
        "stems": [it.stem for it in items],
        # Which review reasons keep items from passing (the codes of each kept item's flags).
        "flags": [sorted({f.code for f in it.flags}) for it in items],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--passages", type=int, default=3)
    parser.add_argument("--n", type=int, default=5)
    parser.add_argument("--threads", type=int, default=0, help="llama.cpp threads (0: cores)")
    args = parser.parse_args()
    settings = Settings(n_threads=args.threads)
    chosen = passages(args.passages)
    run_quiz(chosen[0], 1, True, settings)  # warm-up: loads every model
    runs: dict[str, list[dict[str, Any]]] = {"ranked": [], "unranked": []}
    for passage in chosen[1:]:
        for mode in ("ranked", "unranked"):
            runs[mode].append(run_quiz(passage, args.n, mode == "ranked", settings))
            print(mode, json.dumps(runs[mode][-1])[:300], flush=True)
    info = machine()
    data = {"machine": info, "revision": git_revision(), "n": args.n, "runs": runs}
    words = [len(p.text.split()) for p in chosen[1:]]
    md = [
        "## Generation (`bench/generation.py`)",
        "",
        f"Command: `.venv/bin/python bench/generation.py --passages {args.passages} --n "
        f"{args.n}` at revision {data['revision']}, {info['date']}; {info['cpu']}, "
        f"{info['logical_cpus']} logical CPUs. Default roles (SmolLM2-135M generator and QA, "
        f"Gemma-3-270M second solver, MiniLM); QGEval passages of {min(words)}-{max(words)} "
        f"words; {args.n}-item MCQ quizzes after one warm-up quiz; medians over passages.",
        "",
        "| mode | median s per quiz | median s per finished MCQ | items made | "
        "share passing all flags |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    for mode, results in runs.items():
        per_item = [r["seconds"] / r["items"] for r in results if r["items"]]
        made = sum(r["items"] for r in results)
        passing = sum(r["passing"] for r in results)
        md.append(
            f"| {mode} | {median([r['seconds'] for r in results]):.1f} | "
            f"{median(per_item):.1f} | {made} of {args.n * len(results)} | "
            f"{passing / made if made else 0:.0%} |"
        )
    md += ["", "Target: a 5-item MCQ quiz from a 300-word passage in under 60 s with ranking.", ""]
    for mode, results in runs.items():
        counts = Counter(code for r in results for codes in r["flags"] for code in codes)
        made = sum(r["items"] for r in results)
        listed = ", ".join(f"{code} {n}/{made}" for code, n in counts.most_common())
        md.append(f"Flags on the {mode} items: {listed or 'none'}.")
    md.append("")
    text = "\n".join(md)
    write_results("generation", data, text)
    print(text)


if __name__ == "__main__":
    main()
