"""`quizsmith refit` replaces the model in use only when the new one measures better (issue 48,
round four).

Before: a refit on random decisions measured a cross-validated AUC of 0.43, worse than chance,
and was saved with "the app and `quizsmith score` use it from now on". The new model's grouped
out-of-fold AUC is now compared, before anything is written, with the model in use: the
shipped model measured on the same decisions, a teacher's earlier refit by the figure saved
with it, else chance (0.5). No better: a clear refusal with both figures, nothing written.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from quizsmith.bank import ItemBank
from quizsmith.cli import main
from quizsmith.domain import Item, Passage, ScoreResult
from quizsmith.errors import QuizsmithError
from quizsmith.evaluation.overall import OverallModel, user_model_path
from quizsmith.evaluation.refit import refit_from_bank
from quizsmith.quality.signals import SIGNALS


def _bank(path: Path, decide: str, *, signals: bool = False, n: int = 40) -> Path:
    """`n` questions over 8 passages with NACo (or the shipped model's signals) scores, decided
    at random ("random"), or by the score ("by score": accept from 0.5 up)."""
    rng = random.Random(7)
    with ItemBank(path) as bank:
        for i in range(n):
            pid = bank.add_passage(Passage(text=f"Passage {i % 8} about rivers."))
            item_id = bank.add_item(
                Item(type="short", stem=f"Which river is number {i}?", key="Nile", passage_id=pid)
            )
            v = rng.random()
            if signals:
                values = {name: v for name in SIGNALS}
                bank.add_score(item_id, ScoreResult(metric="signals", value=v, values=values))
            else:
                naco = ScoreResult(metric="naco", value=v, values={"n": 1, "a": v, "c": 1.0})
                bank.add_score(item_id, naco)
            accept = rng.random() < 0.5 if decide == "random" else v >= 0.5
            bank.review(item_id, "accept" if accept else "reject")
    return path


def test_a_refit_on_random_decisions_is_not_used(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bank = _bank(tmp_path / "random.qbank", "random")
    assert main(["refit", "--bank", str(bank)]) == 2
    err = capsys.readouterr().err
    assert "error: The refitted model measures no better than chance" in err
    assert "the model in use is kept and nothing was saved" in err
    assert "cross-validated AUC on your 40 decisions is 0." in err and "0.50 is chance" in err
    assert "fix: Review more questions" in err and "Traceback" not in err
    assert not user_model_path().exists()


def test_an_earlier_refit_that_measured_better_is_kept(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good = _bank(tmp_path / "good.qbank", "by score")
    assert main(["refit", "--bank", str(good)]) == 0
    out = capsys.readouterr().out
    assert "Refitted the overall score on your decisions (40 items)" in out
    assert "better than chance: AUC 0.50" in out
    saved = user_model_path().read_bytes()
    earlier = OverallModel.load(user_model_path())
    assert earlier.info["refit"]["new_auc"] > 0.5

    bank = _bank(tmp_path / "random.qbank", "random")
    with (
        ItemBank(bank, create=False, read_only=True) as opened,
        pytest.raises(QuizsmithError) as caught,
    ):
        refit_from_bank(opened)
    message = caught.value.message
    assert "no better than the one in use" in message and "your earlier refit" in message
    assert f"{earlier.info['cv']['auc']:.2f}" in message
    assert str(user_model_path()) in caught.value.fix  # how to go back to the shipped model
    assert user_model_path().read_bytes() == saved


def test_the_shipped_model_is_measured_on_the_same_decisions(tmp_path: Path) -> None:
    bank = _bank(tmp_path / "signals.qbank", "random", signals=True)
    with (
        ItemBank(bank, create=False, read_only=True) as opened,
        pytest.raises(QuizsmithError) as caught,
    ):
        refit_from_bank(opened)
    # Both figures measured on these 40 decisions; which of the two is the bar depends on
    # whether the shipped model happens to beat chance on random decisions.
    assert "the shipped model on the same 40 decisions" in caught.value.message
    assert not user_model_path().exists()


def test_a_refit_that_measures_better_is_saved_with_both_figures(tmp_path: Path) -> None:
    bank = _bank(tmp_path / "good.qbank", "by score", n=60)
    with ItemBank(bank, create=False, read_only=True) as opened:
        model = refit_from_bank(opened)
    assert model.path == user_model_path() and user_model_path().exists()
    refit = model.info["refit"]
    assert refit["new_auc"] > refit["compared_auc"] >= 0.5
    assert refit["new_auc"] == pytest.approx(model.info["cv"]["auc"], abs=1e-6)
