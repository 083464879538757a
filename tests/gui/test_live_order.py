"""The order the live metrics run in: the overall chip first when its model needs none of
the other live metrics, last when it reads them (issue 16: cheapest informative first)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from quizsmith.evaluation.features import metrics_read
from quizsmith.evaluation.overall import (
    active_model_path,
    metrics_read_by_active_model,
    user_model_path,
)
from quizsmith.gui.jobs import live_order


def _user_model(used: object) -> Path:
    """A refitted model's files in the (isolated) config folder; only the sidecar is read."""
    target = user_model_path()
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(b"not read by live_order")
    target.with_suffix(".json").write_text(json.dumps({"used_features": used}))
    return target


def test_feature_names_map_to_the_metrics_they_come_from() -> None:
    assert metrics_read(["naco.a", "kda.disc", "sig.key_lp", "ref.bleu4", "exam"]) == {
        "naco",
        "kda",
        "signals",
        "mre",
        "exam",
    }
    # An unknown prefix names itself: never mistaken for a free feature.
    assert metrics_read(["novel.x"]) == {"novel"}


def test_shipped_model_reads_only_signals_so_overall_runs_first() -> None:
    assert active_model_path().name == "overall_model.joblib"
    assert metrics_read_by_active_model() == {"signals"}
    assert live_order(["naco", "kda", "overall"]) == ["overall", "naco", "kda"]


def test_a_model_that_reads_naco_makes_overall_wait_for_it() -> None:
    written = _user_model(["naco.a", "sig.key_lp"])
    assert active_model_path() == written
    assert live_order(["overall", "naco", "kda"]) == ["naco", "kda", "overall"]
    # ... but not for metrics it does not read and that are not live.
    assert live_order(["kda", "overall"]) == ["overall", "kda"]


@pytest.mark.parametrize("used", ["naco", [1, 2], None])
def test_an_unreadable_sidecar_puts_overall_last(used: object) -> None:
    _user_model(used)
    assert metrics_read_by_active_model() is None
    assert live_order(["overall", "kda", "kda"]) == ["kda", "overall"]


def test_without_overall_the_order_is_kept() -> None:
    assert live_order(["kda", "naco", "kda"]) == ["kda", "naco"]


def test_the_answerable_chip_runs_right_after_the_estimate_it_reads() -> None:
    """Issue 45: it shows the reader's answer the estimate read, so it comes with the
    estimate, before the slower chips; and after it where the estimate waits for them."""
    assert live_order(["kda", "answerable", "overall"]) == ["overall", "answerable", "kda"]
    _user_model(["naco.a", "sig.key_lp"])
    assert live_order(["overall", "answerable", "naco"]) == ["naco", "overall", "answerable"]
