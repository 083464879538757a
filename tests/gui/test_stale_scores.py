"""Scores always describe the text they were computed for (issue 19: after a Save during a
re-score, the bank kept the old NACo/KDA values and flags under the new text).

The stand-in metric (conftest.LengthMetric) takes `delay` seconds, so a save or an edit can
land while a score is being computed.
"""

from __future__ import annotations

from typing import Any

import pytest

from quizsmith.bank.store import ItemBank
from quizsmith.gui import jobs
from quizsmith.gui.worker import JobRunner
from quizsmith.operations import jobs as operations_jobs
from quizsmith.operations.scores import STALE_REASON
from quizsmith.settings import Settings

from .conftest import LengthMetric
from .test_main_window import select_item


@pytest.fixture(autouse=True)
def no_model_warm_up(monkeypatch: pytest.MonkeyPatch) -> None:
    """The stand-in metric needs no model: skip the jobs' warm-up of the model libraries
    (a torch import and an embedding model load, a minute on the shared cores), which
    would otherwise decide when the first score starts."""
    monkeypatch.setattr(operations_jobs, "prepare_models", lambda settings: None)


NEW_STEM = "In which part of the plant cell does photosynthesis happen, according to the text?"


def type_stem(editor: Any, text: str) -> None:
    editor.stem_edit.setPlainText(text)


def test_save_during_a_rescore_marks_old_scores_stale_and_stores_the_new_result(
    window: Any, qtbot: Any, bank: ItemBank, sample: dict[str, int], length_metric: Any
) -> None:
    editor = window.editor
    editor.live_metrics = [LengthMetric.name]
    LengthMetric.delay = 1.5
    select_item(window, qtbot, sample["good"])
    assert bank.get_item(sample["good"]).scores["naco"].value == 0.9
    type_stem(editor, NEW_STEM)
    editor.rescore_now()  # the re-score is running ...
    qtbot.waitUntil(lambda: LengthMetric.calls == [NEW_STEM], timeout=60_000)
    assert editor.save()  # ... when the teacher saves

    stored = bank.get_item(sample["good"])
    assert stored.stem == NEW_STEM
    # NACo and KDA were computed for the old wording: not shown as current any more.
    for metric in ("naco", "kda"):
        assert not stored.scores[metric].scored
        assert stored.scores[metric].not_scored_reason == STALE_REASON
    assert not [f for f in stored.flags if f.metric in ("naco", "kda")]
    row = window.passage_items.row_of(sample["good"])
    assert window.passage_items.item_at(row).scores["naco"].value is None
    # The history keeps the old numbers.
    assert [s.value for s in bank.score_history(sample["good"], "naco")] == [0.9, None]

    # The re-score that was running scored exactly the saved text: its result is stored.
    qtbot.waitUntil(lambda: editor.live_worker is None, timeout=60_000)
    qtbot.waitUntil(
        lambda: LengthMetric.name in bank.get_item(sample["good"]).scores, timeout=60_000
    )
    result = bank.get_item(sample["good"]).scores[LengthMetric.name]
    assert result.value == min(1.0, len(NEW_STEM) / 100)
    assert editor.chips.text(LengthMetric.name) == f"LEN {result.value:.2f}"


def test_a_live_result_for_older_text_is_neither_shown_as_current_nor_saved(
    window: Any, qtbot: Any, bank: ItemBank, sample: dict[str, int], length_metric: Any
) -> None:
    editor = window.editor
    editor.live_metrics = [LengthMetric.name]
    LengthMetric.delay = 0.3  # well inside the 0.8 s debounce of the next edit
    select_item(window, qtbot, sample["good"])
    type_stem(editor, "Where is chlorophyll?")
    editor.rescore_now()
    qtbot.waitUntil(lambda: LengthMetric.calls == ["Where is chlorophyll?"], timeout=60_000)
    type_stem(editor, NEW_STEM)  # typed on while the run for the shorter text goes on
    # That run finishes before the new text's own re-score starts.
    qtbot.waitUntil(lambda: editor.live_worker is None, timeout=60_000)
    assert editor.timer.isActive()
    assert LengthMetric.name not in editor.fresh_scores
    assert editor.chips.text(LengthMetric.name) == "LEN …"
    editor.timer.stop()  # Save before the new text's own re-score starts
    assert editor.save()
    stored = bank.get_item(sample["good"])
    assert stored.stem == NEW_STEM
    assert LengthMetric.name not in stored.scores


