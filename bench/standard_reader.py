"""Does the standard profile's reader (Qwen2.5-Coder-1.5B-Instruct) see what raters see?

    .venv/bin/python bench/standard_reader.py --passages 40 --shard 0/2 &   # fill, one
    .venv/bin/python bench/standard_reader.py --passages 40 --shard 1/2      # thread each
    .venv/bin/python bench/standard_reader.py --passages 40 --report

A pilot for issue 26's judgement study, which needs the whole of QGEval on the 1.5B model
(hours on 2 cores). On the first N passages of bench/judgement.py's interleaved QGEval order
(SQuAD and HotpotQA alternately, all 15 questions of each), through the project's own
LlamaCppProvider, greedy, one llama.cpp thread per shard, the passage's state kept across its
questions:

- `reader_f1`: the model answers the question from the passage in a chat ("the shortest
  phrase from the passage"), token F1 of its answer with the key (NACo's answerability);
- `reader_key_lp`: the key's mean token log-probability as the reply in that chat (reader
  version 2; version 1 read it after "Text: passage / Question: q / Answer:");
- `reader_key_gain` (dropped from the app in version 2, still recorded by --relikelihood):
  that minus the key's mean log-probability after a question that asks
  nothing (does *this question* point at the key?).

`--relikelihood` re-reads the two likelihoods of results an earlier reader version wrote,
keeping their answers (sharded by passage; `--report` refuses a file that still holds any).
`--variants` fills the NACo-variant groups bench/judgement.py uses (`--variant-groups`);
`--export-items` writes the standard profile's training items (light signals, decision,
reading key) and their readings to packaging/estimators/, from which
`python -m quizsmith.evaluation.train_estimator --config packaging/estimators/overall_standard.toml`
fits resources/overall_model_standard.joblib (this script no longer writes it).

Per-item results (with the seconds each took) go to
packaging/estimators/standard_reader_items.jsonl, which a re-run extends. `--report`
correlates each signal with the raters' answer consistency and acceptance (Pearson r; 95%
intervals by bootstrapping passages, since a passage's 15 questions are not independent) and
writes the `standard_reader` section of bench/results/estimators.json.
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
from common import git_revision, machine, per_item_results, write_results
from judgement import (
    SHARED,
    ci_row,
    group_table,
    interleaved_qgeval,
    r_gain,
    shard_arg,
    with_ci,
)
from quizsmith.evaluation.overall import ACCEPT_THRESHOLD, QGEVAL_DIMENSIONS
from quizsmith.providers import catalog
from quizsmith.providers.llamacpp import LlamaCppProvider
from quizsmith.quality.reader import (
    READER_SIGNALS,
    READER_VERSION,
    key_mean_logprob,
    reader_signals,
)

MODEL = "qwen2.5-coder-1.5b-instruct"
#: The question that asks nothing, for `reader_key_gain` (the key's likelihood after the
#: question minus after this): a reader signal until version 2 dropped it (quality/reader.py);
#: --relikelihood still records it, so its correlation stays on file.
NEUTRAL_QUESTION = "What is mentioned in the text?"
#: The 1.5B reader's per-item readings: the standard overall model's input data, kept beside
#: its config (packaging/estimators/overall_standard.toml; issue 49).
ESTIMATORS = Path(__file__).resolve().parents[1] / "packaging" / "estimators"
RESULTS = ESTIMATORS / "standard_reader_items.jsonl"
#: The standard model's training items and their readings, beside the config that fits it.
ITEMS_FILE = ESTIMATORS / "overall_standard.jsonl"
READINGS_FILE = ESTIMATORS / "overall_standard_readings.jsonl"
# The correlation table keeps the dropped gain signal beside the ones the app reads.
SIGNALS = (*READER_SIGNALS, "reader_key_gain")


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
                    "ratings": labels,
                }
            )
    return out


VARIANTS = SHARED / "naco" / "squad_candidates.jsonl"


def variant_rows(groups: int) -> list[dict[str, Any]]:
    """The NACo-style variant groups bench/judgement.py scores (the same seeded sample of
    whole groups: 3 valid questions and 4 flawed ones per SQuAD passage), keyed by record id."""
    from quizsmith.evaluation import adapters
    from quizsmith.evaluation.sampling import stratified_sample

    records = stratified_sample(
        adapters.load_records(VARIANTS, "naco-variants"), groups * 7, 0, whole_groups=True
    )
    return [
        {
            "key": r.record_id,
            "passage": r.item.passage.text if r.item.passage else "",
            "answer": r.item.key,
            "question": r.item.stem,
        }
        for r in records
    ]


def read_one(model: LlamaCppProvider, row: dict[str, Any]) -> dict[str, Any]:
    started = time.perf_counter()
    signals = reader_signals(model, row["passage"], row["question"], row["answer"])
    return {
        "key": row["key"],
        **signals,
        "reader_version": READER_VERSION,
        "seconds": time.perf_counter() - started,
    }


def stale(row: dict[str, Any]) -> bool:
    """A result whose key likelihoods an earlier reader computed (quality/reader.py's
    READER_VERSION; 1: after "Text: passage / Question / Answer:" as plain text)."""
    return int(row.get("reader_version", 1)) < READER_VERSION


def relikelihood(args: argparse.Namespace) -> None:
    """Re-read the two key likelihoods of stale results with the current reader, keeping
    the reader's answer (the same greedy chat, unchanged): a new line per item, which
    supersedes the old one. Sharded by passage, so each shard reads a passage once."""
    k, n = args.shard
    rows = records(args.passages) + variant_rows(args.variant_groups)
    known = known_results()
    passages = list(dict.fromkeys(r["passage"] for r in rows))
    mine = set(passages[k::n])
    path = catalog.locate(catalog.find(MODEL, catalog.load_catalog()))
    model = LlamaCppProvider(path, model_id=MODEL, n_ctx=2048, n_threads=args.threads)
    with RESULTS.open("a", encoding="utf-8") as out:
        for row in rows:
            old = known.get(row["key"])
            if row["passage"] not in mine or old is None or not stale(old):
                continue
            started = time.perf_counter()
            lp = key_mean_logprob(model, row["passage"], row["question"], row["answer"])
            prior = key_mean_logprob(model, row["passage"], NEUTRAL_QUESTION, row["answer"])
            new = {
                **old,
                "reader_key_lp": lp,
                "reader_key_gain": lp - prior,
                "reader_version": READER_VERSION,
                "likelihood_seconds": time.perf_counter() - started,
            }
            out.write(json.dumps(new) + "\n")
            out.flush()
            print(f"{row['key']}: {new['likelihood_seconds']:.1f} s", file=sys.stderr, flush=True)


def known_results() -> dict[str, dict[str, Any]]:
    return per_item_results(RESULTS, "key")


def fill(args: argparse.Namespace) -> None:
    k, n = args.shard
    rows = variant_rows(args.variant_groups) if args.variants else records(args.passages)
    todo = [r for i, r in enumerate(rows) if i % n == k]
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
    old = sum(stale(k) for _, k in done)
    if old:
        raise SystemExit(
            f"{old} results hold an earlier reader's key likelihoods: run --relikelihood first."
        )
    groups = np.array([r["passage_id"] for r, _ in done])
    data: dict[str, Any] = {
        "machine": machine(),
        "revision": git_revision(),
        "model": MODEL,
        "items": len(done),
        "passages": len(set(groups.tolist())),
        # Items read elsewhere (a lent machine's shards carry a "machine" field) are not
        # timed on this machine.
        "median_seconds_per_item": statistics.median(
            k["seconds"] for _, k in done if "machine" not in k
        ),
        "read_elsewhere": sum("machine" in k for _, k in done),
        # Results whose likelihoods --relikelihood re-read (the answer kept): those seconds.
        "median_likelihood_seconds": statistics.median(
            [k["likelihood_seconds"] for _, k in done if "likelihood_seconds" in k] or [0.0]
        ),
        "reader_version": READER_VERSION,
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
        f"passages; median {data['median_seconds_per_item']:.1f} s per item on one thread"
        + (
            f" ({data['read_elsewhere']} items were read on a lent 16-core Intel Xeon and are "
            "not in the median)."
            if data["read_elsewhere"]
            else "."
        )
        + (
            f" The key likelihoods (reader version {READER_VERSION}: as the reply in the "
            "reader's chat) were re-read with `--relikelihood`, the answers kept: a median "
            f"{data['median_likelihood_seconds']:.1f} s per item for both on one thread."
            if data["median_likelihood_seconds"]
            else ""
        ),
        "",
        "Pearson r [95% interval, passages resampled]; nothing is fitted:",
        "",
        "| signal | answer consistency | acceptance | mean rating |",
        "| --- | --- | --- | --- |",
    ]
    md += [ci_row(signal, by_target) for signal, by_target in data["signals"].items()]
    md += [
        "",
        f"Mean reader F1 on questions all raters call answer-consistent (3/3): "
        f"{data['f1_consistent']:.2f} (n {len(consistent)}); below 2.5: "
        f"{data['f1_inconsistent']:.2f} (n {len(inconsistent)}).",
        "",
    ]
    data["fit"] = fitted = fit(args)
    md += [
        f"The overall estimate, out of fold (5 folds grouped by passage). QGEval: n "
        f"{fitted['qgeval_items']} of {fitted['qgeval_passages']} passages, "
        f"{fitted['qgeval_accepted']} accepted; fitted together with {fitted['variant_items']} "
        "NACo-style variant questions (3 valid, 4 flawed per SQuAD passage), as the light "
        "model is. Light signals from the light models, reader signals from the 1.5B model:",
        "",
        "| features / estimator | QGEval r with acceptance | QGEval AUC | variants: valid "
        "above flawed (non-q / shuffled / random / wrong key) |",
        "| --- | --- | --- | --- |",
    ]
    for name, entry in fitted["fits"].items():
        r, auc = entry["pearson_vs_accept"], entry["auc"]
        above = (entry["variants"] or {}).get("valid_above", {})
        md.append(
            f"| {name} | {r['value']:.3f} [{r['ci95_by_passage'][0]:.2f}, "
            f"{r['ci95_by_passage'][1]:.2f}] | {auc['value']:.3f} "
            f"[{auc['ci95_by_passage'][0]:.2f}, {auc['ci95_by_passage'][1]:.2f}] | "
            + " / ".join(f"{above[k]:.2f}" for k in above)
            + " |"
        )
    gain = fitted["gain_blend"]
    md += [
        "",
        f"Adding the reader signals to the light ones (blend, paired on the same items): r "
        f"{gain['value']:+.3f} [{gain['ci95_by_passage'][0]:+.2f}, "
        f"{gain['ci95_by_passage'][1]:+.2f}].",
    ]
    flag = fitted["reader_differs"]
    md += [
        "",
        f"`reader-differs` (the reader's answer shares no word with the key): raised on "
        f"{flag['raised']} QGEval questions, precision {flag['precision']:.2f} against answer "
        f"consistency < 2.5 ({flag['inconsistent']} such questions), recall "
        f"{flag['recall']:.2f}.",
        "",
    ]
    write_results("estimators", data, "\n".join(md), section="standard_reader")
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


def with_reader(result: Any, reader: dict[str, Any] | None) -> Any:
    """A copy of a `signals` result with the reader signals in its values (None: not read)."""
    from dataclasses import replace

    values = dict(result.values)
    for name in READER_SIGNALS:
        values[name] = None if reader is None else reader[name]
    return replace(result, values=values)


def qgeval_estimate(
    args: argparse.Namespace,
) -> tuple[list[str], np.ndarray, np.ndarray, np.ndarray]:
    """QGEval's record keys, passage groups, the shipped standard estimator's out-of-fold
    values (light + reader signals, the blend, 5 folds by passage; clipped off 0 and 1 for a
    logit) and acceptance: the base that bench/question_pmi.py and bench/rating_ceiling.py
    stack a candidate signal on."""
    from quizsmith.evaluation.overall import grouped_folds, out_of_fold

    sets = training_sets(argparse.Namespace(**{**vars(args), "variant_groups": 20}))
    base = sets["light + reader signals"]
    values = out_of_fold(base, grouped_folds(base.groups, 5), 0, "blend")
    qgeval = [(r, p, y) for r, p, y in zip(base.records, values, base.y, strict=True)
              if r.record_id.startswith("qgeval")]  # fmt: skip
    keys = record_keys([r for r, _, _ in qgeval])
    groups = np.array([r.group for r, _, _ in qgeval])
    full = np.clip(np.array([p for _, p, _ in qgeval]), 1e-6, 1 - 1e-6)
    return keys, groups, full, np.array([float(y) for *_, y in qgeval])


def training_sets(args: argparse.Namespace, light_only: bool = False) -> dict[str, Any]:
    """The light signals (the `signals` metric on the light models, through the evaluation
    cache) of the items the reader has read, with the reader signals put beside them as the
    standard profile's signals metric reports them (`light_only`: not yet, and no feature
    sets); QGEval and the variant groups. "readings": each item's key in RESULTS."""
    from judgement import score
    from quizsmith.evaluation.overall import training_data
    from quizsmith.quality.features import feature_names

    known = known_results()
    qg = score(interleaved_qgeval(args.passages), "qgeval", None, args)
    qg_keys = record_keys(list(qg.records))
    pairs = [(r, s, key) for r, s, key in zip(qg.records, qg.results, qg_keys, strict=True)]
    if args.variant_groups:
        nv = score(VARIANTS, "naco-variants", args.variant_groups * 7, args)
        for r in nv.records:
            r.group = f"naco-variants:{r.group}"
        pairs += [(r, s, r.record_id) for r, s in zip(nv.records, nv.results, strict=True)]
    pairs = [(r, s, key) for r, s, key in pairs if key in known and "signals" in s]
    records = [r for r, _, _ in pairs]
    readings = [key for _, _, key in pairs]
    if light_only:
        return {"records": records, "scores": [s for _, s, _ in pairs], "readings": readings}
    scores = [{"signals": with_reader(s["signals"], known[key])} for _, s, key in pairs]
    reader_cols = tuple(f"sig.{name}" for name in READER_SIGNALS)
    light_cols = tuple(f for f in feature_names() if f not in reader_cols)
    return {
        "records": records,
        "scores": scores,
        "readings": readings,
        "light signals": training_data(records, scores, features=light_cols),
        "reader signals": training_data(records, scores, features=reader_cols),
        "light + reader signals": training_data(records, scores, features=feature_names()),
    }


