"""The item-type calibration (resources/item_type_calibration.json): how the true/false and
fill-in-the-blank estimates of quality/type_estimate.py are fitted on labelled cloze tests
(CELA), and the measured figures a type's calibration ships with.

From per-item reader signals (one JSON line per labelled blank, ids and numbers only: CELA's
text stays outside the repository), `calibration_report` measures each signal's AUC, fits a
logistic calibration out of fold (folds grouped by test, a test's blanks share a text) and
picks the flag cut; `calibration_file` turns that report into the shipped file: a type's
calibration only where its out-of-fold AUC interval excludes 0.5, else the measured reason
it is not estimated. `python -m quizsmith.evaluation.train_estimator` runs both from a
checked-in config; bench/item_types.py collects the signals and writes the report.
"""

from __future__ import annotations

from typing import Any

import numpy as np

#: Bootstrap resamples of whole tests behind every AUC interval.
N_BOOT = 2000


def auc(scores: np.ndarray, labels: np.ndarray, weights: np.ndarray | None = None) -> float:
    from sklearn.metrics import roc_auc_score

    return float(roc_auc_score(labels, scores, sample_weight=weights))


def grouped_interval(
    stat: Any, groups: np.ndarray, *arrays: np.ndarray, n_boot: int = N_BOOT, seed: int = 0
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


def report_cloze(rows: list[dict[str, Any]], n_boot: int = N_BOOT) -> dict[str, Any]:
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
            "auc_ci": grouped_interval(auc, groups, x, one, n_boot=n_boot),
            "auc_weighted": round(auc(x, one, w), 3),
        }
    x = np.array([[r["cloze_key_share"]] for r in rows], dtype=float)
    oof = oof_logistic(x, one, groups, w)
    model = logistic(x, one, w)
    out["oof_auc"] = round(auc(oof, one), 3)
    out["oof_auc_ci"] = grouped_interval(auc, groups, oof, one, n_boot=n_boot)
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


def report_tf(rows: list[dict[str, Any]], n_boot: int = N_BOOT) -> dict[str, Any]:
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
                        "auc_ci": grouped_interval(auc, groups, key_prob, is_true, n_boot=n_boot)},
        "tf_support": {"auc": round(auc(support, is_true), 3),
                       "auc_ci": grouped_interval(auc, groups, support, is_true, n_boot=n_boot)},
    }  # fmt: skip
    fits: dict[str, dict[str, Any]] = {}
    for label, x in (
        ("margin", margin[:, None]),
        ("support", support[:, None]),
        ("margin+support", np.column_stack([margin, support])),
    ):
        oof = oof_logistic(x, is_true, groups)
        model = logistic(x, is_true)
        fits[label] = {
            "oof_auc": round(auc(oof, is_true), 3),
            "oof_auc_ci": grouped_interval(auc, groups, oof, is_true, n_boot=n_boot),
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


def calibration_report(rows: list[dict[str, Any]], n_boot: int = N_BOOT) -> dict[str, Any]:
    """The measured figures of each item type present in `rows` (kind "cloze" or "tf")."""
    cloze = [r for r in rows if r["kind"] == "cloze"]
    tf = [r for r in rows if r["kind"] == "tf"]
    data: dict[str, Any] = {"reader": rows[0]["reader"]}
    if cloze:
        data["cloze"] = report_cloze(cloze, n_boot)
    if tf:
        data["tf"] = report_tf(tf, n_boot)
        cut = (data["tf"]["flag_fifth_wrong"]["chosen"] or {}).get("cut")
        if cut is not None and "rel_F_falsified" in data["tf"]:
            name = data["tf"]["chosen"]
            questionable = [r for r in tf if r["rel"] == "F"]
            p_right = 1 - tf_predict(data["tf"]["fits"][name], name, questionable)
            data["tf"]["rel_F_falsified"]["flagged_share_at_chosen_cut"] = round(
                float((p_right < cut).mean()), 3
            )
    return data


def calibration_file(data: dict[str, Any], provenance: dict[str, Any]) -> dict[str, Any]:
    """resources/item_type_calibration.json: a type's calibration only where its out-of-fold
    AUC interval excludes 0.5; else the measured reason it is not estimated."""
    blob: dict[str, Any] = {"format": 1, "not_shipped": {}}
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
    return blob