def test_a_batch_score_is_not_stored_for_an_item_edited_meanwhile(
    window: Any,
    qtbot: Any,
    bank: ItemBank,
    settings: Settings,
    sample: dict[str, int],
    length_metric: Any,
) -> None:
    LengthMetric.delay = 1.5
    runner = JobRunner()
    worker = runner.start(
        jobs.score_and_store_job(bank, [sample["good"]], [LengthMetric.name], settings)
    )
    qtbot.waitUntil(lambda: len(LengthMetric.calls) == 1, timeout=60_000)
    editor = window.editor
    select_item(window, qtbot, sample["good"])
    editor.timer.stop()
    editor.live_metrics = []
    type_stem(editor, NEW_STEM)
    assert editor.save()
    with qtbot.waitSignal(worker.signals.done, timeout=60_000):
        pass
    assert worker.outcome == "finished"
    # The score describes the old wording: not stored under the new one.
    assert LengthMetric.name not in bank.get_item(sample["good"]).scores
    assert runner.wait(5000)


def test_score_all_names_each_metric_and_marks_old_evidence(
    window: Any,
    qtbot: Any,
    bank: ItemBank,
    sample: dict[str, int],
    length_metric: Any,
    monkeypatch: Any,
) -> None:
    from quizsmith.domain import ScoreResult

    monkeypatch.setattr(jobs, "all_metrics", lambda: [LengthMetric.name])
    bank.add_score(sample["good"], ScoreResult(metric=LengthMetric.name, value=0.5))
    editor = window.editor
    editor.live_metrics = []
    select_item(window, qtbot, sample["good"])
    assert "out of date" not in editor.evidence.toPlainText()
    LengthMetric.delay = 1.5
    seen: list[str] = []
    worker = editor.score_all()
    assert worker is not None
    worker.signals.progress.connect(lambda e: seen.append(e.message))
    # While it runs: the metric at work is named, and the evidence it replaces is marked.
    qtbot.waitUntil(lambda: window.progress.label.text().startswith("Running LEN"), timeout=60_000)
    assert window.progress.bar.maximum() == 0  # busy, not "0%"
    assert "out of date" in editor.evidence.toPlainText()
    with qtbot.waitSignal(worker.signals.done, timeout=60_000):
        pass
    qtbot.waitUntil(lambda: "out of date" not in editor.evidence.toPlainText(), timeout=10_000)
    assert seen[0] == "Running LEN (step 1 of 1)…"
    value = min(1.0, len(bank.get_item(sample["good"]).stem) / 100)
    assert bank.get_item(sample["good"]).scores[LengthMetric.name].value == value
    assert f"gui-test-length {value:.2f}" in editor.evidence.toPlainText()


def test_edited_text_marks_the_evidence_out_of_date(
    window: Any, qtbot: Any, sample: dict[str, int], length_metric: Any
) -> None:
    editor = window.editor
    editor.live_metrics = [LengthMetric.name]
    select_item(window, qtbot, sample["good"])
    text = editor.evidence.toPlainText()
    assert "NACo 0.90" in text and "out of date" not in text
    type_stem(editor, NEW_STEM)
    text = editor.evidence.toPlainText()
    assert "Out of date" in text and "(out of date)NACo 0.90" in text.replace("\n", "")
    assert editor.stale_metrics() >= {"naco", "kda"}


def test_a_finished_part_shows_on_the_chip_until_the_score_comes(
    window: Any, qtbot: Any, bank: ItemBank, sample: dict[str, int], length_metric: Any
) -> None:
    """Issue 16: a metric with several slow parts (NACo) says how far it got; the chip shows
    that text, greyed and never as the metric's score, until the whole metric is done (the
    standard profile's overall estimate says its quick estimate this way, issue 26)."""
    editor = window.editor
    editor.live_metrics = [LengthMetric.name]
    LengthMetric.part = "halfway there"
    LengthMetric.delay = 1.5
    select_item(window, qtbot, sample["good"])
    type_stem(editor, NEW_STEM)
    editor.rescore_now()
    chip = editor.chips.labels[LengthMetric.name]
    qtbot.waitUntil(lambda: "… halfway there" in chip.text(), timeout=60_000)
    assert chip.property("level") == "none"
    assert chip.toolTip() == "Scoring the edited item… So far: halfway there."
    qtbot.waitUntil(lambda: "halfway" not in chip.text(), timeout=60_000)
    assert chip.text() == f"LEN {len(NEW_STEM) / 100:.2f}"
    assert not editor._parts
