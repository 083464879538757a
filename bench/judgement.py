"""Does the offline judgement track people? Cross-validated, grouped by passage.

    .venv/bin/python bench/judgement.py [--qgeval-passages 200] [--variant-groups 150]
        [--greedy 225] [--cache-dir DIR] [--threads 1] [--export-items]

Data: QGEval's first N passages in an interleaved order (SQuAD and HotpotQA alternately, every
second passage of each; all 15 questions of a passage), and the NACo-style variant groups
built from the SQuAD candidates (`naco-variants`: 3 valid questions + 4 flawed ones per
passage). Every item is scored with the `signals` metric through the evaluation cache (a
re-run only computes what is missing). `--greedy N` also computes NACo's free-text
extractive answer ("generate", the earlier default) for the first N QGEval records, cached in
bench/results/greedy-answers.jsonl, to compare the two ways of answering.

Reports (the `judgement` section of bench/results/estimators.json and docs/benchmarks.md):
1. answerability: each way of answering against the human answerability and answer
   consistency ratings (Pearson r, 95% bootstrap interval);
2. the overall estimate: out-of-fold predictions (5 folds grouped by passage, the model
   never saw the passage it predicts) for each estimator kind, per dataset: Pearson r with
   acceptance, AUC; on the variant groups, the share of (valid, flawed) pairs of a group in
   which the valid question scores higher, and the mean per role;
3. flags: precision and recall of each flag the data can check, at its threshold.

`--export-items` writes every item's signals and decision to
packaging/estimators/overall_light.jsonl, from which
`python -m quizsmith.evaluation.train_estimator --config packaging/estimators/overall_light.toml`
fits the shipped light model (resources/overall_model.joblib); this script no longer writes it.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from scipy.stats import pearsonr
from sklearn.metrics import roc_auc_score

from common import git_revision, machine, write_results
from quizsmith.evaluation.overall import (
    ESTIMATORS,
    grouped_folds,
    out_of_fold,
    training_data,
)
from quizsmith.evaluation.records import EvalRecord
from quizsmith.evaluation.runner import run_evaluation
from quizsmith.jobs import run_to_end
from quizsmith.settings import Settings

# QUIZSMITH_SHARED_DATA points elsewhere where the repository does not sit beside ../shared
# (a copy on a lent machine).
SHARED = Path(
    os.environ.get("QUIZSMITH_SHARED_DATA")
    or Path(__file__).resolve().parents[2] / "shared" / "data"
)
RESULTS = Path(__file__).resolve().parent / "results"
ROOT = Path(__file__).resolve().parents[1]
#: The light model's training items, beside the config that fits it.
ITEMS_FILE = ROOT / "packaging" / "estimators" / "overall_light.jsonl"
VALID = ("refq", "annoq", "annoq_clue_refq")
FLAWED = ("non_q", "shuffled_q", "random_q", "wrong_key_q")


def interleaved_qgeval(n_passages: int, shard: tuple[int, int] = (0, 1)) -> Path:
    """QGEval's passages, SQuAD and HotpotQA alternately: first every second passage of each
    source (the first 100, the sample of the earlier reports), then the others; the first
    n_passages of that order, and of those the ones with index % shard[1] == shard[0]."""
    rows = json.loads((SHARED / "qgeval" / "instances.json").read_text(encoding="utf-8"))
    squad = [p for p in rows if p["questions"][0]["source"].startswith("SQuAD")]
    hotpot = [p for p in rows if not p["questions"][0]["source"].startswith("SQuAD")]
    mixed = [
        p
        for half in (slice(0, None, 2), slice(1, None, 2))
        for pair in zip(squad[half], hotpot[half], strict=False)
        for p in pair
    ][:n_passages]
    mixed = mixed[shard[0] :: shard[1]]
    # A working copy outside the repository: the dataset is not redistributed.
    name = f"quizsmith-qgeval-interleaved-{n_passages}-{shard[0]}of{shard[1]}.json"
    path = Path(tempfile.gettempdir()) / name
    path.write_text(json.dumps(mixed), encoding="utf-8")
    return path


def score(path: Path, fmt: str, limit: int | None, args: argparse.Namespace) -> Any:
    settings = Settings(n_threads=args.threads)
    job = run_evaluation(path, fmt, ["signals"], limit, 0, args.cache_dir, settings, n_boot=0)
    _, report = run_to_end(job)
    return report


def warm_cache(path: Path, fmt: str, limit: int | None, args: argparse.Namespace) -> None:
    """Score this shard's records (index % N == K of the same sample `score` draws) into the
    evaluation cache, so that shards run in parallel processes (one thread each) and the
    full run then reads every result from the cache."""
    from quizsmith.evaluation import adapters
    from quizsmith.evaluation.cache import ResultCache
    from quizsmith.evaluation.sampling import stratified_sample
    from quizsmith.evaluation.scoring import METRIC_SEED, make_scorers
    from quizsmith.metrics.base import MetricContext
    from quizsmith.paths import cache_dir

    k, n = args.shard
    ctx = MetricContext(settings=Settings(n_threads=args.threads), seed=METRIC_SEED)
    (scorer,) = make_scorers(["signals"], ctx)
    records = stratified_sample(
        adapters.load_records(path, fmt), limit, 0, whole_groups=adapters.is_group_format(fmt)
    )
    cache = ResultCache.in_dir(Path(args.cache_dir or cache_dir() / "evaluation"))
    try:
        for index, record in enumerate(records):
            if index % n == k and cache.get(record.key, "signals", scorer.config_key) is None:
                cache.put(record.key, scorer.config_key, scorer.score(record))
    finally:
        cache.close()


def interval(
    x: np.ndarray,
    y: np.ndarray,
    stat: Callable[..., float],
    n: int = 1000,
    groups: np.ndarray | None = None,
) -> list:
    """95% bootstrap interval of stat(x, y): items resampled, or with `groups` whole passages
    (the questions of a passage are not independent, so this interval is the wider, honest
    one for figures from passage-grouped folds)."""
    rng = np.random.default_rng(0)
    members = None
    if groups is not None:
        members = [np.flatnonzero(groups == g) for g in np.unique(groups)]
    values = []
    for _ in range(n):
        if members is None:
            i = rng.integers(0, len(x), len(x))
        else:
            i = np.concatenate([members[j] for j in rng.integers(0, len(members), len(members))])
        if np.std(x[i]) and np.std(y[i]) and len(set(y[i].tolist())) > 1:
            values.append(stat(x[i], y[i]))
    return [round(float(v), 3) for v in np.percentile(values, [2.5, 97.5])]


def pearson(x: np.ndarray, y: np.ndarray) -> float:
    return float(pearsonr(x, y)[0])


def with_ci(
    x: np.ndarray,
    y: np.ndarray,
    stat: Callable[..., float] = pearson,
    groups: np.ndarray | None = None,
) -> dict:
    out = {"value": round(stat(x, y), 3), "ci95": interval(x, y, stat), "n": len(x)}
    if groups is not None:
        out["ci95_by_passage"] = interval(x, y, stat, groups=groups)
        out["passages"] = len(set(groups.tolist()))
    return out


def r_gain(better: np.ndarray, base: np.ndarray, y: np.ndarray, groups: np.ndarray) -> dict:
    """r(better, y) - r(base, y), paired on the same items, with its 95% interval (the two
    r's own intervals overlap either way)."""
    return with_ci(
        np.vstack([better, base]).T,
        y,
        lambda a, b: pearson(a[:, 0], b) - pearson(a[:, 1], b),
        groups=groups,
    )


def stacked_out_of_fold(
    columns: list[np.ndarray], y: np.ndarray, groups: np.ndarray, folds: int = 5
) -> np.ndarray:
    """A logistic regression on `columns`, each item's value from a fit without its passage
    group (GroupKFold): what a signal adds to an estimate, judged out of fold."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import GroupKFold

    x = np.column_stack(columns)
    out = np.zeros(len(y))
    for train, test in GroupKFold(folds).split(x, y, groups):
        fitted = LogisticRegression(max_iter=1000).fit(x[train], y[train])
        out[test] = fitted.predict_proba(x[test])[:, 1]
    return out


def a2_verdict(model: Any, item: Any) -> str:
    """NACo's A.2 naturalness verdict on an item, greedy (the `not-a-question` flag): the
    metric's own call (verdict_tokens 64)."""
    from quizsmith.metrics import naco

    passages = naco.split_passages(item)
    return naco.a2_verdict(model, passages, item.stem, 64)[0]


def naco_parts(records: list[EvalRecord], n: int, part: str, threads: int) -> dict[str, Any]:
    """NACo's fewshot answer F1 by free-text generation (`part` "greedy") or the A.2
    naturalness verdict (`part` "verdict") for the first n records, cached by record key in
    bench/results/naco-<part>.jsonl."""
    from quizsmith.metrics import naco_prompts as prompts
    from quizsmith.metrics.base import MetricContext
    from quizsmith.metrics.naco import NacoMetric, split_passages
    from quizsmith.metrics.squad import f1_score

    cache_file = RESULTS / f"naco-{part}.jsonl"
    known: dict[str, Any] = {}
    if cache_file.exists():
        for line in cache_file.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            known[row["key"]] = row["value"]
    ctx = MetricContext(settings=Settings(n_threads=threads))
    models = None
    with cache_file.open("a", encoding="utf-8") as out:
        for record in records[:n]:
            if record.key in known:
                continue
            if models is None:
                models = NacoMetric()._fewshot_models(ctx)
            verdict_model, answer_model = models
            passages = split_passages(record.item)
            value: Any
            if part == "verdict":
                value = a2_verdict(verdict_model, record.item)
            else:
                text = answer_model.complete(
                    prompts.fewshot_answer_prompt(passages, record.item.stem),
                    max_tokens=32,
                    temperature=0.0,
                    seed=0,
                    stop=["\n"],
                    reuse_prefix=prompts.fewshot_reading(passages),
                ).text.strip()
                value = f1_score(text, record.item.key)
            known[record.key] = value
            out.write(json.dumps({"key": record.key, "value": value}) + "\n")
    return {r.key: known[r.key] for r in records[:n] if r.key in known}


def flag_row(name: str, flagged: np.ndarray, bad: np.ndarray, claim: str) -> dict[str, Any]:
    hits = int((flagged & bad).sum())
    precision = hits / flagged.sum() if flagged.sum() else float("nan")
    recall = hits / bad.sum() if bad.sum() else float("nan")
    return {
        "flag": name,
        "checked_against": claim,
        "n": len(bad),
        "flagged": int(flagged.sum()),
        "precision": round(float(precision), 3),
        "recall": round(float(recall), 3),
        "base_rate": round(float(bad.mean()), 3),
    }


def ci_row(name: str, by_label: dict[str, dict]) -> str:
    """A markdown table row: each `with_ci` figure as "r [low, high]", passages resampled."""
    cells = [
        f"{v['value']:.2f} [{v['ci95_by_passage'][0]:.2f}, {v['ci95_by_passage'][1]:.2f}]"
        for v in by_label.values()
    ]
    return f"| {name} | " + " | ".join(cells) + " |"


def shard_arg(text: str) -> tuple[int, int]:
    """K/N with 0 <= K < N."""
    try:
        k, n = (int(x) for x in text.split("/"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not K/N, e.g. 0/2") from None
    if not 0 <= k < n:
        raise argparse.ArgumentTypeError(f"{text!r}: K must be 0 to N-1")
    return k, n


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--qgeval-passages", type=int, default=200)
    parser.add_argument("--variant-groups", type=int, default=150)
    parser.add_argument("--greedy", type=int, default=0)
    parser.add_argument(
        "--verdicts",
        type=int,
        default=0,
        help="NACo's naturalness verdict on the first N QGEval questions and N variant ones",
    )
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--cache-dir", default=None)
    parser.add_argument(
        "--export-items",
        action="store_true",
        help="write the items the shipped light model is fitted on (packaging/estimators/)",
    )
    parser.add_argument(
        "--shard",
        type=shard_arg,
        default=None,
        metavar="K/N",
        help="only fill the evaluation cache with records index %% N == K, then stop",
    )
    args = parser.parse_args()
    variants = SHARED / "naco" / "squad_candidates.jsonl"
    if args.shard:
        warm_cache(interleaved_qgeval(args.qgeval_passages), "qgeval", None, args)
        warm_cache(variants, "naco-variants", args.variant_groups * 7, args)
        return
    qg = score(interleaved_qgeval(args.qgeval_passages), "qgeval", None, args)
    nv = score(variants, "naco-variants", args.variant_groups * 7, args)
    data: dict[str, Any] = {
        "machine": machine(),
        "revision": git_revision(),
        "qgeval_items": len(qg.records),
        "qgeval_passages": args.qgeval_passages,
        "variant_items": len(nv.records),
        "variant_groups": args.variant_groups,
    }
    sig = [r["signals"].values for r in qg.results]
    label = {d: np.array([r.labels[d] for r in qg.records]) for d in qg.records[0].labels}
    # 1. Answerability.
    answers: dict[str, np.ndarray] = {
        "likelihood pick F1 (NACo a, answer_by=likelihood)": np.array(
            [v["pick_f1"] for v in sig], dtype=float
        ),
        "key share among candidates": np.array(
            [1.0 if v["key_share"] is None else v["key_share"] for v in sig], dtype=float
        ),
        "key log-lik gain over the question alone": np.array(
            [v["key_gain_passage"] for v in sig], dtype=float
        ),
        "key log-lik gain over a neutral question": np.array(
            [v["key_gain_question"] for v in sig], dtype=float
        ),
    }
    answer_rows = []
    if args.greedy:
        greedy = naco_parts(qg.records, args.greedy, "greedy", args.threads)
        idx = np.array([i for i, r in enumerate(qg.records) if r.key in greedy])
        g = np.array([greedy[qg.records[i].key] for i in idx], dtype=float)
        for name, x in [("greedy answer F1 (NACo a, answer_by=generate)", g)] + [
            (n, v[idx]) for n, v in answers.items()
        ]:
            answer_rows.append(
                {
                    "way": name,
                    "answerability": with_ci(x, label["answerability"][idx]),
                    "answer_consistency": with_ci(x, label["answer_consistency"][idx]),
                    "zero_share": round(float((x == 0).mean()), 3) if "F1" in name else None,
                }
            )
    data["answerability"] = answer_rows
    # 2. The overall estimate, out of fold.
    for r in nv.records:
        r.group = f"naco-variants:{r.group}"
    records = list(qg.records) + list(nv.records)
    scores = list(qg.results) + list(nv.results)
    train = training_data(records, scores)
    folds = grouped_folds(train.groups, 5)
    ds = np.array([r.record_id.split(":")[0] for r in train.records])
    fits = {}
    for kind in ESTIMATORS:
        oof = out_of_fold(train, folds, 0, kind)
        entry: dict[str, Any] = {}
        passages = np.array(train.groups)
        for name in ("qgeval", "naco-variants"):
            i = ds == name
            auc = lambda a, b: float(roc_auc_score(b, a))  # noqa: E731
            entry[name] = {
                "pearson_vs_accept": with_ci(oof[i], train.y[i], groups=passages[i]),
                "auc": with_ci(oof[i], train.y[i], auc, groups=passages[i]),
            }
        entry["variants"] = group_table(train.records, oof)
        entry["oof"] = oof
        fits[kind] = entry
    best = max(ESTIMATORS, key=lambda k: fits[k]["qgeval"]["pearson_vs_accept"]["value"])
    data["overall"] = {k: {n: v for n, v in e.items() if n != "oof"} for k, e in fits.items()}
    data["overall_chosen"] = best
    # 3. Flags.
    q = ds == "qgeval"
    qrec = [r for r, keep in zip(train.records, q, strict=True) if keep]
    ac = np.array([r.labels["answer_consistency"] < 2.5 for r in qrec])
    an = np.array([r.labels["answerability"] < 2.5 for r in qrec])
    pick = np.array([v["pick_f1"] for v in sig])
    rows = [
        flag_row("answer-differs (likelihood)", pick < 0.5, ac, "QGEval answer_consistency < 2.5"),
        flag_row(
            "answer-differs (likelihood)",
            pick < 0.5,
            ac | an,
            "QGEval answer_consistency or answerability < 2.5",
        ),
    ]
    if args.greedy:
        gi = np.array([i for i, r in enumerate(qg.records) if r.key in greedy])
        gf = np.array([greedy[qg.records[i].key] for i in gi])
        rows.append(
            flag_row(
                "answer-differs (generate)", gf < 0.5, ac[gi], "QGEval answer_consistency < 2.5"
            )
        )
    form = np.array([v["is_question"] == 0.0 for v in sig])
    unclear = np.array([r.labels["clarity"] < 2.5 or r.labels["fluency"] < 2.5 for r in qrec])
    rows.append(flag_row("no-question-form", form, unclear, "QGEval clarity or fluency < 2.5"))
    vrec = [r for r, keep in zip(train.records, ~q, strict=True) if keep]
    vsig = [x["signals"].values for x in nv.results]
    non_question = np.array([r.role in ("non_q", "shuffled_q") for r in vrec])
    rows.append(
        flag_row(
            "no-question-form",
            np.array([v["is_question"] == 0.0 for v in vsig]),
            non_question,
            "variants: non_q or shuffled_q",
        )
    )
    if args.verdicts:
        for recs, claim in ((qrec, "QGEval clarity or fluency < 2.5"), (vrec, "variants")):
            verdicts = naco_parts(recs, args.verdicts, "verdict", args.threads)
            idx = [i for i, r in enumerate(recs) if r.key in verdicts]
            flagged = np.array([verdicts[recs[i].key] != "natural" for i in idx])
            truth = unclear[idx] if recs is qrec else non_question[idx]
            what = claim if recs is qrec else "variants: non_q or shuffled_q"
            rows.append(flag_row("not-a-question (NACo verdict)", flagged, truth, what))
    oof = fits[best]["oof"]
    reject = train.y == 0
    for t in (0.3, 0.4, 0.5, 0.6):
        rows.append(flag_row(f"low-overall (< {t})", oof[q] < t, reject[q], "QGEval reject"))
        rows.append(flag_row(f"low-overall (< {t})", oof[~q] < t, reject[~q], "variants: flawed"))
    data["flags"] = rows
    if args.export_items:
        from quizsmith.evaluation.train_estimator import overall_rows, write_jsonl

        # The shipped light model's training items (packaging/estimators/overall_light.toml
        # fits it from them): all of them, in this order (the folds depend on it).
        write_jsonl(ITEMS_FILE, overall_rows(records, scores))
        data["exported"] = {"path": str(ITEMS_FILE.relative_to(ROOT)), "items": len(records)}
    write_results("estimators", data, markdown(data), section="judgement")
    print(markdown(data))


def group_table(records: list[EvalRecord], oof: np.ndarray) -> dict[str, Any]:
    by_group: dict[str, dict[str, float]] = {}
    for r, p in zip(records, oof, strict=True):
        if r.record_id.startswith("naco-variants"):
            by_group.setdefault(r.group, {})[r.role] = float(p)
    wins: dict[str, list[float]] = {k: [] for k in FLAWED}
    for roles in by_group.values():
        for flawed in FLAWED:
            if flawed in roles:
                wins[flawed] += [float(roles[v] > roles[flawed]) for v in VALID if v in roles]
    means = {
        role: round(float(np.mean([g[role] for g in by_group.values() if role in g])), 3)
        for role in VALID + FLAWED
    }
    return {
        "groups": len(by_group),
        "valid_above": {k: round(float(np.mean(v)), 3) for k, v in wins.items() if v},
        "mean_by_role": means,
    }


def markdown(data: dict[str, Any]) -> str:
    m = data["machine"]
    lines = [
        "## Judgement (`bench/judgement.py`)",
        "",
        f"Revision {data['revision']}, {m['date']}; {m['cpu']}. QGEval: {data['qgeval_items']} "
        f"questions of {data['qgeval_passages']} passages; NACo-style variants: "
        f"{data['variant_items']} questions of {data['variant_groups']} SQuAD passages. "
        "Every figure below is out of fold (5 folds grouped by passage) or needs no fitting. "
        "Intervals: 95% bootstrap over items, and over whole passages (the honest one for "
        "passage-grouped data).",
        "",
    ]
    if data["answerability"]:
        lines += [
            "### Answerability: which way of answering agrees with people",
            "",
            "| way | Pearson r, answerability | Pearson r, answer consistency | share of 0 |",
            "| --- | --- | --- | ---: |",
        ]
        for row in data["answerability"]:
            a, c = row["answerability"], row["answer_consistency"]
            lines.append(
                f"| {row['way']} | {a['value']} {a['ci95']} | {c['value']} {c['ci95']} | "
                f"{row['zero_share'] if row['zero_share'] is not None else ''} |"
            )
        lines += ["", f"n = {data['answerability'][0]['answerability']['n']} QGEval questions.", ""]
    lines += [
        "### The overall estimate (reference-free), out of fold",
        "",
        "| estimator | QGEval r with acceptance | QGEval AUC | variants r with validity | "
        "variants AUC | valid above non_q / shuffled_q / random_q / wrong_key_q |",
        "| --- | --- | --- | --- | --- | --- |",
    ]

    def ci(entry: dict) -> str:
        wide = entry.get("ci95_by_passage")
        return f"{entry['value']} {entry['ci95']}" + (f", by passage {wide}" if wide else "")

    for kind, e in data["overall"].items():
        q, v = e["qgeval"], e["naco-variants"]
        above = " / ".join(str(e["variants"]["valid_above"].get(k, "")) for k in FLAWED)
        mark = " (chosen)" if kind == data["overall_chosen"] else ""
        lines.append(
            f"| {kind}{mark} | {ci(q['pearson_vs_accept'])} | {ci(q['auc'])} | "
            f"{ci(v['pearson_vs_accept'])} | {v['auc']['value']} | {above} |"
        )
    chosen = data["overall"][data["overall_chosen"]]["variants"]["mean_by_role"]
    lines += [
        "",
        "Mean estimate per role (chosen estimator): "
        + ", ".join(f"{k} {v}" for k, v in chosen.items())
        + ".",
        "",
        "### Flags: precision and recall",
        "",
        "| flag | checked against | n | flagged | precision | recall | base rate |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for row in data["flags"]:
        lines.append(
            f"| {row['flag']} | {row['checked_against']} | {row['n']} | {row['flagged']} | "
            f"{row['precision']} | {row['recall']} | {row['base_rate']} |"
        )
    lines.append("")
    return "\n".join(lines)


if __name__ == "__main__":
    main()
