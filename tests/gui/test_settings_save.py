"""Settings -> Save with items listed crashed the app (segfault in libQt6Core, issue 19).

The settings-saved handler announced a new layout of every item model (`layoutChanged`)
without `layoutAboutToBeChanged`. A QSortFilterProxyModel then frees its row mappings
without updating its persistent indexes (the view's current row and selection), and the
next use of them reads freed memory. Without the fix this test crashes the interpreter.
"""

from __future__ import annotations

from typing import Any

from quizsmith import settings as settings_mod
from quizsmith.gui.dialogs import SettingsDialog
from quizsmith.gui.models import ItemTableModel

from .test_main_window import select_item


def test_settings_save_with_items_selected_does_not_crash(
    window: Any, qtbot: Any, sample: dict[str, int]
) -> None:
    # Items selected and current in the sorted tables, as a teacher has them.
    window.items_view.sortByColumn(0, window.items_view.horizontalHeader().sortIndicatorOrder())
    select_item(window, qtbot, sample["warning"])
    window.items_view.selectAll()
    with qtbot.waitSignal(window.browser.refreshed, timeout=60_000):
        window.tabs.setCurrentWidget(window.browser)
    window.browser.view.selectAll()
    window.browser.view.setCurrentIndex(window.browser.proxy.index(1, 0))

    for _ in range(3):  # the teacher saw it 3 times out of 3
        for view in (window.items_view, window.browser.view):
            view.selectAll()
        dialog = SettingsDialog(window.settings, window.runner, window)
        dialog.saved.connect(window._settings_saved)
        dialog.threshold_spins[("kda", "weak_below")].setValue(0.9)
        dialog.save()
        qtbot.wait(50)
        # What the views do next with their current rows and selections.
        for view, proxy in (
            (window.items_view, window.passage_proxy),
            (window.browser.view, window.browser.proxy),
        ):
            rows = sorted({i.row() for i in view.selectionModel().selectedRows()})
            assert rows == list(range(proxy.rowCount()))
            current = view.currentIndex()
            assert current.isValid() and current.model() is proxy
            view.selectRow((current.row() + 1) % proxy.rowCount())
            view.sortByColumn(5, view.horizontalHeader().sortIndicatorOrder())
        window.repaint()
        qtbot.wait(50)

    # The new threshold is in force: KDA 0.85 is below 0.9, so no longer "good".
    assert settings_mod.load().metrics["kda"]["weak_below"] == 0.9
    model = window.passage_items
    row = model.row_of(sample["good"])
    kda_column = ItemTableModel.COLUMNS.index("KDA")
    assert model.data(model.index(row, kda_column)) == "0.85"
    assert window.editor.settings.metrics["kda"]["weak_below"] == 0.9
    from quizsmith.gui.scores import chip_for

    assert chip_for(model.item_at(row), "kda", model.settings).level == "bad"


def test_refresh_all_passes_the_model_tester(qtmodeltester: Any, window: Any) -> None:
    model = window.passage_items
    qtmodeltester.check(model)
    model.refresh_all()
    qtmodeltester.check(window.passage_proxy)
