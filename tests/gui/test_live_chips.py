"""Live chips, progressive (issue 45, point 3): after an edit the Overall chip comes first,
then, without a click, the EXAM-style "answerable" chip (the reader's answer the estimate
already read) and the slower chips; every chip is greyed while it is out of date and never
shows a value computed for older text; typing again cancels the chips still running.

The estimate is scripted (`ScriptedEstimate`, the real overall metric's chips and flags with a
stand-in `compute`): the real one reads with the 1.5B model, seconds per edit on shared cores,
which would make the order of events depend on machine load. The answerable chip is the real
metric (quality/answerable.py) reading the scripted estimate's result; the slow third chip is
conftest's LengthMetric (KDA's place).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any, ClassVar

import pytest

from quizsmith.bank.store import ItemBank
from quizsmith.domain import Item, ScoreResult
from quizsmith.metrics import registry
from quizsmith.metrics.base import MetricContext
from quizsmith.metrics.squad import f1_score
from quizsmith.operations import jobs as operations_jobs
from quizsmith.quality.metric import OverallMetric
from quizsmith.quality.signals import item_fingerprint
from quizsmith.settings import Settings

from .conftest import LengthMetric
from .test_main_window import select_item

KEY = "In the chloroplasts"  # the "good" sample item's key
OLD_STEM = "Where is chlorophyll?"
NEW_STEM = "In which part of the plant cell does photosynthesis happen, according to the text?"
OTHER_STEM = "Where in the cell does photosynthesis happen?"


class ScriptedEstimate(OverallMetric):
    """The overall estimate with a scripted reading: its value follows the stem's length, and
    the reader answers the key when the stem mentions photosynthesis. `release` holds the
    result back (a model call in flight, which a cancel does not interrupt)."""

    delay: ClassVar[float] = 0.0
    started: ClassVar[list[str]] = []
    release = threading.Event()

    def compute(self, item: Item, ctx: MetricContext) -> ScoreResult:
        type(self).started.append(item.stem)
        self.release.wait(timeout=30)
        end = time.monotonic() + self.delay
        while time.monotonic() < end:
            ctx.cancel.raise_if_cancelled()
            time.sleep(0.01)
        answer = KEY if "photosynthesis" in item.stem.lower() else "the nucleus"
        return ScoreResult(
            metric=self.name,
            value=estimate_of(item.stem),
            evidence={
                "signals": {"reader_f1": f1_score(answer, item.key)},
                "signals_evidence": {"item": item_fingerprint(item), "reader_answer": answer},
            },
        )


def estimate_of(stem: str) -> float:
    return round(len(stem) / 200, 2)


def overall_text(stem: str) -> str:
    return f"Overall {estimate_of(stem):.0%}"


@pytest.fixture
def scripted_estimate() -> Iterator[type[ScriptedEstimate]]:
    real = registry.get("overall")
    ScriptedEstimate.delay = 0.0
    ScriptedEstimate.started = []
    ScriptedEstimate.release.set()
    registry.register("overall", ScriptedEstimate)
    yield ScriptedEstimate
    ScriptedEstimate.release.set()
    registry.register("overall", real)


@pytest.fixture(autouse=True)
def no_model_warm_up(monkeypatch: pytest.MonkeyPatch) -> None:
    """No model runs here: skip the jobs' warm-up of the model libraries."""
    monkeypatch.setattr(operations_jobs, "prepare_models", lambda settings: None)


LIVE = ["overall", "answerable", LengthMetric.name]


class ChipLog:
    """Every state of the chip row the editor shows: (metric -> text, metric -> greyed)."""

    def __init__(self, editor: Any, monkeypatch: pytest.MonkeyPatch) -> None:
        self.states: list[tuple[dict[str, str], dict[str, bool]]] = []
        chips = editor.chips
        shown = chips.show_item

        def show_item(*args: Any, **kwargs: Any) -> None:
            shown(*args, **kwargs)
            texts = {m: chips.text(m) for m in chips.labels}
            greyed = {m: bool(label.property("stale")) for m, label in chips.labels.items()}
            self.states.append((texts, greyed))

        monkeypatch.setattr(chips, "show_item", show_item)

    def texts(self, metric: str) -> list[str]:
        return [texts[metric] for texts, _ in self.states]


def open_standard(window: Any, qtbot: Any, item_id: int) -> Any:
    """The editor on the standard profile (where the reader answers) with the live set of
    issue 45, the "good" sample item open."""
    editor = window.editor
    editor.settings = Settings(profile="standard", n_threads=1)
    editor.live_metrics = LIVE
    select_item(window, qtbot, item_id)
    return editor


