"""The editor and the handout check on the real bundled models (one thread each)."""

from __future__ import annotations

from typing import Any

import pytest

from quizsmith.bank.store import ItemBank

from .test_main_window import select_item

pytestmark = pytest.mark.slow


def test_live_naco_rescore_with_the_bundled_model(
    window: Any, qtbot: Any, bank: ItemBank, sample: dict[str, int]
) -> None:
    editor = window.editor
    editor.live_metrics = ["naco", "kda"]  # a teacher who chose them in Settings
    select_item(window, qtbot, sample["warning"])
    before = editor.chips.text("naco")
    editor.stem_edit.setPlainText("Which gas do plants release during photosynthesis?")
    assert editor.chips.text("naco") == "NACo …"
    qtbot.waitUntil(lambda: editor.live_runs == 1 and editor.live_worker is None, timeout=240_000)
    after = editor.chips.text("naco")
    assert after != "NACo …" and after != before
    result = editor.item.scores["naco"]
    # A real verdict: a number in range with the model's reasoning, or a stated reason.
    if result.scored:
        assert 0.0 <= result.value <= 1.0
        assert "answer" in result.evidence
        assert "Model's answer" in editor.evidence.toHtml()
    else:
        assert result.not_scored_reason
    kda = editor.item.scores["kda"]
    assert kda.scored or kda.not_scored_reason
    assert editor.chips.text("kda") != "KDA …"
    assert editor.save()
    assert bank.score_history(sample["warning"], "naco")[-1].created == result.created


def test_handout_check_with_the_bundled_models(
    qtbot: Any, bank: ItemBank, settings: Any, sample: dict[str, int]
) -> None:
    from quizsmith.gui.dialogs import ExamDialog
    from quizsmith.gui.worker import JobRunner

    bank.review(sample["good"], "accept")
    bank.review(sample["warning"], "accept")
    dialog = ExamDialog(bank, settings, JobRunner())
    qtbot.addWidget(dialog)
    dialog.text_edit.setPlainText(
        "Plants make their food by photosynthesis in the chloroplasts, using light, water and "
        "carbon dioxide. They release oxygen."
    )
    worker = dialog.check()
    assert worker is not None
    with qtbot.waitSignal(worker.signals.done, timeout=480_000):
        pass
    assert worker.outcome == "finished"
    report = dialog.report
    assert report.n == 2 and 0.0 <= report.exam <= 1.0
    html = dialog.result_view.toHtml()
    assert "EXAM" in html and "n-EXAM" in html
    assert len(report.failed) == report.n - report.n_correct


def test_explain_runs_one_metric_outside_the_live_set_on_the_saved_item(
    window: Any, qtbot: Any, bank: ItemBank, sample: dict[str, int]
) -> None:
    editor = window.editor
    editor.live_metrics = ["overall"]  # the default: what feeds the headline estimate
    select_item(window, qtbot, sample["warning"])
    offered = editor.explain_metrics()
    assert "kda" in offered and "naco" in offered and "overall" not in offered
    editor._fill_explain_menu()
    titles = [a.text() for a in editor.explain_menu.actions()]
    assert "KDA" in titles and "NACo" in titles
    before = len(bank.score_history(sample["warning"], "kda"))

    # An unsaved edit is saved first: the explanation describes the text in the bank.
    editor.stem_edit.setPlainText("Which gas do plants release during photosynthesis?")
    worker = editor.explain("kda")
    assert worker is not None
    assert editor.explain("naco") is None  # one at a time ...
    assert not editor.explain_button.isEnabled() and not editor.score_all_button.isEnabled()
    qtbot.waitUntil(lambda: editor.full_worker is None, timeout=240_000)
    stored = bank.get_item(sample["warning"])
    assert stored.stem == "Which gas do plants release during photosynthesis?"
    history = bank.score_history(sample["warning"], "kda")
    assert len(history) == before + 1
    assert history[-1].scored and 0.0 <= float(history[-1].value) <= 1.0
    assert editor.chips.text("kda") not in ("KDA …", "KDA –")
    assert "kda" not in editor.stale_metrics()
    assert editor.explain_button.isEnabled() and editor.score_all_button.isEnabled()  # ... then
