"""What a quiz is made of: passages, items, options, scores, flags, reviews and quizzes.

Why this module is long: it is the one vocabulary every layer imports (the base layer, standard
library only); `Item` alone is over 200 lines because its `to_dict` / `from_dict` define the
JSONL interchange format and check what they read. Splitting the dataclasses would only add
imports everywhere.

Plain dataclasses with no knowledge of storage, models or Qt; generation, the metrics, the item
bank, the exporters and the GUI all speak them. `Item.to_dict` / `Item.from_dict` define the
item interchange format of DESIGN.md ("Command line"): one JSON object per line with
`id, type, passage, fact, question, answer, distractors[], reference, scores{metric: {...}},
flags[], provenance{}` plus `status, subject, tags, difficulty`, and `options[]` (the
presentation order, key included) and `created` so that nothing is lost on a round trip.

Standard library only: this module is imported by everything, including `quizsmith --help`.
"""

from __future__ import annotations

import hashlib
import math
import unicodedata
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Final

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


def _check_choice(name: str, value: str | None, allowed: tuple[str, ...], optional: bool) -> None:
    if value is None and optional:
        return
    if value not in allowed:
        raise ValueError(f"{name} must be one of {', '.join(allowed)}; got {value!r}.")


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
        return cls(data["text"], _number(data.get("credit", 100.0), "credit"))


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
            _number(data["value"], "numeric value"),
            _number(data.get("tolerance", 0.0), "numeric tolerance"),
            str(data.get("unit") or ""),
        )

    def describe(self) -> str:
        """How a teacher reads it on the answer key: "3.14159 (± 0.0005)", "1 to 5"."""
        value = format_number(self.value)
        unit = f" {self.unit}" if self.unit else ""
        if not self.tolerance:
            return value + unit
        return f"{value}{unit} (± {format_number(self.tolerance)})"


def format_number(value: float) -> str:
    """A number as a teacher would write it: no trailing ".0", no float noise."""
    return f"{value:.10g}"


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


def _number(raw: Any, what: str) -> float:
    if isinstance(raw, bool) or not isinstance(raw, int | float | str):
        raise ValueError(f"{what} must be a number.")
    try:
        value = float(raw)
    except ValueError:
        raise ValueError(f"{what} must be a number; got {raw!r}.") from None
    except OverflowError:  # an integer of 400 digits
        raise ValueError(f"{what} must be a finite number.") from None
    if not math.isfinite(value):
        raise ValueError(f"{what} must be a finite number.")
    return value


@dataclass
class Flag:
    """A review reason raised by a metric (or by the bank, e.g. a near-duplicate)."""

    code: str
    message: str
    metric: str = ""
    severity: str = "warning"

    def __post_init__(self) -> None:
        _check_choice("severity", self.severity, SEVERITIES, optional=False)

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
            value = _number(value, f"score {name}: value")
        return cls(
            metric=str(name),
            value=value,
            values=dict(data.get("values") or {}),
            evidence=dict(data.get("evidence") or {}),
            model_config=dict(data.get("model_config") or {}),
            # An infinite time was stored, then exported as `Infinity` (not JSON).
            seconds=_number(data.get("seconds") or 0.0, f"score {name}: seconds"),
            not_scored_reason=_text(data, "not_scored_reason"),
            created=_text(data, "created"),
        )


#: Longer is a passage pasted into the question field, not a question.
MAX_STEM_CHARS = 2000
#: Options of one question. Exports letter past Z (AA, AB ...), but 300,001 options once
#: imported and a Word export of them ran past 300 s; no quiz asks a student to read 100.
MAX_OPTIONS = 100
#: Characters that reverse or isolate the direction of the text around them: "\u202eemoR"
#: shows as "Rome". In an option they make it look like another option, so they are refused
#: there (Arabic and Hebrew text needs none of them; the marks U+200E/U+200F are only ignored).
BIDI_CONTROLS: Final = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def option_identity(text: str) -> str:
    """What makes two options the same to a reader: NFKC (full-width and ligature forms,
    "ﬁ" and "fi"), no invisible format characters (zero-width space and joiners, soft
    hyphen, direction marks, BOM: Unicode category Cf), one space between words, any case.
    "Par\u200bis", "Pa\u00adris" and "PARIS" are all "paris"."""
    text = unicodedata.normalize("NFKC", text)
    text = "".join(ch for ch in text if unicodedata.category(ch) != "Cf")
    return " ".join(text.split()).casefold()


