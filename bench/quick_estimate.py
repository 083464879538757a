"""How far the Overall chip's quick estimate lies from the full one (standard profile).

    .venv/bin/python bench/quick_estimate.py [--passages 200] [--variant-groups 20]

The quick estimate (quality/quick_estimate.py) is the light profile's model on the small
models' signals, shown greyed while the 1.5B reader reads; the full estimate (light + reader
signals) replaces it a few seconds later. On QGEval, out of fold (5 folds grouped by
passage; the blend estimator both profiles ship, fitted on the same 3,000 QGEval and variant
items as bench/standard_reader.py --report): each one's r with acceptance, how far they lie
apart, and how often the full estimate lands on the other side of the item editor's colour
lines (red below 0.4, the low-overall flag; green from 0.6). Then the same for the shipped
files themselves on the same items, in sample (both were fitted on these items, so only the
sizes of the differences mean anything there).

Needs the light signals in the evaluation cache (bench/judgement.py --shard K/N fills it)
and the reader's answers in bench/results/standard-reader.jsonl. Writes
bench/results/quick_estimate.{json,md}.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from common import git_revision, machine, write_results
from judgement import pearson, with_ci
from standard_reader import training_sets

#: The item editor's colour lines for the Overall chip (OverallMetric.chip_level's defaults).
LINES = (0.4, 0.6)


def band(p: np.ndarray) -> np.ndarray:
    """0 red, 1 amber, 2 green."""
    return np.digitize(p, LINES)


def apart(quick: np.ndarray, full: np.ndarray) -> dict[str, Any]:
    gap = np.abs(quick - full)
    return {
        "median_gap": round(float(np.median(gap)), 3),
        "p90_gap": round(float(np.quantile(gap, 0.9)), 3),
        "share_gap_over_0.2": round(float((gap > 0.2).mean()), 3),
        "same_band": round(float((band(quick) == band(full)).mean()), 3),
        "other_side_of_0.4": round(float(((quick < 0.4) != (full < 0.4)).mean()), 3),
        "r_quick_full": round(pearson(quick, full), 3),
        "n": len(gap),
    }


def shipped(scores: list[dict[str, Any]]) -> tuple[np.ndarray, np.ndarray]:
    """The shipped light and standard models' estimates (in sample), without explanations."""
    from quizsmith.quality.features import overall_features
    from quizsmith.quality.overall_model import (
        OverallModel,
        _proba,
        feature_matrix,
        shipped_model_path,
    )

    rows = [overall_features(s) for s in scores]
    out = []
    for profile in ("light", "standard"):
        model = OverallModel.load(shipped_model_path(profile))
        out.append(_proba(model.estimator, feature_matrix(rows, model.features)))
    return out[0], out[1]


def main() -> None:
    from quizsmith.evaluation.overall import grouped_folds, out_of_fold

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--passages", type=int, default=200)
    parser.add_argument("--variant-groups", type=int, default=20)
    parser.add_argument("--cache-dir", default=None)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    sets = training_sets(args)
    base = sets["light + reader signals"]
    qg = np.array([r.record_id.startswith("qgeval") for r in base.records])
    groups = np.array(base.groups)[qg]
    y = base.y[qg].astype(float)
    folds = grouped_folds(base.groups, 5)
    quick = out_of_fold(sets["light signals"], folds, 0, "blend")[qg]
    full = out_of_fold(base, folds, 0, "blend")[qg]
    by_id = {r.record_id: s for r, s in zip(sets["records"], sets["scores"], strict=True)}
    in_sample = shipped([by_id[r.record_id] for r, q in zip(base.records, qg, strict=True) if q])
    data: dict[str, Any] = {
        "machine": machine(),
        "revision": git_revision(),
        "qgeval_items": int(qg.sum()),
        "qgeval_passages": len(set(groups.tolist())),
        "out_of_fold": {
            "quick_r_accept": with_ci(quick, y, groups=groups),
            "full_r_accept": with_ci(full, y, groups=groups),
            "apart": apart(quick, full),
        },
        "shipped_in_sample": {
            "quick_r_accept": round(pearson(in_sample[0], y), 3),
            "full_r_accept": round(pearson(in_sample[1], y), 3),
            "apart": apart(*in_sample),
        },
    }

    def r_cell(v: dict[str, Any]) -> str:
        low, high = v["ci95_by_passage"]
        return f"{v['value']:.3f} [{low:.2f}, {high:.2f}]"

    def row(name: str, r_quick: str, r_full: str, a: dict[str, Any]) -> str:
        return (
            f"| {name} | {r_quick} | {r_full} | {a['median_gap']:.3f} | {a['p90_gap']:.3f} | "
            f"{a['share_gap_over_0.2']:.0%} | {a['same_band']:.0%} | "
            f"{a['other_side_of_0.4']:.0%} | {a['r_quick_full']:.2f} |"
        )

    oof, ins = data["out_of_fold"], data["shipped_in_sample"]
    md = [
        "## The Overall chip's quick estimate against the full one (`bench/quick_estimate.py`)",
        "",
        f"Command: `.venv/bin/python bench/quick_estimate.py --passages {args.passages} "
        f"--variant-groups {args.variant_groups}` at revision {data['revision']}, "
        f"{data['machine']['date']}. QGEval, n {data['qgeval_items']} questions of "
        f"{data['qgeval_passages']} passages; r with acceptance, 95% intervals with passages "
        "resampled. Quick: the light model on the small models' signals; full: light + "
        "1.5B reader signals. Colour lines 0.4 and 0.6 (red, amber, green).",
        "",
        "| estimates | quick: r with acceptance | full: r | median gap | 90th percentile gap "
        "| gap > 0.2 | same colour | other side of 0.4 | r quick-full |",
        "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |",
        row(
            "out of fold (5 folds by passage)",
            r_cell(oof["quick_r_accept"]),
            r_cell(oof["full_r_accept"]),
            oof["apart"],
        ),
        row(
            "shipped files, in sample",
            f"{ins['quick_r_accept']:.3f}",
            f"{ins['full_r_accept']:.3f}",
            ins["apart"],
        ),
        "",
    ]
    text = "\n".join(md)
    write_results("quick_estimate", data, text)
    print(text)


if __name__ == "__main__":
    main()
