"""Do the scores agree with teachers? Quiz Design's keep/remove decisions (issue 45).

    .venv/bin/python bench/teacher_decisions.py --fill --shard 0/2 &   # one llama.cpp
    .venv/bin/python bench/teacher_decisions.py --fill --shard 1/2     # thread each
    .venv/bin/python bench/teacher_decisions.py --report

Quiz Design (Laban et al. 2022, `../shared/data/quizdesign`, development split: 3 documents,
199 answer spans, 1,088 machine-written questions a teacher kept or removed as disfluent, off
target or wrong context). `--fill` reads every question with the `signals` metric on the
standard profile: the light models' likelihood signals (what the light profile's estimate
reads) and the 1.5B reader's (what the standard profile's reads), one row per question with
the seconds it took, into bench/results/teacher-decisions.jsonl (a re-run extends it; the
QGEval rows of `--qgeval` go there too).

`--report` measures, on those rows:
- each signal's correlation with keep (r) and its mean on kept questions against each removal
  reason, nothing fitted (intervals by resampling answer spans, the unit teachers judged);
- the shipped estimators (fitted on QGEval, never on these) as they are;
- candidate estimators fitted on teachers' decisions, each measured leave one document out
  (fitted on two documents, read on the third), as the issue asks.
Every interval is a 95% bootstrap over answer spans (a teacher judged all questions of a span
together, so they are not independent); every fitted figure is out of fold, leave one document
out. Nothing here is fitted on the rows it reports. The table: docs/benchmarks.md.

Why this module is long: the report reads the rows the fill writes, through the same record
keys and dataset texts; apart, the two halves imported each other.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from common import git_revision, machine, per_item_results, write_doc_section
from judgement import interval as _interval
from judgement import pearson

SHARED = Path(__file__).resolve().parents[2] / "shared"
DATA = SHARED / "data" / "quizdesign" / "quiz_design_groups_dev.jsonl"
#: Quiz Design's rows, and QGEval's questions read the same way on the light profile (their
#: 1.5B reader signals are already in packaging/estimators/standard_reader_items.jsonl), so
#: that every candidate is measured on both targets; the two sets' keys differ.
RESULTS = Path(__file__).resolve().parent / "results" / "teacher-decisions.jsonl"


def records() -> list[Any]:
    from quizsmith.evaluation import adapters

    return adapters.load_records(DATA, "quizdesign")


def accept_label(record: Any) -> int | None:
    from quizsmith.evaluation.overall import default_target

    return default_target(record)


def row_of(record: Any, result: Any, seconds: float) -> dict[str, Any]:
    item = record.item
    return {
        "key": record.key,
        "record_id": record.record_id,
        "doc_id": item.provenance.get("doc_id"),
        "group": record.group,
        "label": accept_label(record),
        "reason": record.role,
        "system": record.source,
        "scored": result.scored,
        "values": dict(result.values) if result.scored else {},
        "reader_answer": result.evidence.get("reader_answer"),
        "not_scored": None if result.scored else result.reason,
        "seconds": round(seconds, 3),
    }


def qgeval_records(n_passages: int) -> list[Any]:
    from judgement import interleaved_qgeval
    from quizsmith.evaluation import adapters

    return adapters.load_records(interleaved_qgeval(n_passages), "qgeval")


def with_text(rows: list[dict[str, Any]], found: list[Any]) -> list[dict[str, Any]]:
    """The rows with their question and answer put back from the dataset: the per-item
    files keep ids and numbers only (the datasets are not redistributed from here)."""
    by_key = {r.key: r.item for r in found}
    out = []
    for row in rows:
        item = by_key.get(row["key"])
        if item is not None:
            out.append({**row, "question": item.stem, "answer": item.key})
    return out


def in_run_order(rows: list[Any], group_of: Any) -> list[Any]:
    """Answer spans in a seeded random order, so that any prefix of a run covers every
    document (a run stopped early still measures leave one document out)."""
    groups = sorted({str(group_of(r)) for r in rows})
    rank = {g: i for i, g in enumerate(random.Random(0).sample(groups, len(groups)))}
    return sorted(rows, key=lambda r: rank[str(group_of(r))])


def fill(args: argparse.Namespace) -> None:
    from quizsmith.metrics.base import MetricContext
    from quizsmith.metrics.registry import get
    from quizsmith.settings import Settings

    k, n = args.shard
    if args.qgeval:
        profile, found = "light", qgeval_records(args.qgeval)
    else:
        profile, found = "standard", records()
    done = per_item_results(RESULTS, "key")
    ctx = MetricContext(settings=Settings(profile=profile, n_threads=1), seed=0)
    # Every signal, the light models' likelihoods too (the standard estimate reads none, the
    # light one does, and both are measured on these rows).
    metric = get("signals")(every_signal=True)
    found = in_run_order(found, lambda r: r.group)
    todo = [r for i, r in enumerate(found) if i % n == k and r.key not in done]
    print(f"shard {k}/{n}: {len(todo)} to read", file=sys.stderr)
    with RESULTS.open("a", encoding="utf-8") as out:
        for index, record in enumerate(todo):
            started = time.perf_counter()
            result = metric.score(record.item, ctx)
            row = row_of(record, result, time.perf_counter() - started)
            out.write(json.dumps(row, ensure_ascii=False) + "\n")
            out.flush()
            if index % 20 == 0:
                print(f"shard {k}/{n}: {index + 1}/{len(todo)} {row['seconds']} s", file=sys.stderr)


def shard_arg(text: str) -> tuple[int, int]:
    k, n = (int(x) for x in text.split("/"))
    if not 0 <= k < n:
        raise argparse.ArgumentTypeError("K/N with 0 <= K < N")
    return k, n


REASONS = ("disfluent", "off_target", "wrong_context")
#: Derived at report time from the question's words, no model: the mean and the lowest Zipf
#: frequency of its words (wordfreq), and a SLOR-like fluency, the question's mean token
#: log-probability under the instruct model minus its words' mean unigram log-probability
#: (Kann et al. 2018 normalise by the same tokens; the instruct model's tokens are not kept,
#: so words stand in for them: a deviation, noted in docs/evaluation.md).
DERIVED = ("q_zipf_mean", "q_zipf_min", "q_slor")


def word_frequencies(question: str) -> list[float]:
    from wordfreq import tokenize, zipf_frequency

    return [zipf_frequency(w, "en") for w in tokenize(question, "en")]


def derived(row: dict[str, Any]) -> dict[str, float | None]:
    zipfs = word_frequencies(row["question"])
    if not zipfs:
        return dict.fromkeys(DERIVED)
    # Zipf = log10(frequency per billion words); 0 for a word wordfreq has never seen, which
    # reads as a one-in-a-billion word (the floor its lists reach).
    unigram = [math.log(10 ** (z - 9)) if z > 0 else math.log(1e-9) for z in zipfs]
    fluency = row["values"].get("q_fluency")
    return {
        "q_zipf_mean": float(np.mean(zipfs)),
        "q_zipf_min": float(min(zipfs)),
        "q_slor": None if fluency is None else float(fluency - np.mean(unigram)),
    }


def load(path: Path, found: list[Any]) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    seen: dict[str, dict[str, Any]] = {}
    for row in rows:
        if row.get("scored") and row.get("label") is not None:
            seen[row["key"]] = row
    out = with_text(list(seen.values()), found)
    for row in out:
        row["values"].update(derived(row))
    return out


def with_qgeval_reader(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """QGEval rows (light signals) with the 1.5B reader's signals beside them, read by
    bench/standard_reader.py (keyed passage id + question index); rows it has not read keep
    no reader values (missing, as for an item the reader could not score)."""
    readings = Path(__file__).parents[1] / "packaging/estimators/standard_reader_items.jsonl"
    reader = per_item_results(readings, "key")
    passages = json.loads(
        (SHARED / "data" / "qgeval" / "instances.json").read_text(encoding="utf-8")
    )
    index = {
        (str(p["id"]), q["prediction"]): f"{p['id']}#{i}"
        for p in passages
        for i, q in enumerate(p["questions"])
    }
    for row in rows:
        read = reader.get(index.get((row["group"], row["question"]), ""))
        for name in ("reader_f1", "reader_key_lp"):
            row["values"][name] = None if read is None else read.get(name)
    return rows


def interval(x: np.ndarray, y: np.ndarray, stat: Any, groups: np.ndarray) -> list[float]:
    """judgement.interval, or [nan, nan] where no resample varies (a signal constant on the
    questions compared, e.g. every one of them reads as a question)."""
    if np.std(x) == 0:
        return [math.nan, math.nan]
    try:
        return _interval(x, y, stat, groups=groups)
    except IndexError:
        return [math.nan, math.nan]


def auc(score: np.ndarray, y: np.ndarray) -> float:
    """ROC AUC by ranks (Mann-Whitney), ties counted half: sklearn's roc_auc_score gives
    the same number, ten times slower inside the bootstrap."""
    from scipy.stats import rankdata

    positive = y == 1
    n1, n0 = int(positive.sum()), int((~positive).sum())
    ranks = rankdata(score)
    return float((ranks[positive].sum() - n1 * (n1 + 1) / 2) / (n1 * n0))


def ci_text(value: float, ci: Sequence[float]) -> str:
    return f"{value:.2f} [{ci[0]:.2f}, {ci[1]:.2f}]"


def reason_gaps(
    score: np.ndarray, reasons: np.ndarray, groups: np.ndarray
) -> dict[str, dict[str, Any]]:
    """Mean score of kept questions minus the mean of each removal reason's, with its
    interval (answer spans resampled)."""
    kept = reasons == "kept"

    def gap(xs: np.ndarray, ys: np.ndarray) -> float:
        return float(xs[ys == 1].mean() - xs[ys == 0].mean())

    out: dict[str, dict[str, Any]] = {
        "kept": {"n": int(kept.sum()), "mean": float(score[kept].mean())}
    }
    for reason in (*REASONS, "any"):
        removed = ~kept if reason == "any" else reasons == reason
        if not removed.any():
            continue
        mask = kept | removed
        x, label = score[mask], kept[mask].astype(float)
        out[reason] = {
            "n": int(removed.sum()),
            "mean": float(score[removed].mean()),
            "gap": gap(x, label),
            "ci": interval(x, label, gap, groups=groups[mask]),
        }
    return out


def demeaned(x: np.ndarray, groups: np.ndarray) -> np.ndarray:
    """Each value minus its group's mean: what is left to tell questions of one answer span
    apart (how generation ranks the candidates it wrote for one key)."""
    out = x.astype(float).copy()
    for g in np.unique(groups):
        members = groups == g
        out[members] -= x[members].mean()
    return out


def measured(score: np.ndarray, y: np.ndarray, groups: np.ndarray, reasons: np.ndarray) -> dict:
    within_x, within_y = demeaned(score, groups), demeaned(y, groups)
    return {
        "n": len(y),
        "r": pearson(score, y),
        "r_ci": interval(score, y, pearson, groups=groups),
        # Questions of one answer span only: r of the differences from the span's means.
        "r_within": pearson(within_x, within_y),
        "r_within_ci": interval(within_x, within_y, pearson, groups=groups),
        "auc": auc(score, y),
        "auc_ci": interval(score, y, auc, groups=groups),
        "reasons": reason_gaps(score, reasons, groups),
    }


def column(rows: list[dict[str, Any]], name: str) -> np.ndarray:
    return np.array(
        [np.nan if row["values"].get(name) is None else float(row["values"][name]) for row in rows]
    )


def signal_table(rows: list[dict[str, Any]], names: Sequence[str], arrays: dict) -> list[dict]:
    y, groups, reasons = arrays["y"], arrays["groups"], arrays["reasons"]
    table = []
    for name in names:
        x = column(rows, name)
        ok = ~np.isnan(x)
        if ok.sum() < 30 or np.std(x[ok]) == 0:
            continue
        table.append({"signal": name, **measured(x[ok], y[ok], groups[ok], reasons[ok])})
    return table


def feature_rows(rows: list[dict[str, Any]]) -> list[dict[str, float | None]]:
    return [
        {f"sig.{k}": (None if v is None else float(v)) for k, v in row["values"].items()}
        for row in rows
    ]


def shipped(rows: list[dict[str, Any]], arrays: dict) -> dict[str, Any]:
    """The shipped estimators as they are (fitted on QGEval, never on these rows)."""
    from quizsmith.quality.overall_model import (
        OverallModel,
        _proba,
        feature_matrix,
        shipped_model_path,
    )

    out = {}
    feats = feature_rows(rows)
    for profile in ("light", "standard"):
        model = OverallModel.load(shipped_model_path(profile))
        p = _proba(model.estimator, feature_matrix(feats, model.features))
        out[profile] = measured(p, arrays["y"], arrays["groups"], arrays["reasons"])
    return out


Fitter = Callable[[np.ndarray, np.ndarray], Any]


def blend(x: np.ndarray, y: np.ndarray) -> Any:
    from quizsmith.quality.overall_model import BlendClassifier

    return BlendClassifier(0, min_leaf=min(80, max(5, len(y) // 20))).fit(x, y)


def logistic(x: np.ndarray, y: np.ndarray) -> Any:
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    return make_pipeline(StandardScaler(), LogisticRegression(C=0.3, max_iter=5000)).fit(x, y)


def candidates() -> dict[str, tuple[tuple[str, ...], Fitter]]:
    from quizsmith.quality.metric import SIGNALS
    from quizsmith.quality.reader import READER_SIGNALS

    light = tuple(f"sig.{s}" for s in SIGNALS)
    reader = tuple(f"sig.{s}" for s in READER_SIGNALS)
    extra = tuple(f"sig.{s}" for s in DERIVED)
    return {
        "light signals, blend": (light, blend),
        "light signals, logistic": (light, logistic),
        "light + word frequency, blend": (light + extra, blend),
        "light + word frequency, logistic": (light + extra, logistic),
        "light + reader, blend": (light + reader, blend),
        "light + reader, logistic": (light + reader, logistic),
        "light + reader + word frequency, blend": (light + reader + extra, blend),
        "light + reader + word frequency, logistic": (light + reader + extra, logistic),
    }


def matrix(rows: list[dict[str, Any]], features: Sequence[str]) -> np.ndarray:
    from quizsmith.quality.overall_model import feature_matrix

    return feature_matrix(feature_rows(rows), features)


def held_out(
    x: np.ndarray,
    y: np.ndarray,
    folds: list[tuple[np.ndarray, np.ndarray]],
    fitter: Fitter,
    extra: tuple[np.ndarray, np.ndarray] | None = None,
) -> np.ndarray:
    """Out-of-fold predictions; `extra` (the other dataset) joins every fold's training."""
    p = np.zeros(len(y))
    for train, test in folds:
        xt, yt = x[train], y[train]
        if extra is not None:
            xt, yt = np.vstack([xt, extra[0]]), np.concatenate([yt, extra[1]])
        p[test] = fitter(xt, yt).predict_proba(x[test])[:, 1]
    return p


