"""The domain's vocabulary: item types, statuses, difficulties, severities and decisions
(the bank's CHECK constraints are built from these lists), timestamps and numbers as a
teacher writes them."""

from __future__ import annotations

import hashlib
import math
from datetime import UTC, datetime
from typing import Final

ITEM_TYPES: Final = ("mcq", "tf", "short", "cloze")
#: The item types in a teacher's words (the codes meant nothing to the teachers who tried
#: the app): "does not apply to true/false items".
ITEM_TYPE_NAMES: Final = {
    "mcq": "multiple-choice",
    "tf": "true/false",
    "short": "short-answer",
    "cloze": "fill-in-the-blank",
}
STATUSES: Final = ("draft", "accepted", "rejected", "needs-review")
DIFFICULTIES: Final = ("recall", "understanding", "application")
SEVERITIES: Final = ("info", "warning", "error")
#: Review decisions and the item status each one sets.
DECISION_STATUS: Final = {
    "accept": "accepted",
    "reject": "rejected",
    "needs-review": "needs-review",
}
#: Item types whose options the student chooses from; the others are answered in free text.
CHOICE_TYPES: Final = ("mcq", "tf")
TF_ANSWERS: Final = ("True", "False")


def utc_now() -> str:
    """A sortable ISO 8601 UTC timestamp with microseconds (what the bank stores)."""
    return datetime.now(UTC).isoformat(timespec="microseconds")


def text_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def format_number(value: float) -> str:
    """A number as a teacher would write it: no trailing ".0", no float noise."""
    return f"{value:.10g}"


def parse_number(text: str) -> float | None:
    """A number as teachers write it ("3.5", "3,5", "-2e3"), else None."""
    cleaned = text.strip().replace(",", ".") if text.count(",") == 1 and "." not in text else text
    try:
        value = float(cleaned.strip())
    except ValueError:
        return None
    return value if math.isfinite(value) else None
