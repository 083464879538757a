"""The main window on a real bank: layout, models, editing with live scores, decisions."""

from __future__ import annotations

from typing import Any

from quizsmith.bank.store import ItemBank
from quizsmith.domain import Item
from quizsmith.gui.models import ItemTableModel, PassageListModel, SortableItems

from .conftest import LengthMetric


def select_item(window: Any, qtbot: Any, item_id: int) -> None:
    model = window.passage_items
    row = model.row_of(item_id)
    assert row >= 0
    window.items_view.setCurrentIndex(window.passage_proxy.mapFromSource(model.index(row, 0)))
    qtbot.waitUntil(
        lambda: window.editor.item is not None and window.editor.item.id == item_id, timeout=60_000
    )


def test_main_window_opens_on_a_tmp_bank(window: Any, sample: dict[str, int]) -> None:
    assert window.passages.rowCount() == 1
    assert window.passage_panel.passage.id == sample["passage"]
    assert "Photosynthesis is the process" in window.passage_panel.text_edit.toPlainText()
    assert window.passage_items.rowCount() == 4
    assert window.editor.item is None


def test_item_models_pass_the_model_tester(
    qtmodeltester: Any, bank: ItemBank, sample: dict[str, int]
) -> None:
    model = ItemTableModel()
    model.set_items(bank.search(limit=None))
    qtmodeltester.check(model)
    qtmodeltester.check(SortableItems(model))
    passages = PassageListModel()
    passages.set_passages(bank.passages())
    qtmodeltester.check(passages)
    empty = ItemTableModel()
    qtmodeltester.check(empty)


def test_score_chips_follow_the_metric_thresholds(bank: ItemBank, sample: dict[str, int]) -> None:
    from quizsmith.gui.scores import chip_for

    good = bank.get_item(sample["good"])
    bad = bank.get_item(sample["error"])
    assert chip_for(good, "naco").level == "good"
    assert chip_for(good, "kda").level == "good"
    assert chip_for(bad, "naco").level == "bad"
    assert chip_for(bad, "kda").level == "bad"  # 0.1 < weak_below 0.3
    assert chip_for(good, "exam").level == "none"
    warning = bank.get_item(sample["warning"])
    assert chip_for(warning, "naco").level == "ok"


def test_editing_the_stem_rescores_once_after_a_pause(
    window: Any, qtbot: Any, bank: ItemBank, sample: dict[str, int], length_metric: Any
) -> None:
    editor = window.editor
    editor.live_metrics = [LengthMetric.name]
    select_item(window, qtbot, sample["good"])
    assert editor.live_runs == 0
    assert editor.chips.text(LengthMetric.name) == "LEN –"
    stem = editor.stem_edit
    for word in (" Explain", " briefly", " please"):
        stem.moveCursor(stem.textCursor().MoveOperation.End)
        stem.insertPlainText(word)
        qtbot.wait(50)  # typing: well inside the debounce interval
    assert editor.live_runs == 0
    assert editor.chips.text(LengthMetric.name) == "LEN …"
    qtbot.waitUntil(lambda: editor.live_runs == 1 and editor.live_worker is None, timeout=60_000)
    qtbot.wait(editor.timer.interval() + 200)  # nothing else is pending
    assert editor.live_runs == 1
    assert LengthMetric.calls == [stem.toPlainText().strip()]
    expected = min(1.0, len(stem.toPlainText().strip()) / 100)
    assert editor.chips.text(LengthMetric.name) == f"LEN {expected:.2f}"
    assert editor.dirty
    # Saving stores the content and exactly the live score computed for it.
    assert editor.save()
    stored = bank.get_item(sample["good"])
    assert stored.stem.endswith("please")
    assert stored.scores[LengthMetric.name].value == expected
    assert window.passage_items.item_at(window.passage_items.row_of(stored.id)).stem == stored.stem


def test_a_new_edit_cancels_the_stale_run(
    window: Any, qtbot: Any, sample: dict[str, int], length_metric: Any
) -> None:
    LengthMetric.delay = 3.0
    editor = window.editor
    editor.live_metrics = [LengthMetric.name]
    select_item(window, qtbot, sample["warning"])
    editor.stem_edit.setPlainText("Which gas do green plants release into the air?")
    qtbot.waitUntil(lambda: editor.live_worker is not None, timeout=60_000)
    first = editor.live_worker
    qtbot.waitUntil(lambda: len(LengthMetric.calls) == 1, timeout=60_000)  # it is running
    LengthMetric.delay = 0.0
    editor.stem_edit.setPlainText("Which gas do plants release in photosynthesis?")
    qtbot.waitUntil(lambda: first.outcome == "cancelled", timeout=60_000)
    qtbot.waitUntil(lambda: editor.live_runs == 2 and editor.live_worker is None, timeout=60_000)
    assert editor.stale_cancelled >= 1
    value = len("Which gas do plants release in photosynthesis?") / 100
    assert editor.chips.text(LengthMetric.name) == f"LEN {value:.2f}"