def test_overall_comes_first_then_the_answerable_chip_without_a_click(
    window: Any,
    qtbot: Any,
    sample: dict[str, int],
    length_metric: Any,
    scripted_estimate: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    LengthMetric.delay = 1.0  # the slower chip (KDA's place)
    editor = open_standard(window, qtbot, sample["good"])
    # Run in this order, and the answerable chip sits beside Overall, whose answer it shows.
    assert editor.live_metrics == LIVE
    assert list(editor.chips.labels)[:2] == ["overall", "answerable"]
    log = ChipLog(editor, monkeypatch)
    editor.stem_edit.setPlainText(NEW_STEM)
    # No click: the debounce starts the run.
    qtbot.waitUntil(lambda: editor.live_runs == 1 and editor.live_worker is None, timeout=60_000)
    assert ScriptedEstimate.started == [NEW_STEM]

    def first(predicate: Any) -> int:
        return next(n for n, (texts, _) in enumerate(log.states) if predicate(texts))

    overall_shown = first(lambda t: t["overall"] == overall_text(NEW_STEM))
    answerable_shown = first(lambda t: t["answerable"] == "Answerable yes")
    length_shown = first(lambda t: "…" not in t[LengthMetric.name])
    assert overall_shown < answerable_shown < length_shown
    # Overall's chip came while the others were still greyed, waiting for their results.
    texts, greyed = log.states[overall_shown]
    assert "…" in texts["answerable"] and greyed["answerable"]
    assert not greyed["overall"]
    # The answerable chip comes with the estimate's own result (no model call of its own),
    # before the slower chip is done.
    texts, greyed = log.states[answerable_shown]
    assert "…" in texts[LengthMetric.name] and greyed[LengthMetric.name]
    assert editor.chips.labels["answerable"].property("level") == "good"
    assert "the reader answered \u201cIn the chloroplasts\u201d" in (
        editor.chips.labels["answerable"].toolTip()
    )
    assert editor.fresh_scores == set(LIVE)
    assert editor.item.scores["answerable"].value == 1.0


def test_a_chip_greys_out_on_edit_and_never_shows_a_value_for_older_text(
    window: Any,
    qtbot: Any,
    bank: ItemBank,
    sample: dict[str, int],
    length_metric: Any,
    scripted_estimate: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    editor = open_standard(window, qtbot, sample["good"])
    assert editor.chips.text("naco") == "NACo 0.90"  # stored for the saved text
    log = ChipLog(editor, monkeypatch)

    # The estimate of the first wording is computing (its model call does not stop for a
    # cancel) when the teacher types on.
    ScriptedEstimate.release.clear()
    editor.stem_edit.setPlainText(OLD_STEM)
    # Greyed at once: no chip shows a number for the text on screen yet ...
    for metric in LIVE:
        assert "…" in editor.chips.text(metric), metric
        assert editor.chips.labels[metric].property("stale"), metric
    # ... and a chip outside the live set says its number is out of date, greyed.
    assert editor.chips.text("naco") == "NACo out of date"
    assert editor.chips.labels["naco"].property("stale")
    editor.rescore_now()
    first = editor.live_worker
    qtbot.waitUntil(lambda: ScriptedEstimate.started == [OLD_STEM], timeout=60_000)
    editor.stem_edit.setPlainText(NEW_STEM)
    ScriptedEstimate.release.set()  # the old wording's result now arrives
    qtbot.waitUntil(lambda: first.outcome != "pending", timeout=60_000)
    qtbot.wait(100)  # its queued events reach the editor
    assert editor.chips.text("overall").startswith("Overall …")
    assert "overall" not in editor.fresh_scores

    # The new wording's own run (after the debounce) shows its values.
    qtbot.waitUntil(lambda: editor.live_runs == 2 and editor.live_worker is None, timeout=60_000)
    assert editor.chips.text("overall") == overall_text(NEW_STEM)
    assert editor.chips.text("answerable") == "Answerable yes"
    old = (overall_text(OLD_STEM), "Answerable no")
    shown = log.texts("overall") + log.texts("answerable")
    assert not set(old) & set(shown), "a chip showed a value computed for older text"
    assert editor.chips.text("naco") == "NACo out of date"  # until Explain or Score all
    assert editor.save()
    stored = bank.get_item(sample["good"])
    assert stored.scores["overall"].value == estimate_of(NEW_STEM)


def test_typing_again_cancels_the_chips_still_running(
    window: Any,
    qtbot: Any,
    sample: dict[str, int],
    length_metric: Any,
    scripted_estimate: Any,
) -> None:
    LengthMetric.delay = 30.0  # far longer than the test waits for the cancel
    editor = open_standard(window, qtbot, sample["good"])
    editor.stem_edit.setPlainText(NEW_STEM)
    qtbot.waitUntil(lambda: LengthMetric.calls == [NEW_STEM], timeout=60_000)
    running = editor.live_worker
    assert running is not None
    qtbot.waitUntil(lambda: editor.chips.text("answerable") == "Answerable yes", timeout=60_000)

    cancelled = editor.stale_cancelled
    LengthMetric.delay = 0.0
    editor.stem_edit.setPlainText(OTHER_STEM)
    # At the keystroke, not when the debounce fires: the run is cancelled and forgotten.
    assert running.token.cancelled
    assert editor.live_worker is None and editor.timer.isActive()
    assert editor.stale_cancelled == cancelled + 1
    for metric in LIVE:
        assert "…" in editor.chips.text(metric), metric
    qtbot.waitUntil(lambda: running.outcome == "cancelled", timeout=5_000)

    qtbot.waitUntil(lambda: editor.live_runs == 2 and editor.live_worker is None, timeout=60_000)
    assert LengthMetric.calls == [NEW_STEM, OTHER_STEM]
    assert editor.chips.text("overall") == overall_text(OTHER_STEM)
    assert editor.chips.text(LengthMetric.name) == f"LEN {len(OTHER_STEM) / 100:.2f}"


def test_kda_waits_for_a_click_on_other_item_types(
    window: Any,
    qtbot: Any,
    sample: dict[str, int],
    length_metric: Any,
    scripted_estimate: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """KDA is a live chip on multiple-choice items only (`live_item_types`): after an edit
    of another type it is not run (it waits for Explain or Score all)."""
    monkeypatch.setattr(LengthMetric, "live_item_types", ("mcq",), raising=False)
    editor = open_standard(window, qtbot, sample["good"])
    editor.type_box.setCurrentIndex(editor.type_box.findData("short"))
    assert editor.chips.text(LengthMetric.name) == "LEN –"  # not pending: not re-scored
    assert editor._pending == ["overall", "answerable"]
    editor.rescore_now()
    qtbot.waitUntil(lambda: editor.live_worker is None, timeout=60_000)
    assert LengthMetric.calls == []
    assert "…" not in editor.chips.text("answerable")
