"""Does the standard profile's reader (Qwen2.5-Coder-1.5B-Instruct) see what raters see?

    .venv/bin/python bench/standard_reader.py --passages 24 --shard 0/2 &   # fill, one
    .venv/bin/python bench/standard_reader.py --passages 24 --shard 1/2      # thread each
    .venv/bin/python bench/standard_reader.py --passages 24 --report

A pilot for issue 26's judgement study, which needs the whole of QGEval on the 1.5B model
(hours on 2 cores). On the first N passages of bench/judgement.py's interleaved QGEval order
(SQuAD and HotpotQA alternately, all 15 questions of each), through the project's own
LlamaCppProvider, greedy, one llama.cpp thread per shard, the passage's state kept across its
questions:

- `reader_f1`: the model answers the question from the passage in a chat ("the shortest
  phrase from the passage"), token F1 of its answer with the key (NACo's answerability);
- `reader_key_lp`: the key's mean token log-probability as the answer after
  "Text: passage / Question: q / Answer:" (a KDA-style likelihood);
- `reader_key_gain`: that minus the key's mean log-probability after a question that asks
  nothing (does *this question* point at the key?).

Per-item results (with the seconds each took) go to bench/results/standard-reader.jsonl,
which a re-run extends. `--report` correlates each signal with the raters' answer
consistency and acceptance (Pearson r; 95% intervals by bootstrapping passages, since a
passage's 15 questions are not independent) and writes bench/results/standard_reader.md.
Nothing is fitted here, so no cross-validation is needed for these figures.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from common import git_revision, machine, write_results
from judgement import interleaved_qgeval, with_ci
from quizsmith.evaluation.overall import ACCEPT_THRESHOLD, QGEVAL_DIMENSIONS
from quizsmith.providers import catalog
from quizsmith.providers.llamacpp import LlamaCppProvider
from quizsmith.quality.reader import READER_SIGNALS, reader_signals

MODEL = "qwen2.5-coder-1.5b-instruct"
RESULTS = Path(__file__).resolve().parent / "results" / "standard-reader.jsonl"
SIGNALS = READER_SIGNALS


def records(n_passages: int) -> list[dict[str, Any]]:
    rows = json.loads(interleaved_qgeval(n_passages).read_text(encoding="utf-8"))
    out = []
    for passage in rows:
        for index, question in enumerate(passage["questions"]):
            labels = {d: float(question[d]) for d in QGEVAL_DIMENSIONS}
            out.append(
                {
                    "key": f"{passage['id']}#{index}",
                    "passage_id": str(passage["id"]),
                    "passage": passage["passage"],
                    "answer": passage["answer"],
                    "question": question["prediction"],
                    "answer_consistency": labels["answer_consistency"],
                    "accept": int(all(v >= ACCEPT_THRESHOLD for v in labels.values())),
                    "mean": sum(labels.values()) / len(labels),
                }
            )
    return out


def read_one(model: LlamaCppProvider, row: dict[str, Any]) -> dict[str, Any]:
    started = time.perf_counter()
    signals = reader_signals(model, row["passage"], row["question"], row["answer"])
    return {"key": row["key"], **signals, "seconds": time.perf_counter() - started}


def known_results() -> dict[str, dict[str, Any]]:
    if not RESULTS.exists():
        return {}
    rows = [json.loads(line) for line in RESULTS.read_text(encoding="utf-8").splitlines()]
    return {row["key"]: row for row in rows}


def fill(args: argparse.Namespace) -> None:
    k, n = args.shard
    todo = [r for i, r in enumerate(records(args.passages)) if i % n == k]
    known = known_results()
    path = catalog.locate(catalog.find(MODEL, catalog.load_catalog()))
    model = LlamaCppProvider(path, model_id=MODEL, n_ctx=2048, n_threads=args.threads)
    with RESULTS.open("a", encoding="utf-8") as out:
        for row in todo:
            if row["key"] in known:
                continue
            result = read_one(model, row)
            out.write(json.dumps(result) + "\n")
            out.flush()
            print(f"{row['key']}: {result['seconds']:.1f} s", file=sys.stderr, flush=True)


def report(args: argparse.Namespace) -> None:
    rows = records(args.passages)
    known = known_results()
    done = [(r, known[r["key"]]) for r in rows if r["key"] in known]
    groups = np.array([r["passage_id"] for r, _ in done])
    data: dict[str, Any] = {
        "machine": machine(),
        "revision": git_revision(),
        "model": MODEL,
        "items": len(done),
        "passages": len(set(groups.tolist())),
        "median_seconds_per_item": statistics.median(k["seconds"] for _, k in done),
        "signals": {},
    }
    for signal in SIGNALS:
        x = np.array([k[signal] for _, k in done])
        data["signals"][signal] = {
            target: with_ci(x, np.array([r[target] for r, _ in done], dtype=float), groups=groups)
            for target in ("answer_consistency", "accept", "mean")
        }
    consistent = [k["reader_f1"] for r, k in done if r["answer_consistency"] >= 3]
    inconsistent = [k["reader_f1"] for r, k in done if r["answer_consistency"] < 2.5]
    data["f1_consistent"] = statistics.fmean(consistent) if consistent else None
    data["f1_inconsistent"] = statistics.fmean(inconsistent) if inconsistent else None
    m = data["machine"]
    md = [
        "### The standard reader on QGEval (`bench/standard_reader.py`)",
        "",
        f"Command: `.venv/bin/python bench/standard_reader.py --passages {args.passages}` "
        f"(filled in shards, one thread each) at revision {data['revision']}, {m['date']}. "
        f"Machine: {m['cpu']}, {m['logical_cpus']} logical CPUs. {MODEL} through "
        f"LlamaCppProvider, greedy. n = {data['items']} questions of {data['passages']} "
        f"passages; median {data['median_seconds_per_item']:.1f} s per item on one thread.",
        "",
        "Pearson r [95% interval, passages resampled]; nothing is fitted:",
        "",
        "| signal | answer consistency | acceptance | mean rating |",
        "| --- | --- | --- | --- |",
    ]
    for signal, by_target in data["signals"].items():
        cells = [
            f"{v['value']:.2f} [{v['ci95_by_passage'][0]:.2f}, {v['ci95_by_passage'][1]:.2f}]"
            for v in by_target.values()
        ]
        md.append(f"| {signal} | " + " | ".join(cells) + " |")
    md += [
        "",
        f"Mean reader F1 on questions all raters call answer-consistent (3/3): "
        f"{data['f1_consistent']:.2f} (n {len(consistent)}); below 2.5: "
        f"{data['f1_inconsistent']:.2f} (n {len(inconsistent)}).",
        "",
    ]
    data["fit"] = fitted = fit(args)
    md += [
        f"The overall estimate on these items, out of fold (5 folds grouped by passage; n "
        f"{fitted['items']} of {fitted['passages']} passages, {fitted['accepted']} accepted); "
        "the light signals from the light models, the reader signals from the 1.5B model:",
        "",
        "| features / estimator | r with acceptance | AUC |",
        "| --- | --- | --- |",
    ]
    for name, entry in fitted["fits"].items():
        r, auc = entry["pearson_vs_accept"], entry["auc"]
        md.append(
            f"| {name} | {r['value']:.3f} [{r['ci95_by_passage'][0]:.2f}, "
            f"{r['ci95_by_passage'][1]:.2f}] | {auc['value']:.3f} "
            f"[{auc['ci95_by_passage'][0]:.2f}, {auc['ci95_by_passage'][1]:.2f}] |"
        )
    flag = fitted["answer_differs"]
    md += [
        "",
        f"`answer-differs` raised when the reader's answer shares no word with the key: "
        f"{flag['raised']} raised, precision {flag['precision']:.2f} against answer "
        f"consistency < 2.5 (n {flag['inconsistent']} such items), recall {flag['recall']:.2f}.",
        "",
    ]
    write_results("standard_reader", data, "\n".join(md))
    print("\n".join(md))


def record_keys(records: list[Any]) -> list[str]:
    """Each evaluation record's key in this file's form ("<passage id>#<question index>"):
    the QGEval adapter keeps the questions of a passage in the file's order."""
    seen: dict[str, int] = {}
    keys = []
    for record in records:
        pid = record.record_id.split(":")[1]
        keys.append(f"{pid}#{seen.get(pid, 0)}")
        seen[pid] = seen.get(pid, 0) + 1
    return keys