def test_accept_and_reject_update_the_bank(
    window: Any, qtbot: Any, bank: ItemBank, sample: dict[str, int]
) -> None:
    editor = window.editor
    select_item(window, qtbot, sample["good"])
    editor.accept_button.click()
    assert bank.get_item(sample["good"]).status == "accepted"
    row = window.passage_items.row_of(sample["good"])
    assert window.passage_items.item_at(row).status == "accepted"

    select_item(window, qtbot, sample["warning"])
    editor.reason_box.setEditText("Two options are correct")
    editor.reject_button.click()
    assert bank.get_item(sample["warning"]).status == "rejected"
    assert bank.reviews(sample["warning"])[-1].reason == "Two options are correct"

    editor.review_button.click()
    assert bank.get_item(sample["warning"]).status == "needs-review"


def test_target_fact_is_highlighted_in_the_passage(
    window: Any, qtbot: Any, sample: dict[str, int]
) -> None:
    select_item(window, qtbot, sample["good"])
    html = window.editor.passage_view.toHtml()
    assert "#ffe58a" in html
    assert "chloroplasts" in html


def test_invalid_edit_is_reported_and_not_scored(
    window: Any, qtbot: Any, sample: dict[str, int], length_metric: Any
) -> None:
    editor = window.editor
    editor.live_metrics = [LengthMetric.name]
    select_item(window, qtbot, sample["good"])
    editor.key_edit.setText("")
    editor.rescore_now()
    assert "answer is empty" in editor.problems.text()
    assert editor.live_runs == 0
    assert not editor.save()


def test_undo_restores_the_stem(window: Any, qtbot: Any, sample: dict[str, int]) -> None:
    editor = window.editor
    select_item(window, qtbot, sample["good"])
    before = editor.stem_edit.toPlainText()
    editor.stem_edit.insertPlainText("X ")
    editor.stem_edit.undo()
    assert editor.stem_edit.toPlainText() == before
    # A newly loaded item does not undo into the previous one.
    select_item(window, qtbot, sample["warning"])
    assert not editor.stem_edit.document().isUndoAvailable()


def test_item_table_updates_after_editor_save(
    window: Any, qtbot: Any, bank: ItemBank, sample: dict[str, int]
) -> None:
    select_item(window, qtbot, sample["alt"])
    window.editor.key_edit.setText("CO2")
    assert window.editor.save()
    item: Item = window.passage_items.item_at(window.passage_items.row_of(sample["alt"]))
    assert item.key == "CO2"
    assert bank.get_item(sample["alt"]).key == "CO2"


def test_a_decision_in_the_review_queue_reaches_the_open_editor(
    window: Any, qtbot: Any, bank: ItemBank, sample: dict[str, int]
) -> None:
    select_item(window, qtbot, sample["error"])
    with qtbot.waitSignal(window.review.refreshed, timeout=60000):
        window.tabs.setCurrentWidget(window.review)
    assert window.review.current_item().id == sample["error"]
    window.review.decide("reject")
    assert bank.get_item(sample["error"]).status == "rejected"
    assert window.editor.item is not None
    # The queue moved on to the next item, which the editor now shows.
    assert window.editor.item.id == sample["warning"]
    row = window.passage_items.row_of(sample["error"])
    assert window.passage_items.item_at(row).status == "rejected"


def test_passage_edits_are_kept_when_switching(
    window: Any, qtbot: Any, bank: ItemBank, sample: dict[str, int]
) -> None:
    window.new_passage()
    window.passage_panel.title_edit.setText("Tides")
    window.passage_panel.text_edit.setPlainText("Tides are caused mainly by the Moon's gravity.")
    window.passage_list.setCurrentIndex(window.passages.index(0, 0))
    assert window.passage_panel.passage.id == sample["passage"]
    assert any(p.title == "Tides" for p in bank.passages())
    assert window.passages.rowCount() == 2


def test_accepting_in_the_editor_removes_the_item_from_the_queue(
    window: Any, qtbot: Any, bank: ItemBank, sample: dict[str, int]
) -> None:
    with qtbot.waitSignal(window.review.refreshed, timeout=60_000):
        window.review.refresh()
    assert sample["warning"] in [i.id for i in window.review.model.items()]
    select_item(window, qtbot, sample["warning"])
    window.editor.accept_button.click()
    assert sample["warning"] not in [i.id for i in window.review.model.items()]


def test_the_candidates_box_starts_on_auto_the_models_own_default(window: Any) -> None:
    panel = window.passage_panel
    assert panel.candidates_box.value() == 0
    assert panel.candidates_box.text() == "Candidates: auto"
    assert panel.candidates() is None  # GenerationRequest.candidates_for picks by profile
    panel.candidates_box.setValue(2)
    assert panel.candidates() == 2
