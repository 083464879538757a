"""Issue 27, the desktop app as a teacher met it (round two): a laptop screen, scores shown
on their own scales, a swapped-in alternative re-scored, deleting, progress within an item,
and the stale texts and teacher's words of the minor list."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QMessageBox

from quizsmith.bank.store import ItemBank
from quizsmith.domain import Flag, Item, Passage, ScoreResult
from quizsmith.gui import messages
from quizsmith.gui.scores import chip_for
from quizsmith.jobs import Progress
from quizsmith.operations.scores import STALE_REASON

from .conftest import LengthMetric, mcq

#: The laptop screen the app must fit (issue 27: the Review queue made the window 1766
#: pixels wide at least), less a title bar and a panel.
SCREEN_W, SCREEN_H = 1366, 768
USABLE_H = SCREEN_H - 60


def pump(qtbot: Any, ms: int = 50) -> None:
    qtbot.wait(ms)
    QApplication.processEvents()


def assert_fits(widget: Any, what: str) -> None:
    for size in (widget.minimumSizeHint(), widget.minimumSize()):
        assert size.width() <= SCREEN_W, f"{what}: at least {size.width()} pixels wide"
        assert size.height() <= USABLE_H, f"{what}: at least {size.height()} pixels high"


def answer(box: QMessageBox, text: str) -> None:
    button = next(b for b in box.buttons() if b.text() == text)
    button.click()


# --- 1. a laptop screen ------------------------------------------------------------------------
def test_every_tab_and_dialog_fits_a_1366_by_768_screen(
    window: Any, qtbot: Any, bank: ItemBank, sample: dict[str, int]
) -> None:
    # Long texts where the old layout grew with them: an alternative, a job's message.
    long_stem = "Which of the following processes " + "really " * 30 + "happens in leaves?"
    item = bank.get_item(sample["alt"])
    item.alternatives.append(mcq(long_stem, "Photosynthesis", ["Osmosis", "Digestion"]))
    bank.update_item(item)
    window.resize(SCREEN_W, SCREEN_H)
    for index in range(window.tabs.count()):
        window.tabs.setCurrentIndex(index)
        widget = window.tabs.widget(index)
        if hasattr(widget, "refreshed"):
            qtbot.waitUntil(lambda w=widget: w.model.rowCount() > 0, timeout=60_000)
        pump(qtbot)
        assert_fits(window, f"the window with the {window.tabs.tabText(index)} tab")
    window.review.select_row(window.review.model.row_of(sample["alt"]))
    window.open_item_id(sample["alt"])
    pump(qtbot)
    assert_fits(window, "the window with an item and its alternatives")
    # A running job with a long step in the status bar.
    row = window.progress.attach(window.runner.start(_endless), "Generating 5 item(s)")
    row._on_progress(Progress("Item 2/5: " + "writing question 3 of 3 about it " * 8, 1, 5))
    pump(qtbot)
    assert_fits(window, "the window with a long job message")
    window.resize(SCREEN_W, SCREEN_H)
    pump(qtbot)
    assert window.width() <= SCREEN_W and window.height() <= SCREEN_H
    # With the editor shown, the question column keeps room to be read (two lines of it).
    window.tabs.setCurrentIndex(0)
    pump(qtbot)
    assert window.items_view.columnWidth(3) >= 150
    window.runner.cancel_all()

    from quizsmith.gui.chart import ChartDialog
    from quizsmith.gui.dialogs import ExamDialog, ExportDialog, SettingsDialog
    from quizsmith.gui.help import HelpDialog

    for make in (
        lambda: ExportDialog(bank, window.runner, window),
        lambda: ExamDialog(bank, window.settings, window.runner, window),
        lambda: SettingsDialog(window.settings, window.runner, window),
        lambda: ChartDialog(bank, window),
        lambda: HelpDialog("scores", window),
    ):
        dialog = make()
        dialog.show()
        pump(qtbot)
        assert_fits(dialog, type(dialog).__name__)
        assert dialog.width() <= SCREEN_W and dialog.height() <= SCREEN_H
        dialog.close()


def _endless(token: Any) -> Any:
    while not token.cancelled:
        yield Progress("Loading the models", 0, 5)
        token.raise_if_cancelled()
        import time

        time.sleep(0.05)
    token.raise_if_cancelled()


# --- 4. colours on each metric's own scale, "does not apply" -----------------------------------
def _mirror(mean: float) -> ScoreResult:
    values = {c: round(mean) for c in ("grammaticality", "relevance")}
    return ScoreResult(metric="mirror", value=(mean - 1) / 4, values={**values, "mean": mean})


def test_each_chip_is_coloured_by_its_own_scale(bank: ItemBank, sample: dict[str, int]) -> None:
    item = bank.get_item(sample["good"])
    # MIRROR 1.4/5 with hint-only flags showed green.
    item.scores["mirror"] = _mirror(1.4)
    item.flags.append(Flag("mirror-low-relevance", "relevance: 1/5", "mirror", "info"))
    chip = chip_for(item, "mirror")
    assert (chip.text, chip.level) == ("1.4/5", "bad")
    item.scores["mirror"] = _mirror(3.0)
    assert chip_for(item, "mirror").level == "ok"
    item.scores["mirror"] = _mirror(4.2)
    item.flags = []
    assert chip_for(item, "mirror").level == "good"
    # NACo: 0 is red; a half-matching answer with hint-only flags is amber, not green.
    item.scores["naco"] = ScoreResult(metric="naco", value=0.45)
    item.flags = [Flag("answer-differs", "The model's answer differs.", "naco", "info")]
    assert chip_for(item, "naco").level == "ok"


def test_a_metric_that_does_not_apply_says_so_never_zero(bank: ItemBank) -> None:
    """NACo turned red 0.00 on a correct true/false item: it compared "4 August 1914" with
    the key "True"."""
    from quizsmith.metrics.naco import NacoMetric

    statement = Item(
        type="tf",
        stem="Britain entered the war on 4 August 1914.",
        key="True",
        options=Item.make_options("True", ["False"]),
        passage=Passage(text="Britain entered the war on 4 August 1914."),
    )
    assert NacoMetric().not_applicable(statement) == (
        "NACo does not apply to true/false items (it judges multiple-choice and short-answer "
        "items)."
    )
    # Also over a 0.00 stored before NACo stopped scoring this type.
    statement.scores["naco"] = ScoreResult(metric="naco", value=0.0)
    chip = chip_for(statement, "naco")
    assert (chip.text, chip.cell, chip.level) == ("does not apply", "n/a", "none")
    assert "does not apply to true/false items" in chip.tooltip
    cloze = Item(type="cloze", stem="Britain entered the war on _____.", key="4 August 1914")
    assert chip_for(cloze, "naco").text == "does not apply"
    assert chip_for(cloze, "kda").text == "does not apply"


def test_a_chip_tooltip_gives_the_number_its_meaning_and_the_reasons(
    bank: ItemBank, sample: dict[str, int]
) -> None:
    item = bank.get_item(sample["warning"])
    tip = chip_for(item, "naco").tooltip
    assert tip.startswith("NACo 0.60: ")  # not "NACO 0.600"
    assert "answerability" in tip  # what the number means
    assert "• warning: The model's answer differs." in tip
    item.scores["kda"] = ScoreResult.not_scored("kda", STALE_REASON)
    chip = chip_for(item, "kda")
    assert (chip.text, chip.cell) == ("out of date", "old") and "edited" in chip.tooltip
    item.scores["exam"] = ScoreResult.not_scored("exam", "The Q/A model is not installed.")
    chip = chip_for(item, "exam")
    assert chip.text == "not scored" and "not installed" in chip.tooltip  # never "n/s"


def test_chips_wrap_instead_of_widening_or_cutting(
    window: Any, qtbot: Any, sample: dict[str, int]
) -> None:
    """Chips were cut ("verall 85'", ": counting") while NACo showed its progress."""
    editor = window.editor
    window.open_item_id(sample["good"])
    editor._pending = ["naco"]
    editor._parts = {"naco": "answered; counting reasoning steps…"}
    editor._refresh()
    pump(qtbot)
    row = editor.chips
    assert row.minimumSizeHint().width() <= editor.width()
    for metric, label in row.labels.items():
        # Each chip gets the room its whole text needs.
        assert label.width() >= label.sizeHint().width(), metric
        assert row.rect().contains(label.geometry()), metric


# --- 2. replace with alternative ---------------------------------------------------------------
def test_replace_with_alternative_marks_old_scores_and_rescores_the_new_wording(
    window: Any, qtbot: Any, bank: ItemBank, sample: dict[str, int], length_metric: Any
) -> None:
    pid = sample["passage"]
    old = mcq(
        "What do green plants take in besides water and light?",
        "Carbon dioxide",
        ["Oxygen", "Nitrogen"],
        alternatives=[mcq("Gas taken in?", "Carbon dioxide", ["Oxygen", "Neon"])],
        passage_id=pid,
    )
    item_id = bank.add_item(old)
    bank.save_score(item_id, ScoreResult(metric="naco", value=0.0), [])
    bank.save_score(item_id, ScoreResult(metric="kda", value=0.59), [])
    window.editor.live_metrics = [LengthMetric.name]
    LengthMetric.delay = 1.0
    queue = window.review
    window.tabs.setCurrentWidget(queue)
    qtbot.waitUntil(lambda: queue.model.row_of(item_id) >= 0, timeout=60_000)
    queue.select_row(queue.model.row_of(item_id))
    queue.replace_current()

    # At once: the old wording's numbers are out of date, not shown as current, and the
    # reasons do not claim that nothing was found.
    shown = queue.model.item_at(queue.model.row_of(item_id))
    assert shown.stem == "Gas taken in?"
    assert chip_for(shown, "naco").text == "out of date"
    assert chip_for(shown, "kda").text == "out of date"
    assert "Scores out of date" in queue.reasons.text()
    assert "No review reasons" not in queue.reasons.text()
    # The new wording is scored with the live metrics and the reasons follow.
    qtbot.waitUntil(lambda: LengthMetric.name in bank.get_item(item_id).scores, timeout=60_000)
    qtbot.waitUntil(lambda: "The question is very short." in queue.reasons.text(), timeout=60_000)
    assert LengthMetric.calls == ["Gas taken in?"]


# --- 5. deleting -------------------------------------------------------------------------------
def test_deleting_items_asks_first_and_removes_them_everywhere(
    window: Any, qtbot: Any, bank: ItemBank, sample: dict[str, int]
) -> None:
    window.open_item_id(sample["warning"])
    assert window.editor.item.id == sample["warning"]
    box = window.delete_items([sample["warning"]])
    assert box is not None and "Delete 1 item" in box.text()
    answer(box, "Cancel")
    pump(qtbot)
    assert bank.get_items([sample["warning"]])  # still there
    box = window.delete_items([sample["warning"]])
    answer(box, "Delete")
    pump(qtbot)
    assert bank.get_items([sample["warning"]]) == []
    assert window.passage_items.row_of(sample["warning"]) < 0
    assert window.review.model.row_of(sample["warning"]) < 0
    # The editor no longer shows it (the queue moved on to the next item).
    assert window.editor.item is None or window.editor.item.id != sample["warning"]

    # Del on the review queue's list deletes its current item (after the question).
    window.tabs.setCurrentWidget(window.review)
    qtbot.waitUntil(lambda: window.review.model.rowCount() == 3, timeout=60_000)
    window.review.select_row(window.review.model.row_of(sample["error"]))
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=10_000)
    window.review.view.setFocus()
    qtbot.waitUntil(window.review.view.hasFocus, timeout=10_000)
    qtbot.keyClick(window.review.view, Qt.Key.Key_Delete)
    box = messages.shown[-1]
    assert "Delete 1 item" in box.text()
    answer(box, "Delete")
    pump(qtbot)
    assert bank.get_items([sample["error"]]) == []
    assert window.review.model.row_of(sample["error"]) < 0


def test_deleting_a_passage_takes_its_items(
    window: Any, qtbot: Any, bank: ItemBank, sample: dict[str, int]
) -> None:
    other = bank.add_passage(Passage(text="Rivers carry water to the sea.", title="Rivers"))
    window.reload_passages(sample["passage"])
    assert window.passage_panel_id() == sample["passage"]
    box = window.delete_passage()
    assert box is not None
    assert box.text().startswith("Delete the passage “Photosynthesis” and the 4 items")
    answer(box, "Delete")
    pump(qtbot)
    assert [p.id for p in bank.passages()] == [other]
    assert bank.search(limit=None) == []
    assert window.passages.rowCount() == 1
    assert window.passage_panel_id() != sample["passage"]
    assert window.passage_items.rowCount() == 0
    # The deleted passage's text is not stored again by the autosave.
    window.autosave_passage()
    assert [p.id for p in bank.passages()] == [other]


# --- 6. progress within an item ----------------------------------------------------------------
def test_the_bar_moves_within_an_item(qtbot: Any) -> None:
    from quizsmith.gui.worker import JobRunner, ProgressPanel

    runner = JobRunner()
    panel = ProgressPanel()
    qtbot.addWidget(panel)
    row = panel.attach(runner.start(_endless), "Generating 2 item(s)")
    row._on_progress(Progress("Item 1/2: writing question 1 of 3", 0, 2))
    assert panel.bar.maximum() == 0  # nothing done yet: busy
    row._on_progress(Progress("Item 1/2: writing question 2 of 3", 0, 2, within=0.25))
    assert panel.bar.maximum() > 0 and panel.bar.value() / panel.bar.maximum() == 0.125
    assert panel.label.text() == "Item 1/2: writing question 2 of 3"
    row._on_progress(Progress("Item 2/2: checking candidate 1 of 3 (Overall)", 1, 2, within=0.5))
    assert panel.bar.value() / panel.bar.maximum() == 0.75
    runner.cancel_all()
    assert runner.wait(10_000)


def test_generation_announces_each_step_of_an_item() -> None:
    """The first item took minutes with only "Reading the passage" on screen."""
    from quizsmith.generation.builder import BuildStep, Built
    from quizsmith.generation.pipeline import _announced, _spread

    def steps() -> Any:
        yield BuildStep("writing question 1 of 2", 0.0)
        yield BuildStep("writing question 2 of 2", 1 / 3)
        yield BuildStep("choosing wrong answers and checking them", 2 / 3)
        return Built()

    events: list[Progress] = []
    gen = _announced(steps(), "Item 1/3 (a question about “1914”)", 0, 3, 0.5)
    while True:
        try:
            events.append(next(gen))
        except StopIteration as stop:
            assert isinstance(stop.value, Built)
            break
    assert [e.message.split(": ", 1)[1] for e in events] == [
        "writing question 1 of 2",
        "writing question 2 of 2",
        "choosing wrong answers and checking them",
    ]
    fractions = [e.fraction or 0.0 for e in events]
    assert fractions == sorted(fractions) and 0 < fractions[-1] < 1 / 3
    scoring = (Progress(f"Item 1/3: checking candidate {n} of 2 (Overall)") for n in (1, 2))
    spread = list(_spread(scoring, 2, 0, 3, 0.5, 0.85))
    assert [round(e.within, 3) for e in spread] == [0.5, 0.675]
    assert all(e.done == 0 and e.total == 3 for e in spread)


# --- 7. stale texts ----------------------------------------------------------------------------
def test_switching_passage_clears_the_last_ones_note_and_item(
    window: Any, qtbot: Any, bank: ItemBank, sample: dict[str, int]
) -> None:
    from quizsmith.gui.jobs import GeneratedBatch

    window.open_item_id(sample["good"])
    window._generated(GeneratedBatch([], None))
    assert window.passage_panel.note.text() == "Generated 0 item(s)."
    other = bank.add_passage(Passage(text="Rivers carry water to the sea.", title="Rivers"))
    window.reload_passages(other)
    assert window.passage_panel_id() == other
    assert window.passage_panel.note.text() == ""
    assert window.editor.item is None  # it belonged to the other passage


def test_undo_back_to_the_saved_text_is_not_an_unsaved_change(
    window: Any, qtbot: Any, sample: dict[str, int], length_metric: Any
) -> None:
    editor = window.editor
    editor.live_metrics = [LengthMetric.name]
    window.open_item_id(sample["good"])
    editor.stem_edit.setFocus()
    saved = editor.stem_edit.toPlainText()
    qtbot.keyClicks(editor.stem_edit, " now")
    assert editor.dirty and "unsaved changes" in editor.header.text()
    for _ in range(len(" now")):
        qtbot.keyClick(editor.stem_edit, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert editor.stem_edit.toPlainText() == saved
    assert not editor.dirty and "unsaved" not in editor.header.text()
    assert not editor.timer.isActive() and editor.stale_metrics() == set()
    qtbot.wait(1200)  # past the debounce: nothing was re-scored
    assert LengthMetric.calls == []


def test_the_out_of_date_note_says_why(bank: ItemBank, sample: dict[str, int]) -> None:
    from quizsmith.gui.evidence import evidence_html

    item = bank.get_item(sample["good"])
    assert "before your edit" in evidence_html(item, {"naco"}, "edited")
    recomputed = evidence_html(item, {"naco"}, "recomputing")
    assert "before your edit" not in recomputed and "computed again" in recomputed


def test_the_reasons_under_the_queue_follow_a_save(
    window: Any, qtbot: Any, bank: ItemBank, sample: dict[str, int]
) -> None:
    queue = window.review
    window.tabs.setCurrentWidget(queue)
    qtbot.waitUntil(lambda: queue.model.rowCount() == 4, timeout=60_000)
    queue.select_row(queue.model.row_of(sample["warning"]))
    assert "answer differs." in queue.reasons.text()
    editor = window.editor
    assert editor.item.id == sample["warning"]
    editor.stem_edit.setPlainText("Which gas do green plants give off in light?")
    assert editor.save()
    # Saved with new wording: NACo's flag went with the old text, and the line says so.
    assert "answer differs." not in queue.reasons.text()
    assert "Scores out of date" in queue.reasons.text()


# --- minor: the editor, the export dialog, help --------------------------------------------------
def test_fill_in_items_hide_distractors_and_take_other_answers(
    window: Any, qtbot: Any, bank: ItemBank, sample: dict[str, int]
) -> None:
    cloze = Item(
        type="cloze",
        stem="Photosynthesis takes place in the _____.",
        key="chloroplasts",
        passage_id=sample["passage"],
    )
    item_id = bank.add_item(cloze)
    editor = window.editor
    window.open_item_id(item_id)
    pump(qtbot)
    assert not editor.distractor_edit.isVisible() and editor.accepted_edit.isVisible()
    editor.accepted_edit.setPlainText("chloroplast\nchloroplasts\n\nplastids")
    assert editor.save()
    assert [a.text for a in bank.get_item(item_id).accepted] == ["chloroplast", "plastids"]
    window.open_item_id(sample["good"])
    pump(qtbot)
    assert editor.distractor_edit.isVisible() and not editor.accepted_edit.isVisible()


def test_the_export_dialog_names_each_format_and_remembers(
    qtbot: Any, bank: ItemBank, sample: dict[str, int], tmp_path: Any
) -> None:
    from quizsmith.gui.dialogs import ExportDialog, available_exporters
    from quizsmith.gui.worker import JobRunner

    names = {name for name, _, _ in available_exporters()}
    if not {"docx", "docx-key", "csv"} <= names:
        pytest.skip("the Word and CSV exporters are not installed")
    bank.review(sample["good"], "accept")
    dialog = ExportDialog(bank, JobRunner())
    qtbot.addWidget(dialog)
    assert not dialog.open_check.isChecked()  # off until asked for
    dialog.format_box.setCurrentIndex(dialog.format_box.findData("docx"))
    dialog.path_edit.setText(str(tmp_path / "week1.docx"))
    dialog.format_box.setCurrentIndex(dialog.format_box.findData("docx-key"))
    assert dialog.path_edit.text() == str(tmp_path / "week1-answer-key.docx")
    dialog.format_box.setCurrentIndex(dialog.format_box.findData("docx"))
    assert dialog.path_edit.text() == str(tmp_path / "week1.docx")
    dialog.format_box.setCurrentIndex(dialog.format_box.findData("csv"))
    assert dialog.path_edit.text() == str(tmp_path / "week1.csv")
    dialog.selection.select("status", "all")
    assert dialog.selection.choice() == ("status", "all")
    worker = dialog.export()
    assert worker is not None
    qtbot.waitUntil(lambda: dialog.last_result is not None, timeout=60_000)

    again = ExportDialog(bank, JobRunner())
    qtbot.addWidget(again)
    assert again.format_box.currentData() == "csv"
    assert again.selection.choice() == ("status", "all")
    assert again.path_edit.text() == str(tmp_path / "quiz.csv")


def test_help_calls_warnings_and_hints_what_the_app_shows(
    window: Any, qtbot: Any, bank: ItemBank, sample: dict[str, int]
) -> None:
    """Help said "not a question", "answer differs" and a low MIRROR criterion move an item
    up the queue; the app showed them as grey hints."""
    from quizsmith.gui.help import FLAG_WORDS, flag_severity, guide_html
    from quizsmith.metrics import registry

    codes = {code for cls in registry.shown_order() for code in cls.flag_codes}
    assert codes <= set(FLAG_WORDS), sorted(codes - set(FLAG_WORDS))
    html = guide_html()
    warnings, hints = html.split("<b>hint</b>", 1)
    warnings = warnings.split("<b>warning</b>", 1)[1]
    for code, words in FLAG_WORDS.items():
        if code.startswith("mirror-low-"):
            continue
        where = hints if flag_severity(code) == "info" else warnings
        assert f"<i>{words}</i>" in where, code
    assert "a low MIRROR rating" in hints
    assert flag_severity("not-a-question") == "info" and flag_severity("low-overall") == "warning"
    # The queue counts what Help calls them.
    queue = window.review
    window.tabs.setCurrentWidget(queue)
    qtbot.waitUntil(lambda: queue.model.rowCount() == 4, timeout=60_000)
    assert "2 with a warning first" in queue.count_label.text()
    assert "1 with hints only" in queue.count_label.text()


def test_the_score_chart_offers_overall(qtbot: Any, bank: ItemBank, sample: dict[str, int]) -> None:
    from quizsmith.gui.chart import ChartDialog

    bank.add_score(sample["good"], ScoreResult(metric="overall", value=0.8))
    dialog = ChartDialog(bank)
    qtbot.addWidget(dialog)
    assert dialog.metric_box.currentData() == "overall"
    assert sum(dialog.counts) == 1


def test_the_tables_speak_plainly(bank: ItemBank, sample: dict[str, int]) -> None:
    from quizsmith.gui.models import ItemTableModel

    model = ItemTableModel()
    model.set_items(bank.get_items([sample["error"], sample["alt"]]))
    assert model.data(model.index(0, 1)) == "choice"  # not "mcq"
    assert model.data(model.index(0, 1), Qt.ItemDataRole.ToolTipRole) == "multiple-choice"
    assert model.data(model.index(0, model.FLAGS_COLUMN)) == "✖1 ⚠1"  # not the codes
    assert model.data(model.index(1, model.FLAGS_COLUMN)) == "ℹ1"
    tip = model.data(model.index(0, model.FLAGS_COLUMN), Qt.ItemDataRole.ToolTipRole)
    assert "Not a question." in tip


def test_the_evidence_heading_shows_the_number_as_the_chip_does() -> None:
    from quizsmith.gui.evidence import metric_html
    from quizsmith.gui.scores import chip_text

    overall = ScoreResult(metric="overall", value=0.912, values={}, evidence={})
    mirror = ScoreResult(metric="mirror", value=1.4, values={}, evidence={})
    assert chip_text("overall", overall) == "91%"
    assert "<h3>Overall (estimated chance raters accept it) 91%</h3>" in metric_html(overall)
    assert "0.91" not in metric_html(overall).split("</h3>")[0]
    assert chip_text("mirror", mirror) in metric_html(mirror).split("</h3>")[0]
