"""Closing during a job, exporting over an existing file, and what the progress bar and the
notes tell the teacher (issue 19)."""

from __future__ import annotations

import time
from collections.abc import Generator
from pathlib import Path
from typing import Any

import pytest

from quizsmith.bank.store import ItemBank
from quizsmith.gui import messages
from quizsmith.gui.worker import JobRunner, ProgressPanel
from quizsmith.jobs import CancelToken, Progress


def busy_model_job(seconds: float) -> Any:
    """Like a model call: it looks at the cancel token only between steps, not during one."""

    def job(token: CancelToken) -> Generator[Progress, None, str]:
        yield Progress("Loading the models", 0, 2)
        time.sleep(seconds)  # one long native call
        token.raise_if_cancelled()
        yield Progress("Step two", 1, 2)
        return "done"

    return job


def test_closing_during_a_job_closes_at_once_and_cancels_it(
    window: Any, qtbot: Any, bank: ItemBank
) -> None:
    worker = window.runner.start(busy_model_job(3.0))
    window.progress.attach(worker, "Working")
    qtbot.waitUntil(lambda: worker.started, timeout=10_000)
    started = time.perf_counter()
    window.close()
    elapsed = time.perf_counter() - started
    # The window froze 10-14 s before ("Not Responding"): closing waited for the job.
    assert elapsed < 1.0
    assert not window.isVisible()
    qtbot.waitUntil(lambda: worker.outcome != "pending", timeout=60_000)
    assert worker.outcome == "cancelled"
    assert bank.integrity_problems() == []


def test_closing_keeps_the_unsaved_edit_as_a_draft(
    window: Any, qtbot: Any, bank: ItemBank, sample: dict[str, int]
) -> None:
    from .test_main_window import select_item

    bank.review(sample["good"], "accept")
    before = bank.get_item(sample["good"])
    select_item(window, qtbot, sample["good"])
    window.editor.timer.stop()
    window.editor.stem_edit.setPlainText("Where do plants keep their chlorophyll?")
    window.close()
    after = bank.get_item(sample["good"])
    assert (after.stem, after.status) == (before.stem, "accepted")
    draft = bank.get_draft(sample["good"])
    assert draft is not None and draft[0]["stem"] == "Where do plants keep their chlorophyll?"


def test_switching_items_keeps_a_valid_edit_as_a_draft(
    window: Any, qtbot: Any, bank: ItemBank, sample: dict[str, int]
) -> None:
    from .test_main_window import select_item

    select_item(window, qtbot, sample["good"])
    window.editor.timer.stop()
    window.editor.stem_edit.setPlainText("Where do plants keep their chlorophyll?")
    select_item(window, qtbot, sample["warning"])
    assert bank.get_item(sample["good"]).stem.startswith("Where in the plant cell")
    assert bank.get_draft(sample["good"]) is not None
    select_item(window, qtbot, sample["good"])
    assert window.editor.dirty
    assert window.editor.stem_edit.toPlainText() == "Where do plants keep their chlorophyll?"


def export_dialog(qtbot: Any, bank: ItemBank, fmt: str) -> Any:
    from quizsmith.gui.dialogs import ExportDialog, available_exporters

    if not any(name == fmt for name, _, _ in available_exporters()):
        pytest.skip(f"the {fmt} exporter is not installed")
    dialog = ExportDialog(bank, JobRunner())
    qtbot.addWidget(dialog)
    dialog.format_box.setCurrentIndex(dialog.format_box.findData(fmt))
    dialog.open_check.setChecked(False)
    return dialog


def test_export_asks_before_replacing_a_file(
    qtbot: Any, bank: ItemBank, sample: dict[str, int], tmp_path: Path
) -> None:
    bank.review(sample["good"], "accept")
    out = tmp_path / "x.csv"
    out.write_text("the student sheet\n", encoding="utf-8")
    dialog = export_dialog(qtbot, bank, "csv")
    dialog.path_edit.setText(str(out))

    # Cancel: the file is left alone and nothing runs.
    assert dialog.export() is None
    box = dialog.overwrite_box
    assert box is not None and box.isVisible()
    assert "x.csv already exists" in box.text()
    box.button(box.StandardButton.Cancel).click()
    qtbot.wait(200)
    assert out.read_text(encoding="utf-8") == "the student sheet\n"
    assert not dialog.runner.running

    # Replace: the export runs and overwrites it.
    assert dialog.export() is None
    box = dialog.overwrite_box
    assert box is not None
    replace = next(b for b in box.buttons() if b.text() == "Replace")
    replace.click()
    qtbot.waitUntil(lambda: dialog.last_result is not None, timeout=60_000)
    assert "Where in the plant cell" in out.read_text(encoding="utf-8")


