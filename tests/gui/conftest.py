"""GUI fixtures: a real bank on tmp_path, sample data, and a fast stand-in metric.

The stand-in metric exists for the timing-sensitive tests (debounce, cancelling a stale
run): the real models take seconds per item on two shared cores, which would make "exactly
one re-score" depend on machine load. test_live_models.py runs the real NACo once.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
if os.environ["QT_QPA_PLATFORM"] == "offscreen":
    # A desktop-sized screen (the plugin's default is 800x800): Qt fits restored window
    # geometry to the screen, and the main window is wider than 800 pixels.
    screen = Path(__file__).with_name("offscreen-screen.json")
    os.environ["QT_QPA_PLATFORM"] = f"offscreen:configfile={screen}"

from quizsmith.bank.store import ItemBank
from quizsmith.domain import Flag, Item, Passage, ScoreResult
from quizsmith.metrics import registry
from quizsmith.metrics.base import Metric, MetricContext
from quizsmith.settings import Settings

PASSAGE = (
    "Photosynthesis is the process by which green plants turn light into chemical energy. "
    "It takes place in the chloroplasts, which contain the green pigment chlorophyll. "
    "The plant takes in carbon dioxide and water and releases oxygen."
)


class LengthMetric(Metric):
    """Scores a question by its length; `delay` seconds of cancellable 'model time'."""

    name: ClassVar[str] = "gui-test-length"
    title: ClassVar[str] = "LEN"
    reports_parts: ClassVar[bool] = True
    needs_passage: ClassVar[bool] = False
    delay: ClassVar[float] = 0.0
    #: When set, reported as a finished part (ctx.part) before the delay.
    part: ClassVar[str] = ""
    calls: ClassVar[list[str]] = []
    lock = threading.Lock()

    def compute(self, item: Item, ctx: MetricContext) -> ScoreResult:
        with self.lock:
            type(self).calls.append(item.stem)
        if self.part:
            ctx.part(self.name, self.part)
        end = time.monotonic() + self.delay
        while time.monotonic() < end:
            ctx.cancel.raise_if_cancelled()
            time.sleep(0.01)
        return ScoreResult(metric=self.name, value=min(1.0, len(item.stem) / 100))

    def flags(self, result: ScoreResult, options: dict[str, Any]) -> list[Flag]:
        if (result.value or 0) < 0.2:
            return [Flag("short-stem", "The question is very short.", self.name, "warning")]
        return []


@pytest.fixture
def length_metric() -> Iterator[type[LengthMetric]]:
    LengthMetric.calls = []
    LengthMetric.delay = 0.0
    LengthMetric.part = ""
    registry.register(LengthMetric.name, LengthMetric)
    yield LengthMetric
    registry.metrics._registered.pop(LengthMetric.name, None)


@pytest.fixture
def settings() -> Settings:
    # One thread: llama.cpp slows badly when threads exceed the free cores.
    return Settings(n_threads=1)


@pytest.fixture
def bank(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[ItemBank]:
    monkeypatch.setenv("QUIZSMITH_DATA_DIR", str(tmp_path / "data"))
    b = ItemBank(tmp_path / "bank.sqlite")
    yield b
    b.close()


def mcq(stem: str, key: str, distractors: list[str], **fields: Any) -> Item:
    return Item(
        type="mcq", stem=stem, key=key, options=Item.make_options(key, distractors), **fields
    )


def add_sample(bank: ItemBank) -> dict[str, int]:
    """A passage and four items: one clean, one with a warning, one with an error, one
    with an alternative; returns their ids by name."""
    pid = bank.add_passage(Passage(text=PASSAGE, title="Photosynthesis", subject="Biology"))
    fact = "It takes place in the chloroplasts, which contain the green pigment chlorophyll."
    items = {
        "good": mcq(
            "Where in the plant cell does photosynthesis take place?",
            "In the chloroplasts",
            ["In the nucleus", "In the cell wall", "In the vacuole"],
            target_fact=fact,
        ),
        "warning": mcq("Which gas do plants release?", "Oxygen", ["Nitrogen", "Helium", "Argon"]),
        "error": mcq("Chlorophyll green?", "Chlorophyll", ["Water", "Light", "Sugar"]),
        "alt": mcq(
            "What do plants take in besides water?",
            "Carbon dioxide",
            ["Oxygen", "Nitrogen"],
            alternatives=[mcq("Which gas do plants absorb?", "Carbon dioxide", ["Oxygen", "Neon"])],
        ),
    }
    ids = {}
    for name, item in items.items():
        item.passage_id = pid
        item.subject = "Biology"
        ids[name] = bank.add_item(item)
    bank.add_score(ids["good"], score("naco", 0.9))
    bank.add_score(ids["good"], score("kda", 0.85))
    bank.add_score(ids["warning"], score("naco", 0.6))
    bank.set_flags(
        ids["warning"], [Flag("answer-differs", "The model's answer differs.", "naco")], "naco"
    )
    bank.add_score(ids["error"], score("naco", 0.0))
    bank.add_score(ids["error"], score("kda", 0.1))
    bank.set_flags(
        ids["error"],
        [Flag("not-a-question", "Not a question.", "naco", "error")],
        "naco",
    )
    bank.set_flags(ids["error"], [Flag("kda-weak", "Weak.", "kda", "warning")], "kda")
    bank.set_flags(ids["alt"], [Flag("too-easy", "Too easy.", "naco", "info")], "naco")
    ids["passage"] = pid
    return ids


def score(metric: str, value: float) -> ScoreResult:
    return ScoreResult(metric=metric, value=value, values={}, evidence={})


@pytest.fixture
def sample(bank: ItemBank) -> dict[str, int]:
    return add_sample(bank)


@pytest.fixture
def window(qtbot: Any, bank: ItemBank, settings: Settings, sample: dict[str, int]) -> Any:
    from quizsmith.gui.main_window import MainWindow

    win = MainWindow(bank, settings)
    qtbot.addWidget(win)
    win.show()
    yield win
    # pytest-qt has closed the window by now (and scheduled its deletion). Closing cancels
    # the jobs without waiting for them; a cancelled model call finishes its current step
    # first, so wait here for every worker.
    win.runner.cancel_all()
    qtbot.waitUntil(win.runner.settled, timeout=120_000)


@pytest.fixture(autouse=True)
def no_reading_ahead(monkeypatch: pytest.MonkeyPatch) -> None:
    """Opened items are not read ahead with the real live models (test_read_ahead.py turns
    it on): a background model job would make every other test's timing depend on load."""
    from quizsmith.gui import read_ahead

    monkeypatch.setattr(read_ahead, "READ_AHEAD_MS", None)


@pytest.fixture(autouse=True)
def fresh_messages() -> Iterator[None]:
    """Each test sees only the message boxes it caused."""
    from quizsmith.gui import messages

    messages.shown.clear()
    yield
    for box in list(messages.shown):
        # A box whose parent (a dialog the test made) is already deleted went with it.
        with contextlib.suppress(RuntimeError):
            box.close()
    messages.shown.clear()
