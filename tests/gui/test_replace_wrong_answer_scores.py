"""Issue 47: the "Replace…" menu shows, for each other wrong answer, the Overall estimate the
item would get with it in place of one of its own, as each arrives ("…" until then), never an
estimate computed for older text; picking one replaces that wrong answer and the item is
scored again.

Known order dependence (not understood yet): run after
`test_worker_and_app.py::test_app_run_opens_the_window_on_a_bank` (which runs `app.run` and
quits the application), the scoring job starts but never reaches the estimate here; alone or
before it, it does. The file is named so it runs before; the cause deserves its own issue.

The estimate is scripted (`CandidateEstimate`, the real overall metric's chip and flags with a
stand-in `compute`): the real one reads with the models, seconds per candidate on shared
cores, which would make the order of events depend on machine load. Its value is set by the
wrong answers, and a wrong answer of another kind than the key raises the real option-kind
warning through the evidence the real flags read (quality/option_checks.py).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any, ClassVar

import pytest
from PySide6.QtWidgets import QMenu

from quizsmith.bank.store import ItemBank
from quizsmith.domain import Item, ScoreResult
from quizsmith.errors import QuizsmithError
from quizsmith.generation.distractors import NOT_NEEDED
from quizsmith.metrics import registry
from quizsmith.metrics.base import MetricContext
from quizsmith.operations import jobs as operations_jobs
from quizsmith.operations.wrong_answers import SCORED_CANDIDATES, with_wrong_answer
from quizsmith.quality import option_checks
from quizsmith.quality.metric import OverallMetric
from quizsmith.quality.option_checks import Difference, OptionDiagnosis

from .conftest import LengthMetric

#: The "good" sample item's wrong answers: each scores 0.80, so an item's estimate is the
#: lowest of its wrong answers' values here.
OWN = ["In the nucleus", "In the cell wall", "In the vacuole"]
#: Candidates the generation kept (more than are scored), with the estimate each gives.
VALUES = {
    "In the mitochondria": 0.71,
    "In the ribosomes": 0.64,
    "Green": 0.52,  # a colour for a place: not the key's kind
    "In the roots": 0.33,  # below the warning threshold
    "In the stem": 0.58,  # but its estimate cannot be computed (NOT_SCORED)
    "In the cytoplasm": 0.69,
    "In the leaves": 0.45,
    "In the soil": 0.41,
}
OTHER_KIND = "Green"
NOT_SCORED = "In the stem"


class CandidateEstimate(OverallMetric):
    """The overall estimate, scripted by the wrong answers. Each call takes a permit from
    `gate` first (a model call in flight, which a cancel does not interrupt)."""

    seen: ClassVar[list[tuple[str, tuple[str, ...]]]] = []
    #: Calls that have begun (and may be waiting at the gate).
    begun: ClassVar[list[str]] = []
    gate = threading.Semaphore(0)

    def compute(self, item: Item, ctx: MetricContext) -> ScoreResult:
        type(self).begun.append(item.stem)
        assert self.gate.acquire(timeout=30), "the test never let this estimate finish"
        type(self).seen.append((item.stem, tuple(item.distractors)))
        if NOT_SCORED in item.distractors:
            raise QuizsmithError("The reader gave no answer.", "Try again later.")
        value = min(VALUES.get(d, 0.8) for d in item.distractors)
        kind = [
            OptionDiagnosis(
                d, differences=(Difference("pos", f"\u201c{d}\u201d is an adjective"),)
            ).to_dict()
            for d in item.distractors
            if d == OTHER_KIND
        ]
        return ScoreResult(
            metric=self.name,
            value=value,
            evidence={"distractors": len(item.distractors), option_checks.EVIDENCE_KEY: kind},
        )


@pytest.fixture
def estimate() -> Iterator[type[CandidateEstimate]]:
    real = registry.get("overall")
    CandidateEstimate.seen = []
    CandidateEstimate.begun = []
    CandidateEstimate.gate = threading.Semaphore(0)
    registry.register("overall", CandidateEstimate)
    yield CandidateEstimate
    CandidateEstimate.gate.release(100)  # nothing left waiting after the test
    registry.register("overall", real)


@pytest.fixture(autouse=True)
def no_model_warm_up(monkeypatch: pytest.MonkeyPatch) -> None:
    """No model runs here: skip the jobs' warm-up of the model libraries."""
    monkeypatch.setattr(operations_jobs, "prepare_models", lambda settings: None)