def fit(args: argparse.Namespace) -> dict[str, Any]:
    """Out of fold (5 folds grouped by passage): r with acceptance and AUC on QGEval for each
    feature set, intervals by resampling passages; on the variant groups, how often the valid
    question scores above each flawed one; and the precision of the `reader-differs` flag
    (the reader's answer shares no word with the key) against answer consistency < 2.5."""
    from sklearn.metrics import roc_auc_score

    from quizsmith.evaluation.overall import grouped_folds, out_of_fold

    sets = training_sets(args)
    base = sets["light + reader signals"]
    groups = np.array(base.groups)
    qg = np.array([r.record_id.startswith("qgeval") for r in base.records])
    folds = grouped_folds(base.groups, 5)
    y = base.y
    out: dict[str, Any] = {
        "qgeval_items": int(qg.sum()),
        "qgeval_passages": len(set(groups[qg].tolist())),
        "qgeval_accepted": int(y[qg].sum()),
        "variant_items": int((~qg).sum()),
    }
    fits: dict[str, Any] = {}
    for name in ("light signals", "reader signals", "light + reader signals"):
        data = sets[name]
        assert [r.record_id for r in data.records] == [r.record_id for r in base.records]
        for kind in ("logistic", "blend"):
            oof = out_of_fold(data, folds, 0, kind)
            fits[f"{name} / {kind}"] = {
                "pearson_vs_accept": with_ci(oof[qg], y[qg].astype(float), groups=groups[qg]),
                "auc": with_ci(
                    oof[qg], y[qg], lambda a, b: float(roc_auc_score(b, a)), groups=groups[qg]
                ),
                "variants": group_table(base.records, oof) if (~qg).any() else None,
            }
    out["fits"] = fits
    # The gain of adding the reader, paired on the same out-of-fold items: the interval of
    # the difference in r, passages resampled (the two r's intervals overlap either way).
    paired = {
        name: out_of_fold(sets[name], folds, 0, "blend")
        for name in ("light signals", "light + reader signals")
    }
    out["gain_blend"] = r_gain(
        paired["light + reader signals"][qg],
        paired["light signals"][qg],
        y[qg].astype(float),
        groups[qg],
    )
    read = {
        r.record_id: s["signals"].values["reader_f1"]
        for r, s in zip(sets["records"], sets["scores"], strict=True)
    }
    f1 = np.array([read[r.record_id] for r in base.records], dtype=float)
    ac = np.array([r.labels.get("answer_consistency", np.nan) for r in base.records], dtype=float)
    raised, inconsistent = (f1 == 0)[qg], (ac < 2.5)[qg]
    out["reader_differs"] = {
        "raised": int(raised.sum()),
        "precision": float(inconsistent[raised].mean()) if raised.any() else None,
        "recall": float(raised[inconsistent].mean()) if inconsistent.any() else None,
        "inconsistent": int(inconsistent.sum()),
    }
    return out