def training_sets(args: argparse.Namespace) -> dict[str, Any]:
    """The light signals (the `signals` metric on the light models, through the evaluation
    cache) of the items the reader has read, with the reader signals beside them."""
    from judgement import score
    from quizsmith.evaluation.overall import TrainingData, training_data

    report = score(interleaved_qgeval(args.passages), "qgeval", None, args)
    keys = record_keys(list(report.records))
    known = known_results()
    keep = [i for i, key in enumerate(keys) if key in known]
    records = [report.records[i] for i in keep]
    light = training_data(records, [report.results[i] for i in keep])
    key_of = {id(r): keys[i] for i, r in zip(keep, records, strict=True)}
    reader_x = np.array(
        [[known[key_of[id(r)]][s] for s in READER_SIGNALS] for r in light.records], dtype=float
    )
    reader_cols = tuple(f"sig.{s}" for s in READER_SIGNALS)

    def data(x: np.ndarray, columns: tuple[str, ...]) -> Any:
        return TrainingData(light.records, x, light.y, light.groups, columns)

    return {
        "light signals": light,
        "reader signals": data(reader_x, reader_cols),
        "light + reader signals": data(np.hstack([light.x, reader_x]), light.columns + reader_cols),
        "answer_consistency": np.array([r.labels["answer_consistency"] for r in light.records]),
        "reader_f1": reader_x[:, 0],
    }


