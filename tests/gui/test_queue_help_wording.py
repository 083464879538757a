"""The review queue of undecided items, the Help guide, and the words a teacher meets in the
editor, the bank browser and Settings (issue 19)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence

from quizsmith.bank.store import ItemBank
from quizsmith.domain import ONE_DISTRACTOR_MESSAGE, Item, ScoreResult
from quizsmith.gui import messages
from quizsmith.gui.review_queue import ReviewQueue
from quizsmith.settings import Settings

from .conftest import mcq
from .test_main_window import select_item


def overall(value: float) -> ScoreResult:
    return ScoreResult(metric="overall", value=value)


def test_the_queue_lists_every_undecided_item_warnings_first_then_by_overall(
    qtbot: Any, bank: ItemBank, settings: Settings, sample: dict[str, int]
) -> None:
    bank.add_score(sample["error"], overall(0.7))
    bank.add_score(sample["warning"], overall(0.2))
    bank.add_score(sample["alt"], overall(0.1))  # a hint only: not in the first group
    bank.add_score(sample["good"], overall(0.9))
    plain = mcq("What do plants release?", "Oxygen", ["Salt", "Iron"])
    plain.passage_id = sample["passage"]
    unscored = bank.add_item(plain)  # no flag, no overall: last
    decided = bank.add_item(Item(type="short", stem="Name the green pigment.", key="Chlorophyll"))
    bank.review(decided, "accept")
    needs = bank.add_item(Item(type="short", stem="What is made in the leaves?", key="Sugar"))
    bank.review(needs, "needs-review")
    bank.add_score(needs, overall(0.5))

    queue = ReviewQueue(bank, settings)
    qtbot.addWidget(queue)
    worker = queue.refresh()
    with qtbot.waitSignal(worker.signals.done, timeout=60_000):
        pass
    assert worker.outcome == "finished", messages.shown[-1].text() if messages.shown else ""
    ids = [queue.model.item_at(r).id for r in range(queue.model.rowCount())]
    # "Nothing to review" while unflagged drafts were never shown, before.
    assert ids == [
        sample["warning"],
        sample["error"],
        sample["alt"],
        needs,
        sample["good"],
        unscored,
    ]
    assert "6 items to decide: 2 with a warning first" in queue.count_label.text()

    # A hint is grey, in the reasons and in the flags column.
    queue.select_row(ids.index(sample["alt"]))
    assert "color:#777777'><b>hint</b>: Too easy." in queue.reasons.text()
    assert "Estimated chance raters accept it: 10%" in queue.reasons.text()
    flags_index = queue.model.index(ids.index(sample["alt"]), queue.model.FLAGS_COLUMN)
    assert queue.model.data(flags_index, Qt.ItemDataRole.ForegroundRole) is not None
    warned_index = queue.model.index(0, queue.model.FLAGS_COLUMN)
    assert queue.model.data(warned_index, Qt.ItemDataRole.ForegroundRole) is None
    queue.select_row(ids.index(unscored))
    assert "No review reasons" in queue.reasons.text()
    assert "No overall estimate" in queue.reasons.text()


def menu_shortcuts(window: Any) -> dict[str, str]:
    found = {}
    for menu_action in window.menuBar().actions():
        for action in menu_action.menu().actions():
            key = action.shortcut().toString(QKeySequence.SequenceFormat.PortableText)
            if key:
                found[key] = action.text()
    return found


def test_help_menu_opens_the_guide_and_its_shortcuts_exist(window: Any, qtbot: Any) -> None:
    from quizsmith.gui.help import SHORTCUTS

    titles = [a.text() for a in window.menuBar().actions()]
    assert titles == ["&File", "&Edit", "&Tools", "&Help"]
    shortcuts = menu_shortcuts(window)
    assert shortcuts["F1"] == "Scores and flags explained"
    assert shortcuts["Ctrl+G"] == "Generate items"
    # Every shortcut the guide lists is real (menu, editor button or review queue key).
    for keys, _ in SHORTCUTS:
        for key in keys.split(" / "):
            if key in ("A", "R", "Del", "Ctrl+S", "Ctrl+Z", "Ctrl+Shift+Z"):
                continue  # the lists' keys, the editor's Save button, text fields
            assert key in shortcuts, key
    assert window.editor.save_button.shortcut().toString() == "Ctrl+S"

    qtbot.keyClick(window, Qt.Key.Key_F1)
    dialog = window.help_dialog
    assert dialog is not None and dialog.isVisible()
    text = dialog.browser.toPlainText()
    for words in ("NACo", "KDA", "EXAM", "MIRROR", "MRE", "Overall", "hint", "Getting started"):
        assert words in text
    # Opening it again reuses the one window.
    assert window.open_help("shortcuts") is dialog


def test_generate_has_a_tooltip_and_the_edit_menu_acts_on_the_focused_field(
    window: Any, qtbot: Any
) -> None:
    assert "Ctrl+G" in window.passage_panel.generate_button.toolTip()
    title = window.passage_panel.title_edit
    title.setText("Plants")
    title.setFocus()
    qtbot.waitUntil(title.hasFocus, timeout=5000)
    window._edit_focused("selectAll")
    assert title.selectedText() == "Plants"


def test_the_type_box_shows_names_and_stores_codes(
    window: Any, qtbot: Any, bank: ItemBank, sample: dict[str, int]
) -> None:
    editor = window.editor
    select_item(window, qtbot, sample["good"])
    assert editor.type_box.currentText() == "Multiple choice"
    assert [editor.type_box.itemText(i) for i in range(editor.type_box.count())] == [
        "Multiple choice",
        "True/false",
        "Short answer",
        "Fill in the blank",
    ]
    assert editor.fields()["type"] == "mcq"
    editor.timer.stop()
    editor.type_box.setCurrentIndex(editor.type_box.findData("short"))
    editor.timer.stop()
    assert editor.save()
    assert bank.get_item(sample["good"]).type == "short"


def test_reject_reasons_fit_and_show_in_the_bank(
    window: Any, qtbot: Any, bank: ItemBank, sample: dict[str, int]
) -> None:
    from quizsmith.gui.item_editor import REJECT_REASONS

    editor = window.editor
    assert "Wrong answer key" in REJECT_REASONS
    select_item(window, qtbot, sample["warning"])
    longest = max(REJECT_REASONS, key=len)
    editor.reason_box.setCurrentText(longest)
    qtbot.wait(50)
    # Beside the three buttons the box cut the reasons off ("Not answe…e passage").
    needed = editor.reason_box.fontMetrics().horizontalAdvance(longest)
    assert editor.reason_box.lineEdit().width() >= needed
    editor.reason_box.setCurrentText("Wrong answer key")
    editor.reject_button.click()
    assert bank.reviews(sample["warning"])[-1].reason == "Wrong answer key"

    browser = window.browser
    with qtbot.waitSignal(browser.refreshed, timeout=60_000):
        window.tabs.setCurrentWidget(browser)
    row = next(
        r
        for r in range(browser.model.rowCount())
        if browser.model.item_at(r).id == sample["warning"]
    )
    assert browser.model.data(browser.model.index(row, 2)) == "rejected: Wrong answer key"


def test_settings_speak_the_teachers_language(qtbot: Any) -> None:
    from PySide6.QtWidgets import QLabel

    from quizsmith.gui.dialogs import SettingsDialog
    from quizsmith.gui.worker import JobRunner

    dialog = SettingsDialog(Settings(n_threads=1), JobRunner())
    qtbot.addWidget(dialog)
    labels = [label.text() for label in dialog.findChildren(QLabel)]
    assert "Question answerer (NACo, EXAM)" in labels
    assert "KDA students (several)" in labels
    for internal in ("qa", "solvers (list)", "judges (list)", "kda: two correct share"):
        assert internal not in labels
    assert not [t for t in labels if "_" in t and ":" in t]


def test_a_missing_keyring_is_explained_without_developer_settings(
    qtbot: Any, monkeypatch: Any
) -> None:
    import keyring
    from keyring.backends import fail

    from quizsmith.gui.dialogs import SettingsDialog
    from quizsmith.gui.worker import JobRunner

    previous = keyring.get_keyring()
    keyring.set_keyring(fail.Keyring())
    try:
        dialog = SettingsDialog(Settings(n_threads=1), JobRunner())
        qtbot.addWidget(dialog)
        dialog.ep_name.setText("school-server")
        dialog.ep_key.setText("sk-test-123")
        dialog.store_key()
    finally:
        keyring.set_keyring(previous)
    text = messages.shown[-1].text()
    assert "password store (keyring)" in text and "QUIZSMITH_" in text
    assert "PYTHON_KEYRING_BACKEND" not in text


def test_test_connection_without_a_key_offers_to_store_one(qtbot: Any) -> None:
    from quizsmith.gui.dialogs import SettingsDialog
    from quizsmith.gui.worker import JobRunner

    dialog = SettingsDialog(Settings(n_threads=1), JobRunner())
    qtbot.addWidget(dialog)
    dialog.show()
    dialog._test_failed(
        "No API key for 'school-server'.",
        "Store one with `quizsmith key set school-server` (kept in the system keyring).",
    )
    assert "press Store key" in dialog.test_result.text()
    assert "quizsmith key" not in dialog.test_result.text()


def test_chart_counts_are_whole_numbers(qtbot: Any, bank: ItemBank, sample: dict[str, int]) -> None:
    from quizsmith.gui.chart import ChartDialog

    dialog = ChartDialog(bank)
    qtbot.addWidget(dialog)
    dialog.show()
    axis = dialog.plot.getAxis("left")
    low, high = dialog.plot.viewRange()[1]
    ticks = [v for _, values in axis.tickValues(low, high, 300) for v in values]
    assert ticks and all(float(v).is_integer() for v in ticks)


def test_a_missing_qt_library_is_named_with_its_package(
    monkeypatch: Any, capsys: Any, tmp_path: Path
) -> None:
    from quizsmith.gui import app

    if not sys.platform.startswith("linux"):
        pytest.skip("the X11 libraries are a Linux matter")
    assert app.missing_system_libraries({"QT_QPA_PLATFORM": "offscreen"}) == []
    assert app.missing_system_libraries({"DISPLAY": ":0", "WAYLAND_DISPLAY": "w"}) == []
    missing = app.missing_system_libraries(
        {"DISPLAY": ":0"}, loadable=lambda name: "cursor" not in name
    )
    assert missing == ["libxcb-cursor0"]
    monkeypatch.setenv("DISPLAY", ":0")
    monkeypatch.delenv("QT_QPA_PLATFORM", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    monkeypatch.setattr(app, "_loadable", lambda name: "cursor" not in name)
    assert app.run(tmp_path / "bank.sqlite") == app.MISSING_LIBRARY_EXIT
    err = capsys.readouterr().err
    assert "apt-get install libxcb-cursor0" in err and "Traceback" not in err


def test_a_quiz_keeps_the_order_the_items_were_written(
    window: Any, qtbot: Any, bank: ItemBank, sample: dict[str, int]
) -> None:
    browser = window.browser
    with qtbot.waitSignal(browser.refreshed, timeout=60_000):
        window.tabs.setCurrentWidget(browser)
    browser.view.selectAll()  # the list shows the newest first
    browser.quiz_target.setEditText("Week 1")
    browser.add_quiz_button.click()
    quiz = next(q for q in bank.quizzes() if q.name == "Week 1")
    assert quiz.item_ids == sorted(quiz.item_ids) and len(quiz.item_ids) == 4


def test_an_mcq_with_one_distractor_is_flagged_in_the_editor(
    window: Any, qtbot: Any, sample: dict[str, int]
) -> None:
    editor = window.editor
    select_item(window, qtbot, sample["good"])
    editor.timer.stop()
    editor.distractor_edit.setPlainText("In the nucleus")
    assert editor.draft() is not None  # still scored and saved ...
    # ... with the warning the overall score's one-distractor flag gives (one rule)
    assert editor.problems.text() == f"Warning: {ONE_DISTRACTOR_MESSAGE}"
    editor.distractor_edit.setPlainText("In the nucleus\nIn the vacuole")
    assert editor.draft() is not None and editor.problems.text() == ""
    editor.timer.stop()
