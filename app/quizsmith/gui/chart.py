"""Score distribution: a histogram of one metric over the bank or a quiz (pyqtgraph)."""

from __future__ import annotations

import math
from collections.abc import Sequence

from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QHBoxLayout,
    QLabel,
    QVBoxLayout,
    QWidget,
)

from quizsmith.bank.store import ItemBank
from quizsmith.domain import Item
from quizsmith.errors import QuizsmithError
from quizsmith.gui.messages import show_exception
from quizsmith.metrics import registry

BINS = 10


def histogram(values: Sequence[float], bins: int = BINS) -> list[int]:
    """Counts of values in `bins` equal bins over [0, 1] (1.0 falls in the last bin)."""
    counts = [0] * bins
    for v in values:
        counts[min(bins - 1, max(0, int(v * bins)))] += 1
    return counts


def count_tick_step(largest: int, ticks: int = 8) -> int:
    """A whole-number spacing for the count axis: items come in whole numbers, and the
    default spacing labelled 0.5 and 1.5 items."""
    return max(1, math.ceil(largest / ticks))


def metric_values(items: Sequence[Item], metric: str) -> list[float]:
    return [
        float(s.value)
        for s in (i.scores.get(metric) for i in items)
        if s is not None and s.scored and s.value is not None
    ]


class ChartDialog(QDialog):
    def __init__(self, bank: ItemBank, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        import pyqtgraph as pg

        self.setWindowTitle("Score distribution")
        self.resize(640, 420)
        self.bank = bank
        self.metric_box = QComboBox()
        # The metrics that declare a `chart_label` (their values lie in 0-1, the axis).
        for name, title in registry.chart_metrics():
            self.metric_box.addItem(title, name)
        self.scope_box = QComboBox()
        self.scope_box.addItem("whole bank", None)
        for quiz in bank.quizzes():
            self.scope_box.addItem(f"quiz: {quiz.name}", quiz.id)
        self.summary = QLabel("")
        pg.setConfigOptions(antialias=True, background="w", foreground="k")
        self.plot = pg.PlotWidget()
        self.plot.setLabel("bottom", "score")
        self.plot.setLabel("left", "items")
        self.plot.setXRange(0, 1)
        self.counts: list[int] = []
        self.tick_step = 1
        row = QHBoxLayout()
        row.addWidget(self.metric_box)
        row.addWidget(self.scope_box)
        row.addStretch(1)
        row.addWidget(self.summary)
        layout = QVBoxLayout(self)
        layout.addLayout(row)
        layout.addWidget(self.plot, 1)
        self.metric_box.currentIndexChanged.connect(self.redraw)
        self.scope_box.currentIndexChanged.connect(self.redraw)
        self.redraw()

    def items(self) -> list[Item]:
        quiz_id = self.scope_box.currentData()
        if quiz_id is None:
            return self.bank.search(limit=None)
        return self.bank.get_items(self.bank.get_quiz(int(quiz_id)).item_ids, with_passages=False)

    def redraw(self) -> None:
        import pyqtgraph as pg

        try:
            items = self.items()
        except QuizsmithError as exc:
            show_exception(self, exc)
            return
        metric = str(self.metric_box.currentData())
        values = metric_values(items, metric)
        self.counts = histogram(values)
        self.plot.clear()
        width = 1.0 / BINS
        bars = pg.BarGraphItem(
            x=[width * (i + 0.5) for i in range(BINS)],
            height=self.counts,
            width=width * 0.9,
            brush="#4c78a8",
        )
        self.plot.addItem(bars)
        largest = max(self.counts, default=0)
        self.tick_step = count_tick_step(largest)
        axis = self.plot.getAxis("left")
        axis.setTickSpacing(self.tick_step, self.tick_step)
        self.plot.setYRange(0, max(1, largest), padding=0.05)
        mean = sum(values) / len(values) if values else None
        self.summary.setText(
            f"{len(values)} of {len(items)} item(s) scored"
            + (f"; mean {mean:.2f}" if mean is not None else "")
        )