def open_with_candidates(window: Any, bank: ItemBank, item_id: int) -> Any:
    """The "good" item, its generation having kept every VALUES candidate, in the editor."""
    item = bank.get_item(item_id)
    item.provenance["distractors_dropped"] = [
        {"text": text, "reason": NOT_NEEDED} for text in VALUES
    ]
    bank.update_item(item)
    window.open_item_id(item_id)
    assert window.editor.item.id == item_id
    return window.editor


def submenu(button: Any, old: str) -> QMenu:
    button.fill()
    for action in button.menu_.actions():
        if action.menu() is not None and action.text() == f"Instead of \u201c{old}\u201d":
            return action.menu()
    raise AssertionError(f"no list for {old!r}")


def lines(menu: QMenu) -> dict[str, str]:
    """Candidate -> what its line shows after the tab ("" for a line without an estimate)."""
    out = {}
    for action in menu.actions():
        if action.data():
            text, _, shown = action.text().partition("\t")
            out[text] = shown
    return out


def test_each_other_wrong_answer_shows_the_estimate_the_item_would_get(
    window: Any,
    qtbot: Any,
    bank: ItemBank,
    sample: dict[str, int],
    estimate: type[CandidateEstimate],
    length_metric: type[LengthMetric],
) -> None:
    editor = open_with_candidates(window, bank, sample["good"])
    editor.live_metrics = [length_metric.name]
    button = editor.wrong_answer_button
    menu = submenu(button, "In the cell wall")
    heading = menu.actions()[0]
    assert not heading.isEnabled()
    assert f"the first {SCORED_CANDIDATES} are scored" in heading.text()
    candidates = list(VALUES)
    scored, unscored = candidates[:SCORED_CANDIDATES], candidates[SCORED_CANDIDATES:]
    # Before anything arrives: "…" for those to be scored, nothing for the rest.
    assert lines(menu) == {**dict.fromkeys(scored, "\u2026"), **dict.fromkeys(unscored, "")}

    menu.aboutToShow.emit()  # the teacher opens this wrong answer's list
    worker = button.scorer
    assert worker is not None
    estimate.gate.release()  # the first estimate arrives on its own
    qtbot.waitUntil(lambda: lines(menu)[scored[0]] != "\u2026", timeout=10_000)
    shown = lines(menu)
    assert shown[scored[0]] == "71%"
    assert all(shown[c] == "\u2026" for c in scored[1:])  # the rest still to come
    estimate.gate.release(SCORED_CANDIDATES - 1)
    qtbot.waitUntil(lambda: worker.outcome != "pending", timeout=10_000)
    qtbot.waitUntil(lambda: "\u2026" not in lines(menu).values(), timeout=10_000)

    shown = lines(menu)
    assert shown["In the mitochondria"] == "71%"
    assert shown["In the ribosomes"] == "64%"
    # Its own flags, in a few words: a wrong answer of another kind, a low estimate.
    assert shown[OTHER_KIND] == "52% \u26a0 not the key's kind"
    assert shown["In the roots"] == "33% \u26a0 likely rejected"
    # One that could not be estimated says so, with the reason, never a number.
    assert shown[NOT_SCORED] == "not scored"
    tip = next(a for a in menu.actions() if a.data() == NOT_SCORED).toolTip()
    assert "The reader gave no answer." in tip
    assert shown["In the cytoplasm"] == "69%"
    assert all(shown[c] == "" for c in unscored)  # bounded: never scored
    tip = next(a for a in menu.actions() if a.data() == OTHER_KIND).toolTip()
    assert "not the same kind of answer as the key" in tip and "kept when" in tip
    # Each estimate is of the item with that one wrong answer in place of "In the cell wall".
    stem = editor.item.stem
    assert estimate.seen == [(stem, ("In the nucleus", c, "In the vacuole")) for c in scored]
    # Opening the list again costs nothing: the estimates hold for this text.
    assert button.score_for("In the cell wall") is None
    # Another wrong answer's list is another item each time: scored for its own place.
    other = submenu(button, "In the nucleus")
    assert set(lines(other).values()) == {"\u2026", ""}
    other.aboutToShow.emit()
    estimate.gate.release(SCORED_CANDIDATES)
    qtbot.waitUntil(lambda: "\u2026" not in lines(other).values(), timeout=10_000)
    assert estimate.seen[-1] == (stem, (scored[-1], "In the cell wall", "In the vacuole"))


