"""NACo with the paper's A.2 prompt on the standard profile's 1.5B model, against QGEval.

    .venv/bin/python bench/naco_standard.py --shard 0/2 --minutes 45 &   # fill, one
    .venv/bin/python bench/naco_standard.py --shard 1/2 --minutes 45      # thread each
    .venv/bin/python bench/naco_standard.py --report

Issue 26 asks for NACo (the chat profile: appendix A.2's chain-of-thought prompt verbatim,
one run at the paper's temperature 0.7, seeded) on the standard model, on at least 900 QGEval
questions, against the mean of the seven human ratings (target r >= 0.45; light profile
0.256; the paper, GPT-3.5 on HotpotQA, 0.68). A chain of thought costs tens of seconds per
question on one core, so this fills what time allows: the questions of QGEval's first 100
passages in bench/judgement.py's interleaved order, shuffled with a fixed seed so that any
prefix spreads over many passages; shard K of N takes every N-th, one llama.cpp thread each.
Per-item results (record id, NACo and its parts n/a/c, seconds) go to
bench/results/naco-standard.jsonl, which a re-run extends; `--minutes` stops a shard after
that long (between items).

`--report`: Pearson r of each score with the mean rating, acceptance and answer consistency,
95% intervals by resampling passages (a passage's questions are not independent). Nothing is
fitted, so no cross-validation is needed.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from common import git_revision, machine, per_item_results, write_results
from judgement import ci_row, interleaved_qgeval, shard_arg, with_ci
from quizsmith.evaluation import adapters
from quizsmith.evaluation.overall import ACCEPT_THRESHOLD, QGEVAL_DIMENSIONS

RESULTS = Path(__file__).resolve().parent / "results" / "naco-standard.jsonl"
PASSAGES = 100
SEED = 26
PARTS = ("naco", "n", "a", "c")


def records() -> list[Any]:
    """QGEval's records of the first PASSAGES passages (interleaved order), seeded shuffle."""
    rows = adapters.load_records(interleaved_qgeval(PASSAGES), "qgeval")
    random.Random(SEED).shuffle(rows)
    return rows


def known_results() -> dict[str, dict[str, Any]]:
    return per_item_results(RESULTS, "id")


def fill(args: argparse.Namespace) -> None:
    from quizsmith.metrics import registry
    from quizsmith.metrics.base import MetricContext
    from quizsmith.settings import Settings

    k, n = args.shard
    deadline = time.monotonic() + args.minutes * 60
    settings = Settings(n_threads=args.threads, profile="standard")
    ctx = MetricContext(settings=settings, seed=0)
    naco = registry.get("naco")()
    known = known_results()
    with RESULTS.open("a", encoding="utf-8") as out:
        for index, record in enumerate(records()):
            if index % n != k or record.record_id in known:
                continue
            if time.monotonic() > deadline:
                break
            started = time.perf_counter()
            result = naco.score(record.item, ctx)
            values = result.values or {}
            row = {
                "id": record.record_id,
                "naco": result.value,
                **{p: values.get(p) for p in ("n", "a", "c")},
                "profile": (result.model_config or {}).get("profile"),
                "seconds": round(time.perf_counter() - started, 2),
            }
            out.write(json.dumps(row) + "\n")
            out.flush()
            print(f"{record.record_id}: {row['naco']} ({row['seconds']} s)", file=sys.stderr)


