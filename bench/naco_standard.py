"""NACo with the paper's A.2 prompt on the standard profile's 1.5B model, against QGEval.

    .venv/bin/python bench/naco_standard.py --shard 0/2 --minutes 45 &   # fill, one
    .venv/bin/python bench/naco_standard.py --shard 1/2 --minutes 45      # thread each
    .venv/bin/python bench/naco_standard.py --report
    .venv/bin/python bench/naco_standard.py --report --backend gpu   # naco_standard_gpu.py's
    .venv/bin/python bench/naco_standard.py --variants 30 --shard 0/2 ...  # NACo variants
    .venv/bin/python bench/naco_standard.py --variants 30 --report

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
fitted, so no cross-validation is needed. `--backend gpu` reports bench/naco_standard_gpu.py's
results instead (all of QGEval, sampled on a lent GPU), beside this script's on the questions
both scored.

`--variants N`: the first N NACo-variant groups (3 valid questions, 4 flawed ones each), the
issue's second NACo target: each valid question above each flawed one in >= 90% of groups.
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
from judgement import (
    FLAWED,
    SHARED,
    VALID,
    ci_row,
    group_table,
    interleaved_qgeval,
    shard_arg,
    with_ci,
)
from quizsmith.evaluation import adapters
from quizsmith.evaluation.overall import ACCEPT_THRESHOLD, QGEVAL_DIMENSIONS

RESULTS = Path(__file__).resolve().parent / "results" / "naco-standard.jsonl"
PASSAGES = 100
SEED = 26
PARTS = ("naco", "n", "a", "c")


def records(passages: int = PASSAGES) -> list[Any]:
    """QGEval's records of the first `passages` passages (interleaved order), seeded shuffle."""
    rows = adapters.load_records(interleaved_qgeval(passages), "qgeval")
    random.Random(SEED).shuffle(rows)
    return rows


VARIANT_RESULTS = RESULTS.with_name("naco-standard-variants.jsonl")


def variant_records(groups: int) -> list[Any]:
    """The first `groups` NACo-variant groups (SQuAD passages: 3 valid questions and 4 flawed
    ones each), in the data's order, as bench/judgement.py reads them."""
    rows = adapters.load_records(SHARED / "naco" / "squad_candidates.jsonl", "naco-variants")
    first = list(dict.fromkeys(r.group for r in rows))[:groups]
    return [r for r in rows if r.group in set(first)]


def naco_values(result: Any) -> dict[str, Any]:
    """A NACo result as a per-item results row has it: the score and its parts."""
    values = result.values or {}
    return {"naco": result.value, **{p: values.get(p) for p in ("n", "a", "c")}}


def known_results(path: Path = RESULTS) -> dict[str, dict[str, Any]]:
    return per_item_results(path, "id")


def fill(args: argparse.Namespace) -> None:
    from quizsmith.metrics import registry
    from quizsmith.metrics.base import MetricContext
    from quizsmith.settings import Settings

    k, n = args.shard
    deadline = time.monotonic() + args.minutes * 60
    settings = Settings(n_threads=args.threads, profile="standard")
    ctx = MetricContext(settings=settings, seed=0)
    naco = registry.get("naco")()
    path = VARIANT_RESULTS if args.variants else RESULTS
    todo = variant_records(args.variants) if args.variants else records()
    known = known_results(path)
    with path.open("a", encoding="utf-8") as out:
        for index, record in enumerate(todo):
            if index % n != k or record.record_id in known:
                continue
            if time.monotonic() > deadline:
                break
            started = time.perf_counter()
            result = naco.score(record.item, ctx)
            row = {
                "id": record.record_id,
                **naco_values(result),
                "profile": (result.model_config or {}).get("profile"),
                "seconds": round(time.perf_counter() - started, 2),
            }
            out.write(json.dumps(row) + "\n")
            out.flush()
            print(f"{record.record_id}: {row['naco']} ({row['seconds']} s)", file=sys.stderr)


GPU_RESULTS = RESULTS.with_name("naco-standard-gpu.jsonl")