def test_an_estimate_for_older_text_is_dropped_after_an_edit(
    window: Any,
    qtbot: Any,
    bank: ItemBank,
    sample: dict[str, int],
    estimate: type[CandidateEstimate],
    length_metric: type[LengthMetric],
) -> None:
    editor = open_with_candidates(window, bank, sample["good"])
    editor.live_metrics = [length_metric.name]
    button = editor.wrong_answer_button
    menu = submenu(button, "In the cell wall")
    menu.aboutToShow.emit()
    worker = button.scorer
    assert worker is not None
    qtbot.waitUntil(lambda: len(estimate.begun) == 1, timeout=10_000)

    # The teacher edits the question while the first estimate is being computed.
    editor.stem_edit.setPlainText("In which part of the cell does photosynthesis happen?")
    assert button.scorer is None and worker.token.cancelled
    estimate.gate.release()  # the model call in flight ends: its result still comes back
    qtbot.waitUntil(lambda: worker.outcome != "pending", timeout=10_000)
    qtbot.waitUntil(lambda: button.discarded == 1, timeout=10_000)
    assert worker.outcome == "cancelled"
    assert len(estimate.seen) == 1  # no other candidate was scored for the old text
    assert button.scores == {}
    menu = submenu(button, "In the cell wall")
    assert set(lines(menu).values()) == {"\u2026", ""}  # never the old text's 71%

    # Opened again, the list is scored for the new text, after its live re-score.
    menu.aboutToShow.emit()
    qtbot.waitUntil(lambda: button.scorer is not None, timeout=10_000)
    estimate.gate.release(SCORED_CANDIDATES)
    qtbot.waitUntil(lambda: "\u2026" not in lines(menu).values(), timeout=10_000)
    assert lines(menu)["In the mitochondria"] == "71%"
    assert {stem for stem, _ in estimate.seen[1:]} == {editor.draft().stem}
    assert button.discarded == 1


def test_picking_an_other_wrong_answer_replaces_it_and_scores_the_item_again(
    window: Any,
    qtbot: Any,
    bank: ItemBank,
    sample: dict[str, int],
    estimate: type[CandidateEstimate],
) -> None:
    editor = open_with_candidates(window, bank, sample["good"])
    editor.live_metrics = ["overall"]
    button = editor.wrong_answer_button
    menu = submenu(button, "In the cell wall")
    menu.aboutToShow.emit()
    estimate.gate.release(SCORED_CANDIDATES)
    qtbot.waitUntil(lambda: "\u2026" not in lines(menu).values(), timeout=10_000)
    assert lines(menu)["In the mitochondria"] == "71%"

    rescored: list[Item] = []
    editor.live_scored.connect(rescored.append)
    estimate.gate.release()  # the live re-score's estimate
    next(a for a in menu.actions() if a.data() == "In the mitochondria").trigger()
    assert editor.distractor_lines() == ["In the nucleus", "In the mitochondria", "In the vacuole"]
    assert editor.dirty
    qtbot.waitUntil(lambda: bool(rescored), timeout=30_000)
    # The item is scored again, and gets the estimate the menu said it would.
    assert "overall" in editor.fresh_scores
    assert editor.item.scores["overall"].value == pytest.approx(0.71)
    assert editor.chips.text("overall") == "Overall 71%"
    assert estimate.seen[-1][1] == tuple(editor.distractor_lines())
    assert editor.save()
    stored = bank.get_item(sample["good"])
    assert stored.distractors == ["In the nucleus", "In the mitochondria", "In the vacuole"]
    assert stored.scores["overall"].value == pytest.approx(0.71)
    # The new text's lists start afresh; the one put in is no longer offered.
    menu = submenu(button, "In the mitochondria")
    assert "In the mitochondria" not in lines(menu)
    assert "(now 71%)" in menu.actions()[0].text()
    assert set(lines(menu).values()) == {"\u2026", ""}


def test_a_candidate_carries_only_scores_that_hold_for_its_text(
    bank: ItemBank, sample: dict[str, int], length_metric: type[LengthMetric]
) -> None:
    item = bank.get_item(sample["good"])  # stored NACo 0.9 and KDA 0.85
    item.scores[length_metric.name] = ScoreResult(metric=length_metric.name, value=0.5)
    trial = with_wrong_answer(
        item, "In the cell wall", "In the roots", current={"naco", "kda", "overall"}
    )
    assert trial.distractors == ["In the nucleus", "In the roots", "In the vacuole"]
    assert [o.text for o in trial.options if o.is_key] == ["In the chloroplasts"]
    # NACo reads no options; KDA does (it describes the old wrong answers); the length
    # metric's score was not computed for this text (not current): neither is carried.
    assert set(trial.scores) == {"naco"}
    assert item.distractors == OWN  # the item itself is untouched