#: A multiple-choice item with one distractor (two options) is one a blind guess gets right
#: half the time. Not one of `Item.problems`: such an item is stored and scored, with a
#: warning wherever it is reviewed (the overall metric's flag, the editor, import).
ONE_DISTRACTOR: Final = "one-distractor"
ONE_DISTRACTOR_MESSAGE: Final = (
    "Only one distractor: a guess is right half the time; add one or two more."
)


def distractor_warning(item_type: str, distractors: int) -> str | None:
    """The warning for a multiple-choice item with a single distractor (None otherwise: with
    none at all `Item.problems` refuses it; true/false has two options by nature)."""
    if item_type == "mcq" and distractors == 1:
        return ONE_DISTRACTOR_MESSAGE
    return None


@dataclass(kw_only=True)
class Item:
    """A quiz item. For choice types, `options` is the presentation order with the key in it."""

    type: str
    stem: str
    key: str
    options: list[Option] = field(default_factory=list)
    target_fact: str = ""
    passage_id: int | None = None
    #: The passage itself when loaded (the bank fills it in `get_item`; JSONL carries its text).
    passage: Passage | None = None
    status: str = "draft"
    difficulty: str | None = None
    subject: str | None = None
    tags: list[str] = field(default_factory=list)
    reference: str | None = None
    provenance: dict[str, Any] = field(default_factory=dict)
    flags: list[Flag] = field(default_factory=list)
    #: Latest score per metric.
    scores: dict[str, ScoreResult] = field(default_factory=dict)
    #: Other candidates generated for the same target (overgenerate-and-rank), best first;
    #: the teacher can swap one in. They share the item's passage and are not bank items.
    alternatives: list[Item] = field(default_factory=list)
    #: Short-answer and cloze items: other accepted answers (with their credit) besides the key.
    accepted: list[Accepted] = field(default_factory=list)
    #: Short-answer items graded as a number: value with tolerance (the key is its text).
    numeric: NumericKey | None = None
    #: Images and sounds the question shows.
    media: list[Media] = field(default_factory=list)
    id: int | None = None
    created: str | None = None

    def __post_init__(self) -> None:
        _check_choice("type", self.type, ITEM_TYPES, optional=False)
        _check_choice("status", self.status, STATUSES, optional=False)
        _check_choice("difficulty", self.difficulty, DIFFICULTIES, optional=True)

    @staticmethod
    def make_options(key: str, distractors: list[str]) -> list[Option]:
        """Options with the key first; exporters shuffle for students, the bank keeps this order."""
        texts = [key, *distractors]
        return [Option(text, i == 0, i) for i, text in enumerate(texts)]

    @property
    def distractors(self) -> list[str]:
        return [o.text for o in sorted(self.options, key=lambda o: o.position) if not o.is_key]

    def problems(self) -> list[str]:
        """Why this item cannot be stored as it is (empty when it can)."""
        found = []
        if not self.stem.strip():
            found.append("The question is empty.")
        elif not any(ch.isalnum() for ch in self.stem):
            found.append("The question has no words.")
        elif len(self.stem) > MAX_STEM_CHARS:
            # Scoring time grows with the prompt: an 11,000-character stem took 15 minutes.
            found.append(
                f"The question is {len(self.stem):,} characters long; at most "
                f"{MAX_STEM_CHARS:,} are allowed."
            )
        if not self.key.strip():
            found.append("The answer is empty.")
        if self.type in CHOICE_TYPES and len(self.options) < 2:
            found.append(f"A {self.type} item needs at least two options.")
        if len(self.options) > MAX_OPTIONS:
            found.append(
                f"A question may have at most {MAX_OPTIONS} options; this one has "
                f"{len(self.options):,}."
            )
        if self.options:
            keys = [o for o in self.options if o.is_key]
            if len(keys) != 1:
                found.append(f"Exactly one option must be the key; {len(keys)} are.")
            elif keys[0].text != self.key:
                found.append("The key option's text differs from the answer.")
            texts = [option_identity(o.text) for o in self.options]
            if len(set(texts)) != len(texts):
                found.append("Two options have the same text.")
            if any(not t for t in texts):
                found.append("An option is empty.")
            hidden = sorted(
                {f"U+{ord(c):04X}" for o in self.options for c in o.text}
                & {f"U+{ord(c):04X}" for c in BIDI_CONTROLS}
            )
            if hidden:
                found.append(
                    f"An option holds invisible text-direction characters ({', '.join(hidden)}) "
                    "that make it show as something it is not."
                )
            if any(not -100 <= o.credit <= 100 for o in self.options):
                found.append("An option's credit must be between -100 and 100 percent.")
        if self.accepted and self.type not in ("short", "cloze"):
            found.append("Only short-answer and cloze items have other accepted answers.")
        if any(not a.text.strip() or not 0 < a.credit <= 100 for a in self.accepted):
            found.append("An accepted answer is empty or its credit is not in (0, 100].")
        if self.numeric is not None:
            if self.type != "short":
                found.append("Only short-answer items can have a numerical key.")
            elif parse_number(self.key) is None:
                found.append(f"The numerical key {self.key!r} is not a number.")
        return found

    def warnings(self) -> list[str]:
        """What is weak about this item though it can be stored (empty when nothing is)."""
        found = distractor_warning(self.type, len(self.distractors))
        return [found] if found else []

    def to_dict(self) -> dict[str, Any]:
        ordered = sorted(self.options, key=lambda o: o.position)
        data: dict[str, Any] = {
            "id": self.id,
            "type": self.type,
            "status": self.status,
            "subject": self.subject,
            "tags": list(self.tags),
            "difficulty": self.difficulty,
            "passage": self.passage.text if self.passage else None,
        }
        if self.passage:
            data["passage_title"] = self.passage.title
            data["passage_subject"] = self.passage.subject
            data["passage_source"] = self.passage.source_file
        data.update(
            {
                "fact": self.target_fact,
                "question": self.stem,
                "answer": self.key,
                "distractors": self.distractors,
                "options": [o.text for o in ordered],
                "reference": self.reference,
                "scores": {name: s.to_dict() for name, s in sorted(self.scores.items())},
                "flags": [f.to_dict() for f in self.flags],
                "provenance": self.provenance,
                "created": self.created,
            }
        )
        if self.alternatives:
            data["alternatives"] = [alt.alternative_dict() for alt in self.alternatives]
        if any(o.credit for o in ordered if not o.is_key):
            data["option_credits"] = [0.0 if o.is_key else o.credit for o in ordered]
        if self.accepted:
            data["accepted"] = [a.to_dict() for a in self.accepted]
        if self.numeric is not None:
            data["numeric"] = self.numeric.to_dict()
        if self.media:
            data["media"] = [m.to_dict() for m in self.media]
        return data

    def alternative_dict(self) -> dict[str, Any]:
        """The interchange form of an alternative: the item without passage, ids or history."""
        data = self.to_dict()
        for name in (
            "id",
            "passage",
            "passage_title",
            "passage_subject",
            "passage_source",
            "alternatives",
            "status",
            "created",
        ):
            data.pop(name, None)
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Item:
        """Build an item from the interchange format; raises ValueError naming the bad field.

        An `id` that is not an integer (an external tool's label) is kept as
        `provenance["source_id"]`, since bank ids are integers.
        """
        if not isinstance(data, dict):
            raise ValueError("an item must be a JSON object.")
        stem, key = data.get("question"), data.get("answer")
        if not isinstance(stem, str) or not stem.strip():
            raise ValueError("'question' is missing or empty.")
        if not isinstance(key, str) or not key.strip():
            raise ValueError("'answer' is missing or empty.")
        distractors = _str_list(data, "distractors")
        item_type = data.get("type") or ("mcq" if distractors else "short")
        provenance = data.get("provenance") or {}
        if not isinstance(provenance, dict):
            raise ValueError("'provenance' must be an object.")
        provenance = dict(provenance)
        item_id = _parse_id(data.get("id"), provenance)
        options = _options_from(data, key, distractors)
        scores_raw = data.get("scores") or {}
        if not isinstance(scores_raw, dict):
            raise ValueError("'scores' must be an object keyed by metric.")
        flags_raw = data.get("flags") or []
        if not isinstance(flags_raw, list):
            raise ValueError("'flags' must be a list.")
        passage = _passage_from(data)
        alternatives_raw = data.get("alternatives") or []
        if not isinstance(alternatives_raw, list):
            raise ValueError("'alternatives' must be a list of items.")
        _apply_credits(data, options)
        accepted_raw = data.get("accepted") or []
        if not isinstance(accepted_raw, list):
            raise ValueError("'accepted' must be a list.")
        media_raw = data.get("media") or []
        if not isinstance(media_raw, list):
            raise ValueError("'media' must be a list.")
        numeric = data.get("numeric")
        alternatives = []
        for alt in alternatives_raw:
            if not isinstance(alt, dict):
                raise ValueError("each alternative must be an item object.")
            alternatives.append(cls.from_dict({k: v for k, v in alt.items() if k != "id"}))
        return cls(
            id=item_id,
            type=str(item_type),
            stem=stem,
            key=key,
            options=options,
            target_fact=str(data.get("fact") or ""),
            passage=passage,
            status=str(data.get("status") or "draft"),
            difficulty=data.get("difficulty") or None,
            subject=_text(data, "subject") or (passage.subject if passage else None),
            tags=_str_list(data, "tags"),
            reference=_text(data, "reference") or None,
            provenance=provenance,
            flags=[Flag.from_dict(f) for f in flags_raw],
            scores={str(m): ScoreResult.from_dict(s, m) for m, s in scores_raw.items()},
            alternatives=alternatives,
            accepted=[Accepted.from_dict(a) for a in accepted_raw],
            numeric=NumericKey.from_dict(numeric) if numeric is not None else None,
            media=[Media.from_dict(m) for m in media_raw],
            created=_text(data, "created") or None,
        )


