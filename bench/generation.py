"""Benchmark: a 5-item MCQ quiz from a ~300-word passage, with and without ranking.

Passages are real QGEval/SQuAD paragraphs from ../shared/data/qgeval (consecutive paragraphs
joined until about 300 words). For each passage the quiz is generated twice on the bundled
models: with overgenerate-and-rank (3 candidates per target, NACo + KDA + the overall
estimate, ranked by the overall estimate) and without (`rank=False`, first valid candidate).
Every kept MCQ is then scored with the live metrics and the overall estimate so that "passes
all flags" and the mean estimate mean the same thing in both runs.

Warnings are checked against the passage: an item whose key occurs in the passage sentence
nearest its question (MiniLM), whose stem reads as a question and does not contain the key,
"passes the passage check"; a warning on such an item is counted as unconfirmed (a likely
false alarm). Hints (severity info) are reported apart: they do not queue an item.

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
from quizsmith.domain import Item, Passage
from quizsmith.generation import GeneratedStep, GenerationRequest, generate_items
from quizsmith.jobs import CancelToken, run_to_end
from quizsmith.metrics.base import MetricContext
from quizsmith.metrics.flag_policy import is_hint
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
    live = ["naco", "kda", "overall"]
    missing = [it for it in items if any(m not in it.scores for m in live)]
    if missing:
        run_to_end(score_items(missing, live, MetricContext(settings=settings)))
    warned = [it for it in items if any(not is_hint(f) for f in it.flags)]
    checked = [passage_check(it) for it in warned]
    overall = [
        float(s.value)
        for it in items
        if (s := it.scores.get("overall")) is not None and s.scored and s.value is not None
    ]
    return {
        "seconds": seconds,
        "items": len(items),
        "passing": sum(1 for it in items if not any(not is_hint(f) for f in it.flags)),
        "warned": len(warned),
        "warned_confirmed": sum(1 for ok in checked if not ok),
        "overall": overall,
        "shortfall": result.shortfall,
        "stems": [it.stem for it in items],
        "keys": [it.key for it in items],
        # Which review reasons keep items from passing (the codes of each kept item's flags).
        "flags": [sorted({f.code for f in it.flags if not is_hint(f)}) for it in items],
        "hints": [sorted({f.code for f in it.flags if is_hint(f)}) for it in items],
    }


def passage_check(item: Item) -> bool:
    """True when the item looks sound against its passage (see the module docstring)."""
    from quizsmith.generation.sentences import split_sentences
    from quizsmith.metrics.squad import normalize_answer
    from quizsmith.providers import provider_for
    from quizsmith.quality.signals import is_question, key_in_stem, nearest_sentences

    text = item.passage.text if item.passage else ""
    sentences = [s.text for s in split_sentences(text)] or [text]
    best, _ = nearest_sentences(provider_for("all-minilm-l6-v2"), item.stem, sentences, 1)
    in_sentence = normalize_answer(item.key) in normalize_answer(best[0])
    return in_sentence and is_question(item.stem) == 1.0 and key_in_stem(item.stem, item.key) < 1


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
        "share with no warning | mean overall estimate | items with a warning | "
        "of those, confirmed by the passage check |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for mode, results in runs.items():
        per_item = [r["seconds"] / r["items"] for r in results if r["items"]]
        made = sum(r["items"] for r in results)
        passing = sum(r["passing"] for r in results)
        estimates = [v for r in results for v in r["overall"]]
        warned = sum(r["warned"] for r in results)
        confirmed = sum(r["warned_confirmed"] for r in results)
        md.append(
            f"| {mode} | {median([r['seconds'] for r in results]):.1f} | "
            f"{median(per_item):.1f} | {made} of {args.n * len(results)} | "
            f"{passing / made if made else 0:.0%} | "
            f"{sum(estimates) / len(estimates) if estimates else float('nan'):.3f} "
            f"(n {len(estimates)}) | {warned} | {confirmed} |"
        )
    md += ["", "Target: a 5-item MCQ quiz from a 300-word passage in under 60 s with ranking.", ""]
    for mode, results in runs.items():
        counts = Counter(code for r in results for codes in r["flags"] for code in codes)
        made = sum(r["items"] for r in results)
        listed = ", ".join(f"{code} {n}/{made}" for code, n in counts.most_common())
        md.append(f"Warnings on the {mode} items: {listed or 'none'}.")
        hints = Counter(code for r in results for codes in r["hints"] for code in codes)
        shown = ", ".join(f"{code} {n}/{made}" for code, n in hints.most_common())
        md.append(f"Hints on the {mode} items: {shown or 'none'}.")
    md.append("")
    text = "\n".join(md)
    write_results("generation", data, text)
    print(text)


if __name__ == "__main__":
    main()
