"""What a metric declares about how it is shown, without any GUI code: its threshold fields
for the settings dialog, and small helpers for the evidence markup it renders.

Evidence is returned as a fragment of the simple HTML subset Qt's rich text shows (p, b, i,
ul/ol, table): the desktop app displays it as is, and the metric stays free of Qt.
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from typing import Any

from quizsmith.domain import ScoreResult


@dataclass(frozen=True)
class Threshold:
    """One of the metric's `defaults` that the settings dialog offers as a flag threshold."""

    key: str
    #: The teacher-facing caption, starting with the metric's title.
    label: str
    #: What the number does, for the tooltip.
    tip: str = ""
    #: 0 means "off" and is stored as None (the option's default is None).
    optional: bool = False
    #: Stored as a whole number (a rating on a 1-5 scale).
    integer: bool = False


def esc(value: Any) -> str:
    return html.escape(str(value))


def generic_evidence_html(result: ScoreResult) -> str:
    """The plain values of a result, for a metric that renders nothing of its own."""
    simple = {k: v for k, v in result.values.items() if isinstance(v, int | float | str | bool)}
    return "<p>" + esc(", ".join(f"{k} {v}" for k, v in simple.items())) + "</p>"


def number(value: Any) -> float | None:
    """A finite float out of a result's values (a bool counts as 0/1), else None."""
    import math

    if isinstance(value, bool):
        return float(value)
    if isinstance(value, int | float) and math.isfinite(value):
        return float(value)
    return None