def parse_number(text: str) -> float | None:
    """A number as teachers write it ("3.5", "3,5", "-2e3"), else None."""
    cleaned = text.strip().replace(",", ".") if text.count(",") == 1 and "." not in text else text
    try:
        value = float(cleaned.strip())
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def _apply_credits(data: dict[str, Any], options: list[Option]) -> None:
    raw = data.get("option_credits")
    if raw is None:
        return
    if not isinstance(raw, list) or len(raw) != len(options):
        raise ValueError("'option_credits' must have one number per option.")
    for option, credit in zip(options, raw, strict=True):
        option.credit = 0.0 if option.is_key else _number(credit, "option credit")


def _text(data: dict[str, Any], name: str) -> str | None:
    """A field that holds text or nothing: a list or an object there (`"subject": ["a"]`)
    used to reach the bank and fail there, past the file's line numbers."""
    value = data.get(name)
    if value is not None and not isinstance(value, str):
        raise ValueError(f"{name!r} must be text.")
    return value


def _str_list(data: dict[str, Any], name: str) -> list[str]:
    value = data.get(name) or []
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ValueError(f"{name!r} must be a list of strings.")
    return list(value)


def _parse_id(raw: Any, provenance: dict[str, Any]) -> int | None:
    if raw is None or raw == "":
        return None
    if isinstance(raw, int) and not isinstance(raw, bool) and raw > 0:
        return raw
    if isinstance(raw, str) and raw.isdigit() and int(raw) > 0:
        return int(raw)
    provenance.setdefault("source_id", raw)
    return None