def document_folds(docs: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
    return [(np.flatnonzero(docs != d), np.flatnonzero(docs == d)) for d in np.unique(docs)]


def fitted(qd: list[dict], qd_arrays: dict, qg: list[dict], qg_arrays: dict) -> dict[str, Any]:
    """Every candidate, fitted three ways and measured on both targets, always held out:
    Quiz Design leave one document out, QGEval 5 folds grouped by passage; a model fitted on
    one dataset alone is read on the other as it is."""
    from quizsmith.evaluation.overall import grouped_folds

    out: dict[str, Any] = {}
    qd_folds = document_folds(qd_arrays["docs"])
    qg_folds = grouped_folds(list(qg_arrays["groups"])) if qg else []
    for name, (features, fitter) in candidates().items():
        xd, yd = matrix(qd, features), qd_arrays["y"]
        ways: dict[str, dict[str, Any]] = {}
        ways["teachers"] = {"quizdesign": held_out(xd, yd, qd_folds, fitter)}
        if qg:
            xg, yg = matrix(qg, features), qg_arrays["y"]
            ways["teachers"]["qgeval"] = fitter(xd, yd).predict_proba(xg)[:, 1]
            ways["qgeval"] = {
                "quizdesign": fitter(xg, yg).predict_proba(xd)[:, 1],
                "qgeval": held_out(xg, yg, qg_folds, fitter),
            }
            ways["both"] = {
                "quizdesign": held_out(xd, yd, qd_folds, fitter, (xg, yg)),
                "qgeval": held_out(xg, yg, qg_folds, fitter, (xd, yd)),
            }
        out[name] = {
            way: {
                target: measured(
                    p,
                    (qd_arrays if target == "quizdesign" else qg_arrays)["y"],
                    (qd_arrays if target == "quizdesign" else qg_arrays)["groups"],
                    (qd_arrays if target == "quizdesign" else qg_arrays)["reasons"],
                )
                for target, p in by_target.items()
            }
            for way, by_target in ways.items()
        }
    return out


def gaps_text(m: dict[str, Any]) -> str:
    return " | ".join(
        ci_text(m["reasons"][r]["gap"], m["reasons"][r]["ci"]) if r in m["reasons"] else "-"
        for r in REASONS
    )


WAYS = {
    "qgeval": "QGEval (grouped 5-fold); Quiz Design read as is",
    "teachers": "Quiz Design (leave one document out); QGEval read as is",
    "both": "both (each target's own folds, the other dataset always in training)",
}


def markdown(data: dict[str, Any]) -> str:
    lines = [
        "## Teachers' decisions (Quiz Design, development split): `bench/teacher_decisions.py`",
        "",
        f"Command: `.venv/bin/python bench/teacher_decisions.py --report` at revision "
        f"{data['revision']}, {data['machine']['date']}. Quiz Design: {data['n']} questions, "
        f"{data['groups']} answer spans, documents {', '.join(data['documents'])}, "
        f"{data['kept']} kept; QGEval: {data['qgeval_n']} questions of {data['qgeval_groups']} "
        "passages (accept = all seven ratings >= 2.5). 95% intervals by resampling answer "
        "spans (Quiz Design) or passages (QGEval). Signals read by `--fill` (light models' "
        "likelihoods + the 1.5B reader); word frequencies from wordfreq.",
        "",
        "### Estimators on teachers' decisions (Quiz Design)",
        "",
        "Kept minus removed: the estimate's mean on kept questions minus its mean on the "
        "questions removed for that reason (above zero: the estimate ranks kept ones higher).",
        "",
        "| estimator | fitted on | QD r | QD AUC | QD r within a span | disfluent | off target "
        "| wrong context | QGEval r | QGEval AUC |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for profile, m in data["shipped"].items():
        lines.append(
            f"| shipped {profile} | QGEval + NACo variants (as shipped) | "
            f"{ci_text(m['r'], m['r_ci'])} | {ci_text(m['auc'], m['auc_ci'])} | "
            f"{ci_text(m['r_within'], m['r_within_ci'])} | {gaps_text(m)} | see sidecar | "
            "see sidecar |"
        )
    for name, ways in data["fitted"].items():
        for way, targets in ways.items():
            qd, qg = targets["quizdesign"], targets.get("qgeval")
            qg_text = (
                f"{ci_text(qg['r'], qg['r_ci'])} | {ci_text(qg['auc'], qg['auc_ci'])}"
                if qg
                else "- | -"
            )
            lines.append(
                f"| {name} | {WAYS[way]} | {ci_text(qd['r'], qd['r_ci'])} | "
                f"{ci_text(qd['auc'], qd['auc_ci'])} | "
                f"{ci_text(qd['r_within'], qd['r_within_ci'])} | {gaps_text(qd)} | {qg_text} |"
            )
    lines += [
        "",
        "### Signals on Quiz Design, nothing fitted (r with keep; kept minus removed)",
        "",
        "| signal | n | r | AUC | r within a span | disfluent | off target | wrong context |",
        "| --- | ---: | --- | --- | --- | --- | --- | --- |",
    ]
    for m in data["signals"]:
        lines.append(
            f"| {m['signal']} | {m['n']} | {ci_text(m['r'], m['r_ci'])} | "
            f"{ci_text(m['auc'], m['auc_ci'])} | {ci_text(m['r_within'], m['r_within_ci'])} | "
            f"{gaps_text(m)} |"
        )
    if data.get("qgeval_signals"):
        lines += [
            "",
            "### The same signals on QGEval (r with accept), to see which help only one target",
            "",
            "| signal | n | r | AUC |",
            "| --- | ---: | --- | --- |",
        ]
        for m in data["qgeval_signals"]:
            lines.append(
                f"| {m['signal']} | {m['n']} | {ci_text(m['r'], m['r_ci'])} | "
                f"{ci_text(m['auc'], m['auc_ci'])} |"
            )
    return "\n".join(lines) + "\n"


def arrays_of(rows: list[dict[str, Any]]) -> dict[str, np.ndarray]:
    return {
        "y": np.array([row["label"] for row in rows], dtype=float),
        "groups": np.array([str(row["group"]) for row in rows]),
        "docs": np.array([str(row["doc_id"]) for row in rows]),
        # QGEval gives no removal reason: its rejected questions are "removed".
        "reasons": np.array([row["reason"] if row["label"] == 0 else "kept" for row in rows]),
    }


def report(path: Path, found: list[Any], qgeval_found: list[Any]) -> None:
    """`found`, `qgeval_found`: the datasets' records, which give each row its text back (and
    pick each set's rows from the one results file)."""
    from quizsmith.quality.metric import ALL_SIGNALS

    rows = load(path, found)
    arrays = arrays_of(rows)
    qg = with_qgeval_reader(load(path, qgeval_found))
    qg_arrays = arrays_of(qg) if qg else {}
    data = {
        "revision": git_revision(),
        "machine": machine(),
        "n": len(rows),
        "groups": len(set(arrays["groups"].tolist())),
        "documents": sorted(set(arrays["docs"].tolist())),
        "kept": int(arrays["y"].sum()),
        "shipped": shipped(rows, arrays),
        "qgeval_n": len(qg),
        "qgeval_groups": len(set(qg_arrays["groups"].tolist())) if qg else 0,
        "fitted": fitted(rows, arrays, qg, qg_arrays),
        "signals": signal_table(rows, (*ALL_SIGNALS, *DERIVED), arrays),
        "qgeval_signals": signal_table(qg, (*ALL_SIGNALS, *DERIVED), qg_arrays) if qg else [],
    }
    # The per-item rows are this benchmark's results file; the report is read from them
    # in seconds, so only its table is kept (docs/benchmarks.md).
    write_doc_section("teacher_decisions", markdown(data))
    print(markdown(data))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--fill", action="store_true", help="read the questions (resumable)")
    parser.add_argument("--shard", type=shard_arg, default=(0, 1), help="K/N: every Nth row")
    parser.add_argument(
        "--qgeval",
        type=int,
        default=0,
        metavar="N",
        help="fill QGEval's first N interleaved passages instead (light profile)",
    )
    parser.add_argument("--report", action="store_true", help="measure and write the report")
    args = parser.parse_args()
    if args.fill:
        fill(args)
    if args.report:
        report(RESULTS, records(), qgeval_records(args.qgeval or 100))


if __name__ == "__main__":
    main()
