"""The score chips above the item editor's form: one coloured label per metric, greyed while
its metric runs or when its result describes older text (issue 45: a chip never shows a value
for text that is gone)."""

from __future__ import annotations

from collections.abc import Collection, Sequence

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QWidget

from quizsmith.domain import Item
from quizsmith.errors import QuizsmithError
from quizsmith.gui.flow_layout import FlowLayout
from quizsmith.gui.scores import LEVEL_COLORS, chip_for, chip_metrics
from quizsmith.settings import Settings


class ChipRow(QWidget):
    """One coloured label per metric: the standard chips plus any other live metric."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        # Wraps: the chips' texts together are wider than the editor (issue 27).
        self._layout = FlowLayout(self)
        self.labels: dict[str, QLabel] = {}
        self.titles: dict[str, str] = {}
        self.set_metrics(list(chip_metrics()))

    def set_metrics(self, metrics: Sequence[tuple[str, str]]) -> None:
        if [(m, self.titles[m]) for m in self.labels] == list(metrics):
            return
        for label in self.labels.values():
            # Out of the layout at once: deleteLater waits for the event loop.
            self._layout.removeWidget(label)
            label.hide()
            label.deleteLater()
        self.labels, self.titles = {}, {}
        for metric, title in metrics:
            label = QLabel()
            label.setObjectName(f"chip-{metric}")
            label.setAlignment(Qt.AlignmentFlag.AlignCenter)
            self.labels[metric] = label
            self.titles[metric] = title
            self._layout.addWidget(label)

    def show_item(
        self,
        item: Item | None,
        settings: Settings | None,
        pending: Sequence[str] = (),
        parts: dict[str, str] | None = None,
        stale: Collection[str] = (),
    ) -> None:
        """`parts`: for a pending metric, what its finished parts found so far (no number
        until the whole metric is done). `stale`: metrics whose result on `item` describes
        older text (edited since): greyed as out of date, never shown as a number (issue 45:
        a chip never shows a value for older text)."""
        for metric, label in self.labels.items():
            greyed = False
            result = item.scores.get(metric) if item is not None else None
            if item is None:
                text, level, tip = "–", "none", ""
            elif metric in pending:
                part = (parts or {}).get(metric)
                text, level, greyed = (f"… {part}" if part else "…"), "none", True
                tip = "Scoring the edited item…" + (f" So far: {part}." if part else "")
            elif metric in stale and result is not None and result.scored:
                text, level, greyed = "out of date", "none", True
                tip = (
                    f"{self.titles[metric]}: out of date. It was computed for the text before "
                    "your edit; Explain or Score all scores this text (the live chips re-score "
                    "by themselves)."
                )
            else:
                chip = chip_for(item, metric, settings)
                text, level, tip = chip.text, chip.level, chip.tooltip
            label.setText(f"{self.titles[metric]} {text}")
            label.setToolTip(tip)
            label.setProperty("level", level)
            label.setProperty("stale", greyed)
            # Grey text on grey as well: an out-of-date chip must not read as a result.
            ink = "#6b6b6b" if greyed else "#1d1d1d"
            label.setStyleSheet(
                f"background:{LEVEL_COLORS[level]}; color:{ink}; border-radius:8px;"
                " padding:2px 8px;"
            )

    def text(self, metric: str) -> str:
        return self.labels[metric].text()


def metric_title(name: str) -> str:
    from quizsmith.metrics import registry

    try:
        return registry.get(name).title or name
    except QuizsmithError:
        return name