def report(args: argparse.Namespace) -> None:
    known = known_results()
    done = [
        (r, known[r.record_id])
        for r in records()
        if r.record_id in known and known[r.record_id]["naco"] is not None
    ]
    groups = np.array([r.record_id.split(":")[1] for r, _ in done])
    labels = {
        "mean rating": [statistics.fmean(r.labels[d] for d in QGEVAL_DIMENSIONS) for r, _ in done],
        "acceptance": [
            float(all(r.labels[d] >= ACCEPT_THRESHOLD for d in QGEVAL_DIMENSIONS)) for r, _ in done
        ],
        "answer consistency": [r.labels["answer_consistency"] for r, _ in done],
        "fluency": [r.labels["fluency"] for r, _ in done],
    }
    data: dict[str, Any] = {
        "machine": machine(),
        "revision": git_revision(),
        "items": len(done),
        "not_scored": sum(1 for row in known.values() if row["naco"] is None),
        "passages": len(set(groups.tolist())),
        "median_seconds": statistics.median(row["seconds"] for _, row in done) if done else None,
        "correlations": {},
    }
    for part in PARTS:
        x = np.array([float(row[part]) for _, row in done])
        data["correlations"][part] = {
            name: with_ci(x, np.array(y), groups=groups) for name, y in labels.items()
        }
    m = data["machine"]
    md = [
        "### NACo with the A.2 prompt on the standard model (`bench/naco_standard.py`)",
        "",
        f"Filled in two shards, one llama.cpp thread each, at revision {data['revision']}, "
        f"{m['date']}; {m['cpu']}, {m['logical_cpus']} logical CPUs. Qwen2.5-Coder-1.5B-Instruct "
        f"(the standard profile's qa model), chat profile, one run at temperature 0.7. n = "
        f"{data['items']} QGEval questions of {data['passages']} passages (a seeded sample of "
        f"the first {PASSAGES} passages' questions), {data['not_scored']} not scored; median "
        f"{data['median_seconds']:.1f} s per question on one thread.",
        "",
        "Pearson r [95% interval, passages resampled]; nothing is fitted:",
        "",
        "| score | " + " | ".join(labels) + " |",
        "| --- | " + " | ".join("---" for _ in labels) + " |",
    ]
    for part, by_label in data["correlations"].items():
        md.append(ci_row("NACo" if part == "naco" else part, by_label))
    data["beside_the_reader"] = beside_the_reader(done, labels, groups)
    if data["beside_the_reader"]:
        md += [
            "",
            "On the same questions, the standard profile's reader (`bench/standard_reader.py`:"
            " the 1.5B model answering zero-shot, greedy) against NACo's A.2 answer:",
            "",
            "| answer | mean rating | answer consistency |",
            "| --- | --- | --- |",
        ]
        md += [ci_row(name, by_label) for name, by_label in data["beside_the_reader"].items()]
    md.append("")
    write_results("naco_standard", data, "\n".join(md))
    print("\n".join(md))


def beside_the_reader(
    done: list[tuple[Any, dict[str, Any]]], labels: dict[str, list[float]], groups: np.ndarray
) -> dict[str, Any]:
    """The reader's answer F1 and NACo's answer a on the same questions (those the reader
    has read), with the mean rating and answer consistency."""
    from standard_reader import known_results as reader_results
    from standard_reader import record_keys

    ordered = adapters.load_records(interleaved_qgeval(PASSAGES), "qgeval")
    key_of = dict(zip((r.record_id for r in ordered), record_keys(ordered), strict=True))
    read = reader_results()
    both = [i for i, (r, _) in enumerate(done) if key_of.get(r.record_id) in read]
    if len(both) < 3:
        return {}
    f1 = np.array([read[key_of[done[i][0].record_id]]["reader_f1"] for i in both])
    a = np.array([float(done[i][1]["a"]) for i in both])
    out = {}
    for name, x in (("reader F1 (zero-shot)", f1), ("NACo a (A.2)", a)):
        out[name] = {
            label: with_ci(x, np.array([labels[label][i] for i in both]), groups=groups[both])
            for label in ("mean rating", "answer consistency")
        }
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shard", type=shard_arg, default=(0, 1), help="K/N: every N-th item")
    parser.add_argument("--minutes", type=float, default=60.0, help="stop a shard after this")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--report", action="store_true")
    args = parser.parse_args()
    if args.report:
        report(args)
    else:
        fill(args)


if __name__ == "__main__":
    main()
