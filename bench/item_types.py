"""True/false and fill-in-the-blank items judged on labelled cloze tests (issue 27, item 3).

CELA (/work/shared/data/cela, README.md there): cloze tests with four options per blank and
native speakers' `rel` label (T: exactly one option fits, F: not). From each labelled blank:

- a cloze item: stem = the blank's sentence (the other blanks filled with their keys),
  passage = the whole article with its keys filled in (the cloze signal takes the sentence
  out itself, as it does in the app), options = the four options; label rel T/F;
- true/false items: the sentence with the key filled in (key True) and with one distractor
  (seeded choice, key False); passage = the filled article. For rel=T blanks the False
  item's key is right; for rel=F blanks it may not be (another option fits as well), so
  those are reported apart and left out of the calibration.

    python bench/item_types.py collect --per-test 6 --seed 27   # signals, resumable
    python bench/item_types.py report [--ship]                  # AUC, CV, thresholds

`collect` appends one line per item to bench/results/item-types.jsonl (light profile's
reader, Gemma 270M, as `quality.metric._reader` picks it); `report` writes
bench/results/item_types.md/.json and, with --ship, resources/item_type_calibration.json.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))

from common import RESULTS, git_revision, machine, write_results

CELA = Path("/work/shared/data/cela")
ITEMS = RESULTS / "item-types.jsonl"
SHIP = Path(__file__).parent.parent / "resources" / "item_type_calibration.json"
BLANK = "_____"


def cela_blanks(
    per_test: int, seed: int, f_per_test: int = 99, tests: int = 100, every_label: bool = False
) -> list[dict[str, Any]]:
    """Labelled blanks of `tests` tests (a seeded choice): up to `per_test` rel=T and up to
    `f_per_test` rel=F blanks of each (seeded), with the filled article, the blank's
    sentence and the options. `total_T`/`total_F`: how many the test has (the sampling
    weights of the calibration). With `every_label`, every blank labelled for `rel` or
    `val` (bench/option_checks.py), `rel`/`val` None where a blank lacks that label."""
    import re

    from quizsmith.generation.sentences import split_sentences

    labels = json.loads((CELA / "cela.json").read_text())
    rng = random.Random(seed)
    out = []
    paths = sorted((CELA / "cloze_tests").glob("*.json"))
    paths = sorted(random.Random(seed).sample(paths, min(tests, len(paths))))
    for path in paths:
        test = json.loads(path.read_text())
        tid = path.stem
        keys = [
            opts["ABCD".index(a)] for opts, a in zip(test["options"], test["answers"], strict=True)
        ]
        # Spaces collapsed piece by piece, so each key's offset is taken in the final text
        # (searching for the key again found "as" inside "was": 43 of 2,000 blanks).
        pieces = [re.sub(r"[ \t]+", " ", p) for p in re.split(r"_+", test["article"])]
        text, spans = pieces[0], []
        for key, after in zip(keys, pieces[1:], strict=True):
            spans.append((len(text), len(text) + len(key)))
            text += key + after
        sentences = split_sentences(text)
        rel = labels.get(tid, {}).get("rel", {})
        true_ids = [int(n) for n, v in rel.items() if v == "T"]
        false_ids = [int(n) for n, v in rel.items() if v == "F"]
        rng.shuffle(true_ids)
        rng.shuffle(false_ids)
        chosen = sorted(false_ids[:f_per_test] + true_ids[:per_test])
        val = labels.get(tid, {}).get("val", {})
        if every_label:
            chosen = sorted({*(int(n) for n in rel), *(int(n) for n in val)})
        for number in chosen:
            start, end = spans[number - 1]
            sentence = next(s for s in sentences if s.start <= start < s.end)
            before, after = text[sentence.start : start], text[end : sentence.end]
            options = test["options"][number - 1]
            key = keys[number - 1]
            wrong = [o for o in options if o != key]
            out.append(
                {
                    "test": tid,
                    "source": tid.split("_")[0],
                    "blank": number,
                    "rel": rel.get(str(number)),
                    "val": val.get(str(number)),
                    "key_start": start,
                    "passage": text,
                    "stem": before + BLANK + after,
                    "true_statement": before + key + after,
                    "false_statement": before + rng.choice(wrong) + after,
                    "key": key,
                    "options": options,
                    "total_T": len(true_ids),
                    "total_F": len(false_ids),
                }
            )
    return out


def collect(args: argparse.Namespace) -> None:
    from quizsmith.metrics.base import MetricContext
    from quizsmith.quality.item_types import cloze_signals, tf_signals
    from quizsmith.quality.metric import _reader

    ctx = MetricContext()
    reader = _reader(ctx)
    done = set()
    if ITEMS.exists():
        for line in ITEMS.read_text().splitlines():
            row = json.loads(line)
            done.add((row["test"], row["blank"], row["kind"]))
    blanks = [
        b
        for b in cela_blanks(args.per_test, args.seed, args.f_per_test, args.tests)
        if (b["test"], b["blank"], args.kind) not in done
    ]
    if args.limit:
        blanks = blanks[: args.limit]
    print(f"{len(blanks)} blanks to read with {reader.info.label()}", flush=True)
    ITEMS.parent.mkdir(exist_ok=True)
    with ITEMS.open("a") as out:
        for n, b in enumerate(blanks, 1):
            started = time.perf_counter()
            # Ids and outputs only: CELA's text stays outside the repository (its README).
            keep = ("test", "source", "blank", "rel", "total_T", "total_F")
            row = {k: b[k] for k in keep}
            row["kind"] = args.kind
            if args.kind == "cloze":
                distractors = [o for o in b["options"] if o != b["key"]]
                cloze = cloze_signals(reader, b["passage"], b["stem"], b["key"], distractors, None)
                row["cloze_key_share"] = cloze.values["cloze_key_share"]
                row["cloze_key_lp"] = cloze.values["cloze_key_lp"]
                for name in ("cloze_sentence_share", "cloze_sentence_lead", "cloze_key_lead"):
                    row[name] = cloze.values.get(name)
                row["sentence_removed"] = cloze.evidence["sentence_removed"]
            else:
                true = tf_signals(reader, b["passage"], b["true_statement"], "True")
                false = tf_signals(reader, b["passage"], b["false_statement"], "False")
                row["tf_true_margin"] = true.values["tf_margin_true"]
                row["tf_false_margin"] = false.values["tf_margin_true"]
                row["tf_true_support"] = true.values["tf_support"]
                row["tf_false_support"] = false.values["tf_support"]
            row["seconds"] = round(time.perf_counter() - started, 2)
            row["reader"] = reader.info.label()
            out.write(json.dumps(row) + "\n")
            out.flush()
            if n % 10 == 0:
                print(f"{n}/{len(blanks)} {row['seconds']} s", flush=True)


def auc(scores: np.ndarray, labels: np.ndarray, weights: np.ndarray | None = None) -> float:
    from sklearn.metrics import roc_auc_score

    return float(roc_auc_score(labels, scores, sample_weight=weights))


def grouped_interval(
    stat: Any, groups: np.ndarray, *arrays: np.ndarray, n_boot: int = 2000, seed: int = 0
) -> list[float]:
    """95% interval of stat(*arrays) resampling whole tests (a test's blanks share a text)."""
    rng = np.random.default_rng(seed)
    ids = np.unique(groups)
    index = {g: np.flatnonzero(groups == g) for g in ids}
    values = []
    for _ in range(n_boot):
        rows = np.concatenate([index[g] for g in rng.choice(ids, len(ids))])
        try:
            values.append(stat(*(a[rows] for a in arrays)))
        except ValueError:  # one class only in this resample
            continue
    low, high = np.percentile(values, [2.5, 97.5])
    return [round(float(low), 3), round(float(high), 3)]


def logistic(x: np.ndarray, y: np.ndarray, w: np.ndarray | None = None) -> Any:
    from sklearn.linear_model import LogisticRegression

    # Mildly regularised: the support alone nearly separates small samples, and an
    # unregularised fit then runs its coefficients off to infinity.
    return LogisticRegression(C=1.0).fit(x, y, sample_weight=w)


def oof_logistic(
    x: np.ndarray, y: np.ndarray, groups: np.ndarray, w: np.ndarray | None = None, folds: int = 5
) -> np.ndarray:
    """Out-of-fold probabilities of a logistic fit, folds grouped by test."""
    from sklearn.model_selection import GroupKFold

    out = np.zeros(len(y))
    for train, test in GroupKFold(folds).split(x, y, groups):
        model = logistic(x[train], y[train], None if w is None else w[train])
        out[test] = model.predict_proba(x[test])[:, 1]
    return out


def flag_cut(
    prob_right: np.ndarray, wrong: np.ndarray, w: np.ndarray, wrong_rate: float | None = None
) -> dict[str, Any]:
    """The flag "the key may be wrong / more than one answer fits", raised below a cut of the
    out-of-fold probability. Per cut: how many flagged, precision (weighted share of flagged
    items that are wrong; with `wrong_rate`, as it would be at that rate of wrong items) and
    recall. Chosen: the highest precision among cuts flagging at least 5% of items (the
    higher cut on ties); a warning only at precision >= 0.6."""
    rows = []
    for cut in np.round(np.arange(0.05, 0.96, 0.05), 2):
        flagged = prob_right < cut
        if w[flagged].sum() < 0.05 * w.sum() or flagged.sum() < 5:
            continue
        tpr = float(w[flagged & (wrong == 1)].sum() / w[wrong == 1].sum())
        fpr = float(w[flagged & (wrong == 0)].sum() / w[wrong == 0].sum())
        rate = wrong_rate if wrong_rate is not None else float(w[wrong == 1].sum() / w.sum())
        precision = tpr * rate / (tpr * rate + fpr * (1 - rate)) if tpr + fpr else 0.0
        rows.append({"cut": float(cut), "flagged": int(flagged.sum()),
                     "precision": round(precision, 3), "recall": round(tpr, 3)})  # fmt: skip
    best = max(rows, key=lambda r: (round(r["precision"], 2), r["cut"])) if rows else None
    return {"rows": rows, "chosen": best}


def report_cloze(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Does the key's share separate blanks with exactly one fitting option (rel T) from the
    others? Sampled one T and one F blank per test: weights restore each test's own mix."""
    groups = np.array([r["test"] for r in rows])
    one = np.array([r["rel"] == "T" for r in rows], dtype=int)
    sampled: dict[tuple[str, str], int] = {}
    for r in rows:
        sampled[(r["test"], r["rel"])] = sampled.get((r["test"], r["rel"]), 0) + 1
    w = np.array([r[f"total_{r['rel']}"] / sampled[(r["test"], r["rel"])] for r in rows])
    found = sum(bool(r["sentence_removed"]) for r in rows)
    out: dict[str, Any] = {"n": len(rows), "n_T": int(one.sum()), "n_F": int((1 - one).sum()),
                           "n_tests": len(set(groups)), "sentence_found": found}  # fmt: skip
    out["signals"] = {}
    for name in ("cloze_key_share", "cloze_key_lead", "cloze_sentence_lead", "cloze_key_lp"):
        x = np.array([r[name] for r in rows], dtype=float)
        out["signals"][name] = {
            "auc": round(auc(x, one), 3),
            "auc_ci": grouped_interval(auc, groups, x, one),
            "auc_weighted": round(auc(x, one, w), 3),
        }
    x = np.array([[r["cloze_key_share"]] for r in rows], dtype=float)
    oof = oof_logistic(x, one, groups, w)
    model = logistic(x, one, w)
    out["oof_auc"] = round(auc(oof, one), 3)
    out["oof_auc_ci"] = grouped_interval(auc, groups, oof, one)
    out["oof_brier_weighted"] = round(float(np.average((oof - one) ** 2, weights=w)), 4)
    base = float(np.average(one, weights=w))
    out["base_brier_weighted"] = round(float(np.average((base - one) ** 2, weights=w)), 4)
    out["share_T_weighted"] = round(base, 3)
    out["flag"] = flag_cut(oof, 1 - one, w)
    out["fit"] = {"features": ["cloze_key_share"], "coef": [float(model.coef_[0][0])],
                  "intercept": float(model.intercept_[0])}  # fmt: skip
    out["by_source"] = {}
    sources = [r["test"].split("_")[0] for r in rows]  # cloth, cbt, jiang, random, roundmt
    for source in sorted(set(sources)):
        m = np.array([s == source for s in sources])
        if len(set(one[m])) == 2:
            out["by_source"][source] = {"n": int(m.sum()), "auc": round(auc(x[m, 0], one[m]), 3)}
    return out


FIT_FEATURES = {
    "margin": ["tf_margin_true"],
    "support": ["tf_support"],
    "margin+support": ["tf_margin_true", "tf_support"],
}


def tf_predict(fit: dict[str, Any], name: str, rows: list[dict[str, Any]]) -> np.ndarray:
    """P(statement true) of the falsified statements of `rows` under a fit."""
    columns = {"tf_margin_true": "tf_false_margin", "tf_support": "tf_false_support"}
    x = np.array([[r[columns[f]] for f in FIT_FEATURES[name]] for r in rows])
    return 1 / (1 + np.exp(-(x @ np.array(fit["coef"]) + fit["intercept"])))


def report_tf(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """True vs falsified statements from rel=T blanks (every key right); the probability that
    the key is right; rel=F blanks' falsified statements reported apart."""
    sound = [r for r in rows if r["rel"] == "T"]
    groups = np.array([r["test"] for r in sound] * 2)
    is_true = np.array([1] * len(sound) + [0] * len(sound))
    margin = np.array([r["tf_true_margin"] for r in sound] + [r["tf_false_margin"] for r in sound])
    support = np.array(
        [r["tf_true_support"] for r in sound] + [r["tf_false_support"] for r in sound]
    )
    out: dict[str, Any] = {"n_blanks": len(sound), "n_statements": len(is_true),
                           "n_tests": len(set(groups))}  # fmt: skip
    key_prob = 1 / (1 + np.exp(-margin))  # tf_key_prob of a True key
    out["signals"] = {
        "tf_key_prob": {"auc": round(auc(key_prob, is_true), 3),
                        "auc_ci": grouped_interval(auc, groups, key_prob, is_true)},
        "tf_support": {"auc": round(auc(support, is_true), 3),
                       "auc_ci": grouped_interval(auc, groups, support, is_true)},
    }  # fmt: skip
    fits = {}
    for label, x in (
        ("margin", margin[:, None]),
        ("support", support[:, None]),
        ("margin+support", np.column_stack([margin, support])),
    ):
        oof = oof_logistic(x, is_true, groups)
        model = logistic(x, is_true)
        fits[label] = {
            "oof_auc": round(auc(oof, is_true), 3),
            "oof_auc_ci": grouped_interval(auc, groups, oof, is_true),
            "oof_brier": round(float(np.mean((oof - is_true) ** 2)), 4),
            "coef": [float(c) for c in model.coef_[0]],
            "intercept": float(model.intercept_[0]),
            "oof": oof,
        }
    out["fits"] = {k: {n: v for n, v in f.items() if n != "oof"} for k, f in fits.items()}
    # The answer words join the support only where they add to it out of fold.
    both_better = fits["margin+support"]["oof_auc"] > fits["support"]["oof_auc"] + 0.01
    name = "margin+support" if both_better else "support"
    out["chosen"] = name
    out["features"] = FIT_FEATURES[name]
    out["base_brier"] = 0.25
    # The flag: each statement with its right key and with the wrong one (P(right) of the
    # wrong-key item = 1 - P(right) of the right-key one); precision at the set's 50% of wrong
    # keys and as it would be with 20% wrong keys.
    chosen = fits[name]["oof"]
    p_right = np.where(is_true == 1, chosen, 1 - chosen)
    both = np.concatenate([p_right, 1 - p_right])
    wrong = np.array([0] * len(p_right) + [1] * len(p_right))
    ones = np.ones(len(both))
    out["flag_half_wrong"] = flag_cut(both, wrong, ones)
    out["flag_fifth_wrong"] = flag_cut(both, wrong, ones, wrong_rate=0.2)
    out["typical_support"] = {"true": float(np.median(support[is_true == 1])),
                              "false": float(np.median(support[is_true == 0]))}  # fmt: skip
    questionable = [r for r in rows if r["rel"] == "F"]
    if questionable:
        p_true = tf_predict(fits[name], name, questionable)
        out["rel_F_falsified"] = {
            "n": len(questionable),
            "mean_p_key_right": round(float(1 - p_true.mean()), 3),
            "rel_T_falsified_mean_p_key_right_oof": round(
                float(1 - chosen[is_true == 0].mean()), 3
            ),
            "flagged_share_at_chosen_cut": None,
        }
    return out


def report(args: argparse.Namespace) -> None:
    rows = [json.loads(line) for line in ITEMS.read_text().splitlines()]
    cloze = [r for r in rows if r["kind"] == "cloze"]
    tf = [r for r in rows if r["kind"] == "tf"]
    data: dict[str, Any] = {"machine": machine(), "revision": git_revision(),
                            "reader": rows[0]["reader"], "seed": 27}  # fmt: skip
    if cloze:
        data["cloze"] = report_cloze(cloze)
    if tf:
        data["tf"] = report_tf(tf)
        cut = (data["tf"]["flag_fifth_wrong"]["chosen"] or {}).get("cut")
        if cut is not None and "rel_F_falsified" in data["tf"]:
            name = data["tf"]["chosen"]
            questionable = [r for r in tf if r["rel"] == "F"]
            p_right = 1 - tf_predict(data["tf"]["fits"][name], name, questionable)
            data["tf"]["rel_F_falsified"]["flagged_share_at_chosen_cut"] = round(
                float((p_right < cut).mean()), 3
            )
    print(json.dumps({k: v for k, v in data.items() if k != "machine"}, indent=1))
    write_results("item_types", data, markdown(data))
    if args.ship:
        ship(data)


def ship(data: dict[str, Any]) -> None:
    """resources/item_type_calibration.json: a type's calibration only where its out-of-fold
    AUC interval excludes 0.5; else the measured reason it is not estimated."""
    blob: dict[str, Any] = {"format": 1, "not_shipped": {}}
    provenance = {"data": "CELA development split, bench/item_types.py (seed 27)",
                  "reader": data["reader"], "revision": data["revision"]}  # fmt: skip
    if "tf" in data:
        tf = data["tf"]
        fit = tf["fits"][tf["chosen"]]
        flag = tf["flag_fifth_wrong"]["chosen"] or {}
        if fit["oof_auc_ci"][0] > 0.5:
            blob["tf"] = {
                "features": tf["features"],
                "coef": fit["coef"], "intercept": fit["intercept"],
                "flag_below": flag.get("cut", 0.0),
                "flag_precision": flag.get("precision"),
                "typical_support": tf["typical_support"],
                "measured": (
                    f"Calibrated on {tf['n_statements']} true/false statements made from "
                    f"{tf['n_tests']} labelled cloze tests (CELA). " + in_100(fit, TF_PAIR)
                ),
                "provenance": {**provenance, "n": tf["n_statements"],
                               "oof_auc": fit["oof_auc"], "oof_auc_ci": fit["oof_auc_ci"],
                               "oof_brier": fit["oof_brier"]},
            }  # fmt: skip
        else:
            blob["not_shipped"]["tf"] = (
                f"Not estimated: on {tf['n_statements']} labelled statements the model did not "
                "tell true statements from falsified ones better than chance. "
                + in_100(fit, TF_PAIR)
            )
    if "cloze" in data:
        cz = data["cloze"]
        flag = cz["flag"]["chosen"] or {}
        if cz["oof_auc_ci"][0] > 0.5:
            blob["cloze"] = {
                **cz["fit"],
                "flag_below": flag.get("cut", 0.0),
                "flag_precision": flag.get("precision"),
                "measured": (
                    f"Calibrated on {cz['n']} blanks of {cz['n_tests']} labelled cloze tests "
                    "(CELA, four options each). " + in_100(cz, BLANK_PAIR)
                ),
                "provenance": {**provenance, "n": cz["n"], "oof_auc": cz["oof_auc"],
                               "oof_auc_ci": cz["oof_auc_ci"]},
            }  # fmt: skip
        else:
            blob["not_shipped"]["cloze"] = (
                f"Fill-in-the-blank items get no estimate: on {cz['n']} labelled blanks the "
                "model could not tell a blank with exactly one right answer from one that "
                "several answers fit better than chance. " + in_100(cz, BLANK_PAIR)
            )
    SHIP.write_text(json.dumps(blob, indent=2) + "\n")
    print(f"wrote {SHIP}")


TF_PAIR = "a true statement above a falsified one"
BLANK_PAIR = "a blank with exactly one right answer above one that several answers fit"


def in_100(fit: dict[str, Any], pair: str) -> str:
    """An out-of-fold AUC in a teacher's words: how often, of 100 pairs, the right one was
    rated higher (chance: 50), with its 95% interval."""
    low, high = (round(100 * v) for v in fit["oof_auc_ci"])
    return (
        f"Tested on items it was not fitted on, it rated {pair} {round(100 * fit['oof_auc'])} "
        f"times in 100 (95% interval {low}-{high}; chance is 50)."
    )


def markdown(data: dict[str, Any]) -> str:
    body = json.dumps({k: v for k, v in data.items() if k != "machine"}, indent=1)
    return (
        "# True/false and fill-in-the-blank on CELA (bench/item_types.py)\n\n"
        f"Machine: {data['machine']['cpu']}, {data['machine']['date']}. "
        f"Reader: {data['reader']}.\n\n"
        'See docs/evaluation.md, "True/false and fill-in-the-blank", for the reading.\n\n'
        f"```json\n{body}\n```\n"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    c = sub.add_parser("collect")
    c.add_argument("--per-test", type=int, default=6)
    c.add_argument("--seed", type=int, default=27)
    c.add_argument("--limit", type=int, default=0)
    c.add_argument("--f-per-test", type=int, default=99)
    c.add_argument("--tests", type=int, default=100)
    c.add_argument("--kind", choices=("tf", "cloze"), required=True)
    r = sub.add_parser("report")
    r.add_argument("--ship", action="store_true")
    args = parser.parse_args()
    collect(args) if args.command == "collect" else report(args)


if __name__ == "__main__":
    main()
