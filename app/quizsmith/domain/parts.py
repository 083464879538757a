"""The parts of a quiz item: its passage, options, other accepted answers, numerical key,
media, flags and scores. Each reads and writes its interchange form (`to_dict` /
`from_dict`) for `Item.to_dict` / `Item.from_dict`."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from quizsmith.domain.checks import as_number, check_choice, optional_text
from quizsmith.domain.vocabulary import SEVERITIES, format_number, text_hash


@dataclass(kw_only=True)
class Passage:
    """A source text that items are written about."""

    text: str
    title: str = ""
    subject: str | None = None
    source_file: str | None = None
    id: int | None = None

    @property
    def hash(self) -> str:
        # Derived on access rather than stored, so it can never disagree with an edited text.
        return text_hash(self.text)


@dataclass
class Option:
    """One answer option as presented; `position` is its 0-based place in the list.

    `credit` is the percentage of the marks a student gets for choosing a non-key option
    (partial credit, as Moodle's `%50%`; negative values are penalties). The key is always
    worth 100, so its own `credit` is ignored.
    """

    text: str
    is_key: bool = False
    position: int = 0
    credit: float = 0.0


@dataclass
class Accepted:
    """Another answer accepted for a short-answer or cloze item besides its key, with the
    percentage of the marks it earns (100: as good as the key; 50: half marks)."""

    text: str
    credit: float = 100.0

    def to_dict(self) -> dict[str, Any]:
        return {"text": self.text, "credit": self.credit}

    @classmethod
    def from_dict(cls, data: Any) -> Accepted:
        if isinstance(data, str):
            return cls(data)
        if not isinstance(data, dict) or not isinstance(data.get("text"), str):
            raise ValueError("each accepted answer must be a string or {'text', 'credit'}.")
        return cls(data["text"], as_number(data.get("credit", 100.0), "credit"))


@dataclass
class NumericKey:
    """The key of a numerical short-answer item: any answer within `value` +- `tolerance`
    (in `unit`, which may be empty) is right. A range a..b is value (a+b)/2, tolerance
    (b-a)/2. The item's `key` text is the value as the teacher wrote it."""

    value: float
    tolerance: float = 0.0
    unit: str = ""

    def __post_init__(self) -> None:
        if not math.isfinite(self.value) or not math.isfinite(self.tolerance):
            raise ValueError("a numerical key and its tolerance must be finite numbers.")
        if self.tolerance < 0:
            raise ValueError("a numerical tolerance cannot be negative.")

    def to_dict(self) -> dict[str, Any]:
        return {"value": self.value, "tolerance": self.tolerance, "unit": self.unit}

    @classmethod
    def from_dict(cls, data: Any) -> NumericKey:
        if not isinstance(data, dict) or "value" not in data:
            raise ValueError("'numeric' must be an object with a 'value'.")
        return cls(
            as_number(data["value"], "numeric value"),
            as_number(data.get("tolerance", 0.0), "numeric tolerance"),
            str(data.get("unit") or ""),
        )

    def describe(self) -> str:
        """How a teacher reads it on the answer key: "3.14159 (± 0.0005)", "1 to 5"."""
        value = format_number(self.value)
        unit = f" {self.unit}" if self.unit else ""
        if not self.tolerance:
            return value + unit
        return f"{value}{unit} (± {format_number(self.tolerance)})"


@dataclass
class Media:
    """A file an item shows (an image, a sound), kept in the bank so exports can carry it."""

    name: str
    mime: str
    data: bytes

    @property
    def is_image(self) -> bool:
        return self.mime.startswith("image/")

    def to_dict(self) -> dict[str, Any]:
        import base64

        encoded = base64.b64encode(self.data).decode("ascii")
        return {"name": self.name, "mime": self.mime, "base64": encoded}

    @classmethod
    def from_dict(cls, data: Any) -> Media:
        import base64
        import binascii

        if not isinstance(data, dict) or not isinstance(data.get("name"), str):
            raise ValueError("each media entry must be an object with a 'name'.")
        try:
            raw = base64.b64decode(str(data.get("base64") or ""), validate=True)
        except (binascii.Error, ValueError):
            raise ValueError(f"media {data['name']!r}: 'base64' is not valid base64.") from None
        return cls(data["name"], str(data.get("mime") or "application/octet-stream"), raw)


@dataclass
class Flag:
    """A review reason raised by a metric (or by the bank, e.g. a near-duplicate)."""

    code: str
    message: str
    metric: str = ""
    severity: str = "warning"

    def __post_init__(self) -> None:
        check_choice("severity", self.severity, SEVERITIES, optional=False)

    def to_dict(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "message": self.message,
            "metric": self.metric,
            "severity": self.severity,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Flag:
        if not isinstance(data, dict) or "code" not in data:
            raise ValueError("a flag must be an object with at least a 'code'.")
        return cls(
            code=str(data["code"]),
            message=str(data.get("message", "")),
            metric=str(data.get("metric", "")),
            severity=str(data.get("severity", "warning")),
        )


@dataclass(kw_only=True)
class ScoreResult:
    """What a metric says about one item.

    `value` is the headline number in the metric's documented range, or None when the item was
    not scored; then `not_scored_reason` says why. A metric never makes up a number: use
    `ScoreResult.not_scored(metric, reason)`. `values` holds the components (e.g. NACo's n, a,
    c and the reasoning-step count under "steps"), `evidence` what a teacher can read, and
    `model_config` which models and prompts produced it.
    """

    metric: str
    value: float | None = None
    values: dict[str, Any] = field(default_factory=dict)
    evidence: dict[str, Any] = field(default_factory=dict)
    model_config: dict[str, Any] = field(default_factory=dict)
    seconds: float = 0.0
    not_scored_reason: str | None = None
    created: str | None = None

    def __post_init__(self) -> None:
        if not self.metric:
            raise ValueError("a score needs the metric's name.")
        if self.value is not None:
            if isinstance(self.value, bool) or not isinstance(self.value, int | float):
                raise ValueError(f"{self.metric}: score value must be a number or None.")
            if not math.isfinite(self.value):
                # NaN/inf would be a made-up number and cannot be written as JSON.
                raise ValueError(f"{self.metric}: score value must be finite; use not_scored().")
        if self.not_scored_reason is not None and self.value is not None:
            raise ValueError(
                f"{self.metric}: a score with a not-scored reason cannot have a value."
            )

    @classmethod
    def not_scored(
        cls,
        metric: str,
        reason: str,
        *,
        model_config: dict[str, Any] | None = None,
        evidence: dict[str, Any] | None = None,
        seconds: float = 0.0,
    ) -> ScoreResult:
        return cls(
            metric=metric,
            value=None,
            evidence=dict(evidence or {}),
            model_config=dict(model_config or {}),
            seconds=seconds,
            not_scored_reason=reason or "no reason given",
        )

    @property
    def scored(self) -> bool:
        return self.not_scored_reason is None and self.value is not None

    def to_dict(self) -> dict[str, Any]:
        return {
            "metric": self.metric,
            "value": self.value,
            "values": self.values,
            "evidence": self.evidence,
            "model_config": self.model_config,
            "seconds": self.seconds,
            "not_scored_reason": self.not_scored_reason,
            "created": self.created,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any], metric: str | None = None) -> ScoreResult:
        if not isinstance(data, dict):
            raise ValueError("a score must be an object.")
        name = data.get("metric") or metric
        if not name:
            raise ValueError("a score needs its metric name.")
        for key in ("values", "evidence", "model_config"):
            if not isinstance(data.get(key, {}) or {}, dict):
                raise ValueError(f"score {name}: {key!r} must be an object.")
        value = data.get("value")
        if isinstance(value, int | float) and not isinstance(value, bool):
            value = as_number(value, f"score {name}: value")
        return cls(
            metric=str(name),
            value=value,
            values=dict(data.get("values") or {}),
            evidence=dict(data.get("evidence") or {}),
            model_config=dict(data.get("model_config") or {}),
            # An infinite time was stored, then exported as `Infinity` (not JSON).
            seconds=as_number(data.get("seconds") or 0.0, f"score {name}: seconds"),
            not_scored_reason=optional_text(data, "not_scored_reason"),
            created=optional_text(data, "created"),
        )
