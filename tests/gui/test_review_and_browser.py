"""The review queue (worst first, one-key decisions, alternatives) and the bank browser."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt

from quizsmith.bank.store import ItemBank
from quizsmith.gui.browser import BankBrowser
from quizsmith.gui.review_queue import ReviewQueue
from quizsmith.gui.scores import worst_first
from quizsmith.settings import Settings


def queue_ids(queue: ReviewQueue) -> list[int]:
    return [int(i.id or 0) for i in queue.model.items()]


def refresh(qtbot: Any, widget: Any) -> None:
    """Refresh a list (the query runs in a worker) and wait until it shows the result."""
    with qtbot.waitSignal(widget.refreshed, timeout=60000):
        widget.refresh()


def changing(qtbot: Any, browser: BankBrowser) -> Any:
    return qtbot.waitSignal(browser.refreshed, timeout=60000)


def test_review_queue_orders_worst_first(
    qtbot: Any, bank: ItemBank, settings: Settings, sample: dict[str, int]
) -> None:
    queue = ReviewQueue(bank, settings)
    qtbot.addWidget(queue)
    refresh(qtbot, queue)
    # Every undecided item is listed, unflagged ones too (issue 19); warnings first (an
    # error before a warning when neither has an overall); a hint alone does not count.
    assert queue_ids(queue) == [sample["error"], sample["warning"], sample["alt"], sample["good"]]
    assert queue.current_item().id == sample["error"]
    assert "Not a question." in queue.reasons.text()


def test_worst_first_breaks_ties_by_low_scores(bank: ItemBank, sample: dict[str, int]) -> None:
    items = bank.search(limit=None)
    ranked = [i.id for i in worst_first(items)]
    assert ranked[0] == sample["error"]
    assert ranked[-1] == sample["good"]


def test_one_key_accept_and_reject(
    qtbot: Any, bank: ItemBank, settings: Settings, sample: dict[str, int]
) -> None:
    queue = ReviewQueue(bank, settings)
    qtbot.addWidget(queue)
    queue.show()
    refresh(qtbot, queue)
    queue.view.setFocus()
    qtbot.waitUntil(queue.view.hasFocus, timeout=60_000)
    qtbot.keyClick(queue.view, Qt.Key.Key_R)
    assert bank.get_item(sample["error"]).status == "rejected"
    # The worst flag is the recorded reason.
    assert bank.reviews(sample["error"])[-1].reason == "Not a question."
    assert queue.current_item().id == sample["warning"]
    qtbot.keyClick(queue.view, Qt.Key.Key_A)
    assert bank.get_item(sample["warning"]).status == "accepted"
    assert queue_ids(queue) == [sample["alt"], sample["good"]]


def test_replace_with_alternative(
    qtbot: Any, bank: ItemBank, settings: Settings, sample: dict[str, int]
) -> None:
    queue = ReviewQueue(bank, settings)
    qtbot.addWidget(queue)
    refresh(qtbot, queue)
    queue.select_row(queue.model.row_of(sample["alt"]))
    assert queue.replace_button.isEnabled()
    queue.replace_current()
    stored = bank.get_item(sample["alt"])
    assert stored.stem == "Which gas do plants absorb?"
    assert stored.distractors == ["Oxygen", "Neon"]
    # The replaced wording is kept as an alternative, so the swap can be undone.
    assert [a.stem for a in stored.alternatives] == ["What do plants take in besides water?"]
    assert stored.passage_id == sample["passage"]


def test_search_and_filters_narrow_the_browser(
    qtbot: Any, bank: ItemBank, settings: Settings, sample: dict[str, int]
) -> None:
    browser = BankBrowser(bank, settings)
    qtbot.addWidget(browser)
    browser.reload_choices()
    refresh(qtbot, browser)
    assert browser.proxy.rowCount() == 4
    # Full-text search covers passages too, so a word of one stem only narrows to one item.
    browser.search_edit.setText("besides")
    qtbot.waitUntil(lambda: browser.proxy.rowCount() == 1, timeout=60_000)
    assert browser.proxy.item_at(0).id == sample["alt"]
    browser.search_edit.setText("")
    qtbot.waitUntil(lambda: browser.proxy.rowCount() == 4, timeout=60_000)
    with changing(qtbot, browser):
        browser.flag_box.setCurrentIndex(browser.flag_box.findData(True))
    # "alt" carries only a hint (severity info): shown, but not "flagged".
    assert {browser.proxy.item_at(r).id for r in range(browser.proxy.rowCount())} == {
        sample["error"],
        sample["warning"],
    }
    with changing(qtbot, browser):
        browser.flag_box.setCurrentIndex(0)
    bank.review(sample["good"], "accept")
    with changing(qtbot, browser):
        browser.status_box.setCurrentIndex(browser.status_box.findData("accepted"))
    assert browser.proxy.rowCount() == 1
    with changing(qtbot, browser):
        browser.status_box.setCurrentIndex(0)
    with changing(qtbot, browser):
        browser.subject_box.setCurrentIndex(browser.subject_box.findData("Biology"))
    assert browser.proxy.rowCount() == 4


def test_browser_sorts_by_score_and_bulk_actions(
    qtbot: Any, bank: ItemBank, settings: Settings, sample: dict[str, int]
) -> None:
    browser = BankBrowser(bank, settings)
    qtbot.addWidget(browser)
    refresh(qtbot, browser)
    naco_col = browser.model.COLUMNS.index("NACo")
    browser.view.sortByColumn(naco_col, Qt.SortOrder.DescendingOrder)
    assert browser.proxy.item_at(0).id == sample["good"]
    browser.select_ids([sample["good"], sample["alt"]])
    assert sorted(browser.selected_ids()) == sorted([sample["good"], sample["alt"]])
    quiz_id = browser.add_to_quiz("Week 1", browser.selected_ids())
    assert quiz_id is not None
    assert sorted(bank.get_quiz(quiz_id).item_ids) == sorted([sample["good"], sample["alt"]])
    with changing(qtbot, browser):
        browser.show_quiz(quiz_id)
    assert browser.proxy.rowCount() == 2
    browser.select_ids([sample["good"], sample["alt"]])
    with changing(qtbot, browser):
        browser.set_status(browser.selected_ids(), "accepted")
    assert bank.status_counts()["accepted"] == 2
    assert sorted(browser.selected_ids()) == sorted([sample["good"], sample["alt"]])


def test_the_accept_estimate_ranks_items_with_equal_flags(
    bank: ItemBank, sample: dict[str, int]
) -> None:
    items = [bank.get_item(sample["good"]), bank.get_item(sample["alt"])]
    for item in items:
        item.flags = []
    # Without estimates the unscored item sorts after the well-scored one...
    assert [i.id for i in worst_first(items)] == [sample["good"], sample["alt"]]
    # ...with them, the item a teacher is less likely to accept comes first.
    estimates = {sample["good"]: 0.2, sample["alt"]: 0.9}
    assert [i.id for i in worst_first(items, estimates)] == [sample["good"], sample["alt"]]
    estimates = {sample["good"]: 0.9, sample["alt"]: 0.2}
    assert [i.id for i in worst_first(items, estimates)] == [sample["alt"], sample["good"]]


def test_review_reasons_show_messages_as_written(
    qtbot: Any, bank: ItemBank, settings: Settings, sample: dict[str, int]
) -> None:
    from quizsmith.domain import Flag

    # A "<" in a message once started an HTML tag and swallowed the rest of the line.
    bank.set_flags(
        sample["error"],
        [Flag("kda-weak", "Weak: the fact does not help (KDA_cont 0.29 < 0.30).", "kda")],
        "kda",
    )
    queue = ReviewQueue(bank, settings)
    qtbot.addWidget(queue)
    refresh(qtbot, queue)
    assert queue.current_item().id == sample["error"]
    assert "(KDA_cont 0.29 &lt; 0.30)." in queue.reasons.text()
    assert queue.alt_box.placeholderText()  # says why the box is empty


def _decide(bank: ItemBank, count: int) -> None:
    """`count` items with NACo scores, accepted when NACo is at least 0.5: decisions the
    scores predict, since a refit that measures no better than chance is not used."""
    from quizsmith.domain import Item, Passage, ScoreResult

    for i in range(count):
        pid = bank.add_passage(Passage(text=f"Passage {i % 8} about rivers."))
        item_id = bank.add_item(
            Item(type="short", stem=f"Which river is number {i}?", key="Nile", passage_id=pid)
        )
        v = (i * 37 % 100) / 100
        bank.add_score(
            item_id, ScoreResult(metric="naco", value=v, values={"n": 1, "a": v, "c": 1.0})
        )
        bank.review(item_id, "accept" if v >= 0.5 else "reject")


def test_learn_my_standard_refits_the_overall_score(
    window: Any, qtbot: Any, bank: ItemBank
) -> None:
    from quizsmith.evaluation.overall import OverallModel, user_model_path
    from quizsmith.gui import messages

    _decide(bank, 8)
    worker = window.refit_overall()
    with qtbot.waitSignal(worker.signals.failed, timeout=60_000):
        pass
    qtbot.waitUntil(lambda: bool(messages.shown), timeout=10_000)
    assert "Not enough decisions" in messages.shown[-1].text()
    assert not user_model_path().exists()

    _decide(bank, 32)
    worker = window.refit_overall()
    with qtbot.waitSignal(worker.signals.finished, timeout=60_000):
        pass
    qtbot.waitUntil(
        lambda: "now follows your decisions" in messages.shown[-1].text(), timeout=10_000
    )
    assert OverallModel.load().path == user_model_path()
