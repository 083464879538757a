"""The default live set is what feeds the headline estimate (issue 26, part 4)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from quizsmith.metrics import registry
from quizsmith.quality import live_set, overall_model


def test_the_shipped_models_read_only_their_own_signals_so_only_overall_is_live() -> None:
    for profile in ("light", "standard"):
        assert live_set.estimate_live_metrics(profile) == ["overall"], profile
    assert not registry.get("naco").live_by_default and not registry.get("kda").live_by_default


def test_the_standard_profile_adds_the_progressive_chips_after_the_estimate() -> None:
    """Issue 45: on the standard profile the editor also re-scores the EXAM-style chip (the
    reader's answer) and KDA; the light profile has no reader, and NACo stays on request."""
    assert live_set.default_live_metrics("light") == ["overall"]
    assert live_set.default_live_metrics("standard") == ["overall", "answerable", "kda"]
    # KDA on multiple-choice items only; the answerable chip does not apply to true/false.
    live = live_set.default_live_metrics("standard")
    assert live_set.live_for_item_type(live, "mcq") == ["overall", "answerable", "kda"]
    assert live_set.live_for_item_type(live, "tf") == ["overall", "answerable"]
    # Generation scores kept items with the estimate's set only (it would pay for KDA).
    from quizsmith.generation.rank import kept_metrics

    assert "kda" not in kept_metrics("mcq", "standard")


def test_a_model_that_reads_kda_brings_kda_back_into_the_live_set(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    model = tmp_path / "overall.joblib"
    model.with_suffix(".json").write_text(
        json.dumps({"used_features": ["sig.key_lp", "kda.disc", "naco.a"]}), encoding="utf-8"
    )
    monkeypatch.setattr(overall_model, "active_model_path", lambda profile=None: model)
    assert live_set.default_live_metrics("light") == ["overall", "naco", "kda"]


def test_an_unreadable_sidecar_leaves_the_declared_live_set(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    model = tmp_path / "overall.joblib"
    model.with_suffix(".json").write_text("{not json", encoding="utf-8")
    monkeypatch.setattr(overall_model, "active_model_path", lambda profile=None: model)
    assert live_set.default_live_metrics("light") == ["overall"]