def fit(args: argparse.Namespace) -> dict[str, Any]:
    """Out-of-fold (5 folds grouped by passage) r with acceptance and AUC of each feature set,
    intervals by resampling passages; and the precision of an `answer-differs` flag raised
    when the reader's answer shares no word with the key."""
    from sklearn.metrics import roc_auc_score

    from quizsmith.evaluation.overall import grouped_folds, out_of_fold

    sets = training_sets(args)
    light = sets["light signals"]
    groups = np.array(light.groups)
    folds = grouped_folds(light.groups, 5)
    out: dict[str, Any] = {"items": len(light.y), "passages": len(set(light.groups))}
    out["accepted"] = int(light.y.sum())
    fits: dict[str, Any] = {}
    for name in ("light signals", "reader signals", "light + reader signals"):
        for kind in ("logistic", "blend"):
            oof = out_of_fold(sets[name], folds, 0, kind)
            fits[f"{name} / {kind}"] = {
                "pearson_vs_accept": with_ci(oof, light.y.astype(float), groups=groups),
                "auc": with_ci(
                    oof, light.y, lambda a, b: float(roc_auc_score(b, a)), groups=groups
                ),
            }
    out["fits"] = fits
    raised = sets["reader_f1"] == 0
    inconsistent = sets["answer_consistency"] < 2.5
    out["answer_differs"] = {
        "raised": int(raised.sum()),
        "precision": float(inconsistent[raised].mean()) if raised.any() else None,
        "recall": float(raised[inconsistent].mean()) if inconsistent.any() else None,
        "inconsistent": int(inconsistent.sum()),
    }
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--passages", type=int, default=24)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--shard", default="0/1", help="K/N: fill every N-th item from K")
    parser.add_argument("--report", action="store_true")
    parser.add_argument("--cache-dir", default=None, help="the evaluation cache (light signals)")
    args = parser.parse_args()
    k, _, n = args.shard.partition("/")
    args.shard = (int(k), int(n or 1))
    if not 0 <= args.shard[0] < args.shard[1]:
        parser.error("--shard K/N needs 0 <= K < N")
    if args.report:
        report(args)
    else:
        fill(args)


if __name__ == "__main__":
    main()
