"""Correlations with bootstrap intervals, and the group tables of the NACo paper.

- Pearson r, Spearman rho and Kendall tau (tau-b, which handles the many ties of 1-3 ratings)
  with scipy.stats, plus 95% percentile bootstrap intervals: `n_boot` resamples of the
  (metric, human) pairs drawn with replacement by a seeded numpy generator, so the same data
  and seed give the same interval. Resampling is of items, not of passages, so with several
  questions per passage the intervals are somewhat narrower than a cluster bootstrap's.
- A correlation is "undefined" (value None with a reason, never NaN) when fewer than three
  pairs are scored or either side is constant (e.g. naco-squad's labels: every question is
  valid). A bootstrap resample that comes out constant is skipped; with fewer than half of
  them usable, the interval is undefined.
- Group tables: the mean score per question role with a bootstrap interval, and (NACo paper,
  figure 1) for each valid role and each flawed role, the share of groups in which the valid
  question scores higher than the flawed one (ties reported separately, counting as not
  higher).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

N_BOOT = 1000
CONFIDENCE = 0.95
MIN_PAIRS = 3


def _constant(values: np.ndarray) -> bool:
    return bool(np.ptp(values) == 0)


def _rank_rows(matrix: np.ndarray) -> np.ndarray:
    from scipy.stats import rankdata

    return np.asarray(rankdata(matrix, axis=1), dtype=float)


def _pearson_rows(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Pearson r of each row pair (NaN where a row is constant)."""
    xc = x - x.mean(axis=1, keepdims=True)
    yc = y - y.mean(axis=1, keepdims=True)
    num = (xc * yc).sum(axis=1)
    den = np.sqrt((xc * xc).sum(axis=1) * (yc * yc).sum(axis=1))
    with np.errstate(invalid="ignore", divide="ignore"):
        out = num / den
    out[den == 0] = np.nan
    return np.clip(out, -1.0, 1.0)


def _interval(samples: np.ndarray) -> list[float] | None:
    finite = samples[np.isfinite(samples)]
    if finite.size < max(1, samples.size // 2):
        return None
    tail = (1 - CONFIDENCE) / 2 * 100
    low, high = np.percentile(finite, [tail, 100 - tail])
    return [round(float(low), 6), round(float(high), 6)]


def correlations(
    x: npt.ArrayLike, y: npt.ArrayLike, *, n_boot: int = N_BOOT, seed: int = 0
) -> dict[str, Any]:
    """{"n", "pearson", "spearman", "kendall"}; each statistic is {"value", "ci", "p"} or
    {"value": None, "reason": ...}."""
    from scipy import stats

    xs = np.asarray(x, dtype=float)
    ys = np.asarray(y, dtype=float)
    if xs.shape != ys.shape:
        raise ValueError("x and y must have the same length")
    n = int(xs.size)
    out: dict[str, Any] = {"n": n}
    reason = None
    if n < MIN_PAIRS:
        reason = f"undefined: only {n} scored pairs (need {MIN_PAIRS})"
    elif _constant(xs):
        reason = "undefined: the metric gives every item the same score"
    elif _constant(ys):
        reason = "undefined: every item has the same human label"
    if reason:
        for name in ("pearson", "spearman", "kendall"):
            out[name] = {"value": None, "ci": None, "reason": reason}
        return out
    point = {
        "pearson": stats.pearsonr(xs, ys),
        "spearman": stats.spearmanr(xs, ys),
        "kendall": stats.kendalltau(xs, ys),
    }
    boot = bootstrap_correlations(xs, ys, n_boot=n_boot, seed=seed)
    for name, res in point.items():
        value = float(res.statistic)
        pvalue = float(res.pvalue)
        out[name] = {
            "value": round(value, 6) if math.isfinite(value) else None,
            "ci": _interval(boot[name]),
            "p": pvalue if math.isfinite(pvalue) else None,
        }
    return out


def bootstrap_correlations(
    xs: np.ndarray, ys: np.ndarray, *, n_boot: int = N_BOOT, seed: int = 0
) -> dict[str, np.ndarray]:
    """n_boot resampled values of each statistic (NaN for a constant resample)."""
    from scipy import stats

    rng = np.random.default_rng(seed)
    idx = rng.integers(0, xs.size, size=(n_boot, xs.size))
    bx, by = xs[idx], ys[idx]
    pearson = _pearson_rows(bx, by)
    spearman = _pearson_rows(_rank_rows(bx), _rank_rows(by))
    kendall = np.empty(n_boot)
    for i in range(n_boot):
        if _constant(bx[i]) or _constant(by[i]):
            kendall[i] = np.nan
        else:
            kendall[i] = stats.kendalltau(bx[i], by[i]).statistic
    return {"pearson": pearson, "spearman": spearman, "kendall": kendall}


def mean_ci(values: Sequence[float], *, n_boot: int = N_BOOT, seed: int = 0) -> dict[str, Any]:
    """{"n", "mean", "ci"}: the mean with a 95% percentile bootstrap interval."""
    arr = np.asarray(values, dtype=float)
    if arr.size == 0:
        return {"n": 0, "mean": None, "ci": None}
    rng = np.random.default_rng(seed)
    means = arr[rng.integers(0, arr.size, size=(n_boot, arr.size))].mean(axis=1)
    return {"n": int(arr.size), "mean": round(float(arr.mean()), 6), "ci": _interval(means)}


def role_means(
    scores: Sequence[tuple[str, float]], *, n_boot: int = N_BOOT, seed: int = 0
) -> dict[str, dict[str, Any]]:
    """Mean score per role, from (role, score) pairs."""
    by_role: dict[str, list[float]] = defaultdict(list)
    for role, value in scores:
        by_role[role].append(value)
    return {role: mean_ci(vals, n_boot=n_boot, seed=seed) for role, vals in sorted(by_role.items())}


def valid_beats_flawed(
    groups: Mapping[str, Mapping[str, float]],
    valid_roles: Sequence[str],
    flawed_roles: Sequence[str],
    *,
    higher_is_better: bool = True,
) -> dict[str, dict[str, dict[str, Any]]]:
    """{valid role: {flawed role: {"groups", "higher", "ties"}}}: over the groups in which
    both questions were scored, the share in which the valid one scores better (higher, or
    lower for a lower-is-better metric) and the share of ties."""
    table: dict[str, dict[str, dict[str, Any]]] = {}
    for good in valid_roles:
        row: dict[str, dict[str, Any]] = {}
        for bad in flawed_roles:
            pairs = [(g[good], g[bad]) for g in groups.values() if good in g and bad in g]
            if not pairs:
                continue
            better = sum(1 for a, b in pairs if (a > b if higher_is_better else a < b))
            ties = sum(1 for a, b in pairs if a == b)
            row[bad] = {
                "groups": len(pairs),
                "higher": round(better / len(pairs), 6),
                "ties": round(ties / len(pairs), 6),
            }
        if row:
            table[good] = row
    return table
