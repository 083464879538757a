"""An opened item's passage is read ahead by the live metrics before the first edit (issue 26:
the first score on an unread passage took 6.0 s on the standard profile, a re-score 1.5 s).

The stand-in metric (conftest.LengthMetric) records what it scored and takes `delay`
seconds, so these tests see whether the read-ahead ran, on what, and whether an edit stops it.
"""

from __future__ import annotations

from typing import Any, ClassVar

import pytest

from quizsmith.bank.store import ItemBank
from quizsmith.domain import Item, ScoreResult
from quizsmith.gui import messages
from quizsmith.metrics import registry
from quizsmith.metrics.base import Metric, MetricContext
from quizsmith.operations import jobs as operations_jobs

from .conftest import LengthMetric
from .test_main_window import select_item


@pytest.fixture(autouse=True)
def no_model_warm_up(monkeypatch: pytest.MonkeyPatch) -> None:
    """The stand-in metrics need no model libraries loaded."""
    monkeypatch.setattr(operations_jobs, "prepare_models", lambda settings: None)


def reading_ahead(window: Any, metric: str) -> Any:
    editor = window.editor
    editor.live_metrics = [metric]
    editor.read_ahead_ms = 50
    return editor


def test_an_opened_item_is_read_ahead_once_and_nothing_is_stored(
    window: Any, qtbot: Any, bank: ItemBank, sample: dict[str, int], length_metric: Any
) -> None:
    editor = reading_ahead(window, LengthMetric.name)
    item = bank.get_item(sample["good"])
    select_item(window, qtbot, sample["good"])
    qtbot.waitUntil(lambda: LengthMetric.calls == [item.stem], timeout=60_000)
    qtbot.waitUntil(lambda: editor.read_ahead_worker is None, timeout=60_000)

    # Thrown away: neither the bank nor the editor shows the read-ahead's result.
    assert LengthMetric.name not in bank.get_item(sample["good"]).scores
    assert LengthMetric.name not in editor.fresh_scores
    assert not editor.dirty
    # Another item of the same passage, and this one again: the passage is read already.
    select_item(window, qtbot, sample["warning"])
    select_item(window, qtbot, sample["good"])
    qtbot.wait(300)
    assert LengthMetric.calls == [item.stem]
    assert editor.read_ahead_worker is None


def test_an_edit_stops_the_read_ahead_and_scores_the_new_text(
    window: Any, qtbot: Any, sample: dict[str, int], length_metric: Any
) -> None:
    editor = reading_ahead(window, LengthMetric.name)
    LengthMetric.delay = 30.0  # a read-ahead far longer than the test
    select_item(window, qtbot, sample["good"])
    qtbot.waitUntil(lambda: len(LengthMetric.calls) == 1, timeout=60_000)
    reading = editor.read_ahead_worker
    assert reading is not None

    LengthMetric.delay = 0.0
    with qtbot.waitSignal(reading.signals.cancelled, timeout=10_000):
        editor.stem_edit.setPlainText("Which pigment do chloroplasts contain?")
        editor.rescore_now()
    qtbot.waitUntil(lambda: LengthMetric.name in editor.fresh_scores, timeout=60_000)
    assert LengthMetric.calls[-1] == "Which pigment do chloroplasts contain?"
    assert editor.read_ahead_worker is None


def test_opening_another_passage_item_cancels_the_read_ahead(
    window: Any, qtbot: Any, sample: dict[str, int], length_metric: Any
) -> None:
    editor = reading_ahead(window, LengthMetric.name)
    LengthMetric.delay = 30.0
    select_item(window, qtbot, sample["good"])
    qtbot.waitUntil(lambda: len(LengthMetric.calls) == 1, timeout=60_000)
    reading = editor.read_ahead_worker
    with qtbot.waitSignal(reading.signals.cancelled, timeout=10_000):
        editor.set_item(None)
    assert editor.read_ahead_worker is None
    assert not editor.read_ahead_timer.isActive()


class BrokenMetric(Metric):
    """A live metric that breaks (a model that is missing only gives "not scored")."""

    name: ClassVar[str] = "gui-test-broken"
    title: ClassVar[str] = "BRK"
    needs_passage: ClassVar[bool] = True

    def compute(self, item: Item, ctx: MetricContext) -> ScoreResult:
        raise RuntimeError("the native library went away")


def test_a_failed_read_ahead_shows_the_teacher_nothing(
    window: Any, qtbot: Any, sample: dict[str, int]
) -> None:
    registry.register(BrokenMetric.name, BrokenMetric)
    try:
        editor = reading_ahead(window, BrokenMetric.name)
        select_item(window, qtbot, sample["good"])
        qtbot.waitUntil(lambda: editor.read_ahead_timer.isActive() is False, timeout=10_000)
        qtbot.waitUntil(lambda: editor.read_ahead_worker is None, timeout=60_000)
        qtbot.wait(200)
        assert messages.shown == []
        # Not remembered as read: the next opening tries again.
        assert editor._read_ahead_key() not in editor._read_ahead_done
    finally:
        registry.metrics._registered.pop(BrokenMetric.name, None)