@pytest.mark.parametrize("opener", [None, ["false"]], ids=["no xdg-open", "xdg-open fails"])
def test_open_when_done_says_when_nothing_can_open_the_file(
    qtbot: Any,
    bank: ItemBank,
    sample: dict[str, int],
    tmp_path: Path,
    monkeypatch: Any,
    opener: list[str] | None,
) -> None:
    # No opener at all, or one that exits with an error (xdg-open's 3: no program for the
    # type); `false` is a real program that does just that.
    monkeypatch.setattr("quizsmith.gui.export_dialog.USES_XDG_OPEN", True)
    monkeypatch.setattr("quizsmith.gui.export_dialog.opener_command", lambda: opener)
    bank.review(sample["good"], "accept")
    dialog = export_dialog(qtbot, bank, "csv")
    dialog.open_check.setChecked(True)
    dialog.path_edit.setText(str(tmp_path / "y.csv"))
    worker = dialog.export()
    assert worker is not None
    qtbot.waitUntil(lambda: dialog.last_result is not None, timeout=60_000)
    qtbot.waitUntil(lambda: "no program to open .csv files" in dialog.status.text(), timeout=30_000)
    assert messages.shown and "no program to open" in messages.shown[-1].text()
    assert (tmp_path / "y.csv").is_file()


def test_the_bar_is_busy_until_a_first_step_is_done_and_time_ticks(qtbot: Any) -> None:
    runner = JobRunner()
    panel = ProgressPanel()
    qtbot.addWidget(panel)
    worker = runner.start(busy_model_job(2.5))
    panel.attach(worker, "Generating 2 item(s)")
    qtbot.waitUntil(lambda: panel.label.text() == "Loading the models", timeout=10_000)
    # 0 of 2 done: a moving (busy) bar, not one standing at 0% for minutes.
    assert panel.bar.maximum() == 0
    qtbot.waitUntil(lambda: panel.elapsed.text().endswith(" s"), timeout=5_000)
    qtbot.waitUntil(lambda: panel.label.text() == "Step two", timeout=30_000)
    assert panel.bar.value() / panel.bar.maximum() == 0.5  # 1 of 2
    qtbot.waitUntil(lambda: worker.outcome == "finished", timeout=30_000)
    assert runner.wait(5000)


def test_every_running_job_has_its_own_row_and_cancel(qtbot: Any) -> None:
    """Issue 17: with two jobs the panel followed only the last, and its Cancel stopped that
    one while the first ran on unseen."""
    runner = JobRunner()
    panel = ProgressPanel()
    qtbot.addWidget(panel)
    panel.show()
    first = runner.start(busy_model_job(1.0))
    second = runner.start(busy_model_job(1.0))
    panel.attach(first, "Generating 3 item(s)")
    panel.attach(second, "Scoring 5 item(s)")
    assert [row.worker for row in panel.rows] == [first, second]
    assert panel.isVisible()
    # Cancel the first one's row: only that job stops; the second's row stays and finishes.
    panel.rows[0].cancel_button.click()
    assert panel.rows[0].label.text() == "Cancelling…"
    qtbot.waitUntil(lambda: first.outcome == "cancelled", timeout=30_000)
    qtbot.waitUntil(lambda: len(panel.rows) == 1, timeout=10_000)
    assert panel.worker is second and second.outcome == "pending"
    qtbot.waitUntil(lambda: second.outcome == "finished", timeout=30_000)
    qtbot.waitUntil(lambda: not panel.rows, timeout=10_000)
    assert not panel.isVisible()
    assert runner.wait(5000)


def test_cancelled_generation_says_how_many_items_were_kept(window: Any) -> None:
    from quizsmith.gui.jobs import GeneratedBatch

    item = window.passage_items.item_at(0)
    window._generated(GeneratedBatch([item], None, cancelled=True))
    assert window.passage_panel.note.text() == "Cancelled, 1 item kept."
    window._generated(GeneratedBatch([item, item], None))
    assert window.passage_panel.note.text() == "Generated 2 item(s)."
    window.generated_kept = 0
    window._generation_cancelled()
    assert window.passage_panel.note.text() == "Cancelled; no item was finished."
