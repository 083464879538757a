from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats as sps

from quizsmith.evaluation.stats import (
    correlations,
    mean_ci,
    role_means,
    valid_beats_flawed,
)

# Fixed data with ties on the human side (1-3 ratings), as in QGEval.
METRIC = [0.12, 0.55, 0.31, 0.92, 0.47, 0.66, 0.05, 0.71, 0.38, 0.84, 0.29, 0.6, 0.5, 0.77, 0.2]
HUMAN = [1.0, 2.3333, 2.0, 3.0, 2.0, 2.6667, 1.0, 3.0, 2.0, 3.0, 1.3333, 2.6667, 2.0, 3.0, 1.0]


def test_point_values_match_scipy() -> None:
    out = correlations(METRIC, HUMAN, n_boot=300, seed=1)
    assert out["n"] == len(METRIC)
    assert out["pearson"]["value"] == pytest.approx(sps.pearsonr(METRIC, HUMAN).statistic, abs=1e-6)
    assert out["spearman"]["value"] == pytest.approx(
        sps.spearmanr(METRIC, HUMAN).statistic, abs=1e-6
    )
    assert out["kendall"]["value"] == pytest.approx(
        sps.kendalltau(METRIC, HUMAN).statistic, abs=1e-6
    )
    assert out["pearson"]["p"] == pytest.approx(sps.pearsonr(METRIC, HUMAN).pvalue)


def test_intervals_contain_the_point_and_are_seeded() -> None:
    out = correlations(METRIC, HUMAN, n_boot=500, seed=7)
    for name in ("pearson", "spearman", "kendall"):
        low, high = out[name]["ci"]
        assert -1.0 <= low <= out[name]["value"] <= high <= 1.0
    again = correlations(METRIC, HUMAN, n_boot=500, seed=7)
    assert again == out
    other = correlations(METRIC, HUMAN, n_boot=500, seed=8)
    assert other["pearson"]["ci"] != out["pearson"]["ci"]


def test_bootstrap_pearson_agrees_with_a_plain_loop() -> None:
    # The vectorised resampling must give what resampling by hand gives.
    from quizsmith.evaluation.stats import bootstrap_correlations

    x, y = np.asarray(METRIC), np.asarray(HUMAN)
    boot = bootstrap_correlations(x, y, n_boot=20, seed=3)
    idx = np.random.default_rng(3).integers(0, x.size, size=(20, x.size))
    for i in range(20):
        bx, by = x[idx[i]], y[idx[i]]
        if np.ptp(bx) and np.ptp(by):
            assert boot["pearson"][i] == pytest.approx(sps.pearsonr(bx, by).statistic)
            assert boot["spearman"][i] == pytest.approx(sps.spearmanr(bx, by).statistic)
            assert boot["kendall"][i] == pytest.approx(sps.kendalltau(bx, by).statistic)


@pytest.mark.parametrize(
    ("x", "y", "why"),
    [
        ([0.5] * 6, [1, 2, 3, 1, 2, 3], "same score"),
        ([0.1, 0.2, 0.3, 0.4], [1, 1, 1, 1], "same human label"),
        ([0.1, 0.2], [1, 2], "only 2"),
        ([], [], "only 0"),
    ],
)
def test_constant_or_tiny_inputs_are_undefined_not_nan(x: list, y: list, why: str) -> None:
    out = correlations(x, y)
    for name in ("pearson", "spearman", "kendall"):
        assert out[name]["value"] is None
        assert why in out[name]["reason"]
    assert not any(
        isinstance(v, float) and math.isnan(v)
        for s in out.values()
        if isinstance(s, dict)
        for v in s.values()
    )


def test_mean_ci_and_role_means() -> None:
    m = mean_ci([1.0, 2.0, 3.0, 4.0], n_boot=200, seed=0)
    assert m["mean"] == 2.5 and m["n"] == 4
    assert m["ci"][0] <= 2.5 <= m["ci"][1]
    roles = role_means([("a", 1.0), ("b", 0.0), ("a", 0.5)], n_boot=50)
    assert roles["a"]["mean"] == 0.75 and roles["b"]["n"] == 1
    assert mean_ci([])["mean"] is None


def test_valid_beats_flawed_shares_and_ties() -> None:
    groups = {
        "g1": {"refq": 0.9, "non_q": 0.1, "random_q": 0.9},
        "g2": {"refq": 0.5, "non_q": 0.7, "random_q": 0.2},
        "g3": {"refq": 0.6, "non_q": 0.6},
    }
    table = valid_beats_flawed(groups, ["refq"], ["non_q", "random_q", "1hop_q"])
    assert table["refq"]["non_q"] == {
        "groups": 3,
        "higher": pytest.approx(1 / 3, abs=1e-6),
        "ties": pytest.approx(1 / 3, abs=1e-6),
    }
    assert table["refq"]["random_q"]["higher"] == 0.5
    assert "1hop_q" not in table["refq"]  # no group has both
    lower = valid_beats_flawed(groups, ["refq"], ["random_q"], higher_is_better=False)
    assert lower["refq"]["random_q"]["higher"] == 0.0