def report(args: argparse.Namespace) -> None:
    gpu = args.backend == "gpu"
    passages = 200 if gpu else PASSAGES
    known = per_item_results(GPU_RESULTS, "id") if gpu else known_results()
    done = [
        (r, known[r.record_id])
        for r in records(passages)
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
        "backend": args.backend,
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
    how = (
        "Sampled on a lent NVIDIA H200 by `bench/naco_standard_gpu.py` (transformers reading "
        "the same GGUF; the deviations are listed there), 2026-11-27; the report run at "
        f"revision {data['revision']}. n = {data['items']} QGEval questions of "
        f"{data['passages']} passages (all of QGEval), {data['not_scored']} not scored (the "
        "retry's answer unreadable without llama.cpp's grammar); a median "
        f"{data['median_seconds']:.2f} s per question (a batch's time shared)."
        if gpu
        else f"Filled in two shards, one llama.cpp thread each, at revision {data['revision']}, "
        f"{m['date']}; {m['cpu']}, {m['logical_cpus']} logical CPUs. n = {data['items']} QGEval "
        f"questions of {data['passages']} passages (a seeded sample of the first {PASSAGES} "
        f"passages' questions), {data['not_scored']} not scored; median "
        f"{data['median_seconds']:.1f} s per question on one thread."
    )
    md = [
        "### NACo with the A.2 prompt on the standard model"
        + (" on a GPU (`bench/naco_standard_gpu.py`)" if gpu else " (`bench/naco_standard.py`)"),
        "",
        "Qwen2.5-Coder-1.5B-Instruct (the standard profile's qa model), chat profile, one run "
        "at temperature 0.7. " + how,
        "",
        "Pearson r [95% interval, passages resampled]; nothing is fitted:",
        "",
        "| score | " + " | ".join(labels) + " |",
        "| --- | " + " | ".join("---" for _ in labels) + " |",
    ]
    for part, by_label in data["correlations"].items():
        md.append(ci_row("NACo" if part == "naco" else part, by_label))
    data["beside_the_reader"] = beside_the_reader(done, labels, groups, passages)
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
    if gpu:
        data["beside_llama_cpp"] = beside_llama_cpp(done, labels, groups)
        md += ["", *backend_rows(data["beside_llama_cpp"])]
    md.append("")
    write_results("naco_standard_gpu" if gpu else "naco_standard", data, "\n".join(md))
    print("\n".join(md))


def beside_the_reader(
    done: list[tuple[Any, dict[str, Any]]],
    labels: dict[str, list[float]],
    groups: np.ndarray,
    passages: int = PASSAGES,
) -> dict[str, Any]:
    """The reader's answer F1 and NACo's answer a on the same questions (those the reader
    has read), with the mean rating and answer consistency."""
    from standard_reader import known_results as reader_results
    from standard_reader import record_keys

    ordered = adapters.load_records(interleaved_qgeval(passages), "qgeval")
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


def variant_report(args: argparse.Namespace) -> None:
    """Issue 26's second NACo target: in each variant group, is every valid question scored
    above each flawed one? A tie counts as not above (as bench/judgement.py counts it); ties
    are shown beside, since NACo takes few distinct values."""
    known = known_results(VARIANT_RESULTS)
    done = [
        r
        for r in variant_records(args.variants)
        if r.record_id in known and known[r.record_id]["naco"] is not None
    ]
    values = np.array([float(known[r.record_id]["naco"]) for r in done])
    # Pairs a valid question wins and the means by role, as the judgement study counts them.
    table = group_table(done, values)
    scored: dict[str, dict[str, float]] = {}
    for r, value in zip(done, values, strict=True):
        scored.setdefault(r.group, {})[r.role] = float(value)
    data: dict[str, Any] = {
        "machine": machine(),
        "revision": git_revision(),
        "groups": table["groups"],
        "questions": len(done),
        "not_scored": sum(1 for row in known.values() if row["naco"] is None),
        "by_flawed": {},
        "mean_by_role": table["mean_by_role"],
    }
    for flawed in FLAWED:
        pairs = [(g[v], g[flawed]) for g in scored.values() if flawed in g for v in VALID if v in g]
        whole = [
            all(g[v] > g[flawed] for v in VALID if v in g) for g in scored.values() if flawed in g
        ]
        data["by_flawed"][flawed] = {
            "pairs": len(pairs),
            "valid_above": table["valid_above"][flawed],
            "ties": round(float(np.mean([a == b for a, b in pairs])), 3),
            "groups_all_above": round(float(np.mean(whole)), 3),
        }
    m = data["machine"]
    md = [
        "### NACo on the NACo variants, standard model (`bench/naco_standard.py --variants`)",
        "",
        f"Filled in two shards, one llama.cpp thread each, at revision {data['revision']}, "
        f"{m['date']}; {m['cpu']}, {m['logical_cpus']} logical CPUs. The first "
        f"{data['groups']} variant groups ({data['questions']} questions, "
        f"{data['not_scored']} not scored); one sampled run at temperature 0.7. Target "
        "(issue 26): the valid question above each flawed one in at least 90% of groups.",
        "",
        "| flawed kind | valid-flawed pairs | valid above | tied | groups with all 3 valid above |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    for flawed, row in data["by_flawed"].items():
        md.append(
            f"| {flawed} | {row['pairs']} | {row['valid_above']:.0%} | {row['ties']:.0%} | "
            f"{row['groups_all_above']:.0%} |"
        )
    means = ", ".join(f"{k} {v:.2f}" for k, v in data["mean_by_role"].items())
    md += ["", f"Mean NACo by kind: {means}.", ""]
    write_results("naco_standard_variants", data, "\n".join(md))
    print("\n".join(md))


def beside_llama_cpp(
    done: list[tuple[Any, dict[str, Any]]], labels: dict[str, list[float]], groups: np.ndarray
) -> dict[str, Any]:
    """On the questions both backends scored: each one's r with the mean rating, and how
    far the two agree (each is one sampled run, so they cannot agree fully)."""
    cpu = {k: v for k, v in known_results().items() if v["naco"] is not None}
    both = [i for i, (r, _) in enumerate(done) if r.record_id in cpu]
    if len(both) < 3:
        return {}
    y = np.array([labels["mean rating"][i] for i in both])
    out: dict[str, Any] = {"questions": len(both)}
    for part in PARTS:
        gpu_x = np.array([float(done[i][1][part]) for i in both])
        cpu_x = np.array([float(cpu[done[i][0].record_id][part]) for i in both])
        out[part] = {
            "llama.cpp": with_ci(cpu_x, y, groups=groups[both]),
            "gpu": with_ci(gpu_x, y, groups=groups[both]),
            "between": with_ci(cpu_x, gpu_x, groups=groups[both]),
            "means": [round(float(cpu_x.mean()), 3), round(float(gpu_x.mean()), 3)],
        }
    return out


def backend_rows(beside: dict[str, Any]) -> list[str]:
    if not beside:
        return []
    rows = [
        f"On the {beside['questions']} questions bench/naco_standard.py scored through "
        "llama.cpp (one sampled run each): r with the mean rating by backend, the two runs' "
        "agreement, means:",
        "",
        "| score | llama.cpp | GPU | llama.cpp vs GPU | mean (llama.cpp / GPU) |",
        "| --- | --- | --- | --- | --- |",
    ]
    for part in PARTS:
        cells = beside[part]
        figures = [
            f"{cells[k]['value']:.2f} [{cells[k]['ci95_by_passage'][0]:.2f}, "
            f"{cells[k]['ci95_by_passage'][1]:.2f}]"
            for k in ("llama.cpp", "gpu", "between")
        ]
        means = " / ".join(f"{m:.2f}" for m in cells["means"])
        rows.append(
            f"| {'NACo' if part == 'naco' else part} | " + " | ".join(figures) + f" | {means} |"
        )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shard", type=shard_arg, default=(0, 1), help="K/N: every N-th item")
    parser.add_argument("--minutes", type=float, default=60.0, help="stop a shard after this")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument(
        "--variants", type=int, default=0, help="fill or report the first N variant groups"
    )
    parser.add_argument("--report", action="store_true")
    parser.add_argument(
        "--backend",
        choices=("llama.cpp", "gpu"),
        default="llama.cpp",
        help="--report: this script's results, or bench/naco_standard_gpu.py's",
    )
    args = parser.parse_args()
    if args.report and args.variants:
        variant_report(args)
    elif args.report:
        report(args)
    else:
        fill(args)


if __name__ == "__main__":
    main()