def export_items(args: argparse.Namespace) -> dict[str, Any]:
    """The standard model's training items (packaging/estimators/overall_standard.toml fits
    it from them): each item's light signals and decision, with its key in this file's
    readings, which overall_standard_readings.jsonl holds compacted (current reader only)."""
    from quizsmith.evaluation.train_estimator import overall_rows, write_jsonl
    from quizsmith.quality.reader import READER_SIGNALS

    sets = training_sets(args, light_only=True)
    write_jsonl(ITEMS_FILE, overall_rows(sets["records"], sets["scores"], sets["readings"]))
    known = known_results()
    write_jsonl(
        READINGS_FILE,
        ({"key": key, **{n: known[key][n] for n in READER_SIGNALS}} for key in sets["readings"]),
    )
    return {"items": str(ITEMS_FILE), "readings": str(READINGS_FILE), "n": len(sets["records"])}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--passages", type=int, default=40)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument(
        "--shard", type=shard_arg, default=(0, 1), help="K/N: fill every N-th item from K"
    )
    parser.add_argument("--report", action="store_true")
    parser.add_argument("--cache-dir", default=None, help="the evaluation cache (light signals)")
    parser.add_argument("--variant-groups", type=int, default=20)
    parser.add_argument(
        "--export-items",
        action="store_true",
        help="write the items and readings the shipped standard model is fitted on",
    )
    parser.add_argument(
        "--variants", action="store_true", help="fill the variant groups instead of QGEval"
    )
    parser.add_argument(
        "--relikelihood",
        action="store_true",
        help="re-read the key likelihoods of results an earlier reader version wrote",
    )
    args = parser.parse_args()
    if args.relikelihood:
        relikelihood(args)
    elif args.export_items:
        print(json.dumps(export_items(args), indent=2))
    elif args.report:
        report(args)
    else:
        fill(args)


if __name__ == "__main__":
    main()