def _options_from(data: dict[str, Any], key: str, distractors: list[str]) -> list[Option]:
    texts = _str_list(data, "options")
    if not texts and not distractors and data.get("type") == "tf" and key in TF_ANSWERS:
        texts = list(TF_ANSWERS)
        distractors = [t for t in texts if t != key]
    if not texts:
        return Item.make_options(key, distractors) if distractors else []
    if key not in texts:
        raise ValueError("'options' must contain the answer.")
    key_at = texts.index(key)
    if sorted(t for i, t in enumerate(texts) if i != key_at) != sorted(distractors):
        raise ValueError("'options' must be the answer plus the distractors.")
    return [Option(text, i == key_at, i) for i, text in enumerate(texts)]


def _passage_from(data: dict[str, Any]) -> Passage | None:
    raw = data.get("passage")
    if raw is None or raw == "":
        return None
    if isinstance(raw, dict):  # tolerated: {"text": ..., "title": ...}
        if not isinstance(raw.get("text"), str):
            raise ValueError("'passage' object needs a 'text'.")
        return Passage(
            text=raw["text"],
            title=str(raw.get("title") or ""),
            subject=_text(raw, "subject"),
            source_file=_text(raw, "source_file"),
        )
    if not isinstance(raw, str):
        raise ValueError("'passage' must be the passage text.")
    return Passage(
        text=raw,
        title=str(data.get("passage_title") or ""),
        subject=_text(data, "passage_subject" if "passage_subject" in data else "subject"),
        source_file=_text(data, "passage_source"),
    )


@dataclass(kw_only=True)
class Review:
    """A teacher's decision on an item; the bank keeps every one."""

    item_id: int
    decision: str
    reason: str = ""
    note: str = ""
    created: str | None = None

    def __post_init__(self) -> None:
        _check_choice("decision", self.decision, tuple(DECISION_STATUS), optional=False)


@dataclass(kw_only=True)
class Quiz:
    """A named, ordered set of items."""

    name: str
    item_ids: list[int] = field(default_factory=list)
    id: int | None = None
    created: str | None = None
