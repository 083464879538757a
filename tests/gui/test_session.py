"""What survives closing the window and starting again on the same bank file: the layout,
the passage and item that were open, and text that was typed but not saved."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from quizsmith.bank.store import ItemBank
from quizsmith.domain import Passage
from quizsmith.gui import prefs
from quizsmith.gui.item_editor import AUTOSAVE_MS
from quizsmith.settings import Settings

from .conftest import LengthMetric, add_sample
from .test_main_window import select_item


class Sessions:
    """Opens windows on a bank file the way a start of the app does: a fresh ItemBank each
    time, the previous one closed with its window."""

    def __init__(self, qtbot: Any, path: Path, settings: Settings) -> None:
        self.qtbot = qtbot
        self.path = path
        self.settings = settings
        self.bank: ItemBank | None = None
        self.window: Any = None
        self.crashed: list[tuple[Any, ItemBank]] = []

    def start(self) -> Any:
        from quizsmith.gui.main_window import MainWindow

        self.stop()
        self.bank = ItemBank(self.path)
        self.window = MainWindow(self.bank, self.settings)
        self.qtbot.addWidget(self.window)
        self.window.show()
        self.qtbot.waitExposed(self.window)
        return self.window

    def crash(self) -> None:
        """Leave the window and its bank as they are, as a killed process would: nothing
        runs on close. (They are closed at the end of the test.)"""
        assert self.window is not None and self.bank is not None
        self.crashed.append((self.window, self.bank))
        self.window, self.bank = None, None

    def stop(self) -> None:
        if self.window is not None:
            self.window.close()
            self.qtbot.waitUntil(lambda: not self.window.runner.running, timeout=60_000)
            self.window.runner.wait(5000)
            self.window = None
        if self.bank is not None:
            self.bank.close()
            self.bank = None


@pytest.fixture
def sessions(
    qtbot: Any, tmp_path: Path, settings: Settings, length_metric: Any, monkeypatch: Any
) -> Iterator[Sessions]:
    monkeypatch.setenv("QUIZSMITH_DATA_DIR", str(tmp_path / "data"))
    # A fast live metric: a restored draft is re-scored at once, and the bundled models
    # would make that take seconds.
    prefs.set_live_metrics([LengthMetric.name])
    path = tmp_path / "bank.sqlite"
    with ItemBank(path) as bank:
        add_sample(bank)
    s = Sessions(qtbot, path, settings)
    yield s
    s.stop()
    for window, bank in s.crashed:
        window.close()
        window.runner.wait(60_000)
        bank.close()


def test_window_layout_is_restored(sessions: Sessions, qtbot: Any) -> None:
    win = sessions.start()
    default_sizes = win.splitter.sizes()
    win.resize(win.width() + 123, win.height() - 45)
    qtbot.wait(50)
    wide = sum(win.splitter.sizes())
    win.splitter.setSizes([260, wide - 260 - 500, 500])
    win.passage_splitter.setSizes([150, 10_000])
    qtbot.wait(50)
    size = win.size()
    sizes = win.splitter.sizes()
    lower = win.passage_splitter.sizes()
    assert sizes != default_sizes and sizes[0] == 260 and sizes[2] == 500
    sessions.stop()

    win = sessions.start()
    qtbot.wait(50)
    assert win.size() == size
    assert win.splitter.sizes() == sizes
    assert win.passage_splitter.sizes() == lower


def test_the_last_passage_and_item_are_reopened(sessions: Sessions, qtbot: Any) -> None:
    win = sessions.start()
    bank = sessions.bank
    assert bank is not None
    tides = bank.add_passage(Passage(text="Tides are caused by the Moon.", title="Tides"))
    win.reload_passages()
    first = win.passage_panel_id()
    item_id = win.passage_items.item_at(2).id
    select_item(win, qtbot, item_id)
    sessions.stop()

    # The item of the passage shown last time is open again, selected in its table.
    win = sessions.start()
    assert win.passage_panel_id() == first
    assert win.editor.item is not None and win.editor.item.id == item_id
    assert win.passage_proxy.item_at(win.items_view.currentIndex().row()).id == item_id

    win.passage_list.setCurrentIndex(win.passages.index(win.passages.row_of(tides), 0))
    assert win.passage_panel_id() == tides
    sessions.stop()
    win = sessions.start()
    assert win.passage_panel_id() == tides
    assert "Moon" in win.passage_panel.text_edit.toPlainText()
    assert win.passage_list.currentIndex().row() == win.passages.row_of(tides)


def test_a_new_passage_typed_but_never_saved_is_there_after_a_restart(
    sessions: Sessions, qtbot: Any
) -> None:
    win = sessions.start()
    win.new_passage()
    win.passage_panel.title_edit.setText("Volcanoes")
    win.passage_panel.text_edit.setPlainText("Mount Etna is an active volcano in Sicily.")
    sessions.stop()  # before the autosave timer fires: closing stores it

    win = sessions.start()
    assert win.passage_panel.title_edit.text() == "Volcanoes"
    assert win.passage_panel.text_edit.toPlainText() == "Mount Etna is an active volcano in Sicily."
    assert win.passages.rowCount() == 2


def test_unsaved_edits_are_autosaved_and_restored(sessions: Sessions, qtbot: Any) -> None:
    win = sessions.start()
    bank = sessions.bank
    assert bank is not None
    item_id = win.passage_items.item_at(0).id
    stored_stem = bank.get_item(item_id).stem
    select_item(win, qtbot, item_id)
    editor = win.editor
    # Half-way through an edit: no answer yet, so this is not a valid item to save.
    editor.key_edit.setText("")
    editor.stem_edit.setPlainText("Where exactly in the plant cell")
    win.passage_panel.text_edit.appendPlainText("Chlorophyll absorbs red and blue light.")

    # A pause in typing stores both, with the window still open (a crash loses nothing).
    qtbot.waitUntil(lambda: bank.get_draft(item_id) is not None, timeout=AUTOSAVE_MS + 10_000)
    passage_id = win.passage_panel_id()
    qtbot.waitUntil(
        lambda: "red and blue" in bank.get_passage(passage_id).text, timeout=AUTOSAVE_MS + 10_000
    )
    draft = bank.get_draft(item_id)
    assert draft is not None and draft[0]["stem"] == "Where exactly in the plant cell"
    assert "kept as a draft" in editor.header.text()
    # The item itself is as last saved until the teacher saves.
    assert bank.get_item(item_id).stem == stored_stem
    assert win.passage_panel_id() == passage_id  # the autosave kept the passage selected
    assert win.passage_list.currentIndex().row() == win.passages.row_of(passage_id)

    # More typing, then closing before the next autosave: closing keeps it.
    editor.stem_edit.setPlainText("Where exactly in the plant cell does it happen?")
    win.passage_panel.text_edit.appendPlainText("It reflects green light.")
    sessions.stop()

    win = sessions.start()
    editor = win.editor
    assert editor.item is not None and editor.item.id == item_id
    assert editor.stem_edit.toPlainText() == "Where exactly in the plant cell does it happen?"
    assert editor.key_edit.text() == ""
    assert editor.dirty and "unsaved changes" in editor.header.text()
    assert "It reflects green light." in win.passage_panel.text_edit.toPlainText()
    assert not win.passage_panel.is_dirty()

    # Finishing the edit and saving stores the item and forgets the draft.
    editor.key_edit.setText("In the chloroplasts")
    assert editor.save()
    bank = sessions.bank
    assert bank is not None
    assert bank.get_item(item_id).stem == "Where exactly in the plant cell does it happen?"
    assert bank.get_draft(item_id) is None
    sessions.stop()
    win = sessions.start()
    assert not win.editor.dirty


def test_a_valid_edit_is_kept_as_a_draft_on_close_and_a_kept_draft_survives_a_crash(
    sessions: Sessions, qtbot: Any
) -> None:
    win = sessions.start()
    first, second = (win.passage_items.item_at(r).id for r in (0, 1))
    select_item(win, qtbot, first)
    assert sessions.bank is not None
    sessions.bank.review(first, "accept")
    saved = sessions.bank.get_item(first)
    win.editor.stem_edit.setPlainText("Where in the cell do plants make sugar?")
    sessions.stop()
    win = sessions.start()
    bank = sessions.bank
    assert bank is not None
    # Closing wrote the edit into the accepted item once, under its old scores (issue 19):
    # an edit stays a draft until Save.
    stored = bank.get_item(first)
    assert stored.stem == saved.stem and stored.status == "accepted"
    assert stored.scores.keys() == saved.scores.keys()
    draft = bank.get_draft(first)
    assert draft is not None and draft[0]["stem"] == "Where in the cell do plants make sugar?"
    assert win.editor.item is not None and win.editor.item.id == first
    assert win.editor.dirty
    assert win.editor.stem_edit.toPlainText() == "Where in the cell do plants make sugar?"
    win.editor.discard()

    select_item(win, qtbot, second)
    stored = bank.get_item(second)
    win.editor.stem_edit.setPlainText("Which gas do plants give off?")
    qtbot.waitUntil(lambda: bank.get_draft(second) is not None, timeout=AUTOSAVE_MS + 10_000)
    sessions.crash()

    # The draft is back, unsaved, and re-scored by the live metrics: the stored scores
    # describe the saved text.
    win = sessions.start()
    editor = win.editor
    assert editor.item is not None and editor.item.id == second
    assert editor.stem_edit.toPlainText() == "Which gas do plants give off?"
    assert editor.dirty
    qtbot.waitUntil(lambda: editor.live_runs == 1 and editor.live_worker is None, timeout=60_000)
    assert editor.chips.text(LengthMetric.name) == "LEN 0.29"
    # ... and can be thrown away.
    assert editor.discard_button.isEnabled()
    editor.discard_button.click()
    assert not editor.dirty and not editor.discard_button.isEnabled()
    assert editor.stem_edit.toPlainText() == stored.stem
    bank = sessions.bank
    assert bank is not None and bank.get_draft(second) is None
