"""`Item`, a quiz item, and the rules it is stored by: `Item.problems` (what refuses it),
`Item.warnings` (what is weak) and what makes two options the same. `Item.to_dict` /
`Item.from_dict` define the JSONL interchange format (see the package docstring)."""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass, field
from typing import Any, Final

from quizsmith.domain.checks import as_number, check_choice, optional_text, str_list
from quizsmith.domain.parts import (
    Accepted,
    Flag,
    Media,
    NumericKey,
    Option,
    Passage,
    ScoreResult,
)
from quizsmith.domain.vocabulary import (
    CHOICE_TYPES,
    DIFFICULTIES,
    ITEM_TYPES,
    STATUSES,
    TF_ANSWERS,
    parse_number,
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
        check_choice("type", self.type, ITEM_TYPES, optional=False)
        check_choice("status", self.status, STATUSES, optional=False)
        check_choice("difficulty", self.difficulty, DIFFICULTIES, optional=True)

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
        distractors = str_list(data, "distractors")
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
            subject=optional_text(data, "subject") or (passage.subject if passage else None),
            tags=str_list(data, "tags"),
            reference=optional_text(data, "reference") or None,
            provenance=provenance,
            flags=[Flag.from_dict(f) for f in flags_raw],
            scores={str(m): ScoreResult.from_dict(s, m) for m, s in scores_raw.items()},
            alternatives=alternatives,
            accepted=[Accepted.from_dict(a) for a in accepted_raw],
            numeric=NumericKey.from_dict(numeric) if numeric is not None else None,
            media=[Media.from_dict(m) for m in media_raw],
            created=optional_text(data, "created") or None,
        )


def _apply_credits(data: dict[str, Any], options: list[Option]) -> None:
    raw = data.get("option_credits")
    if raw is None:
        return
    if not isinstance(raw, list) or len(raw) != len(options):
        raise ValueError("'option_credits' must have one number per option.")
    for option, credit in zip(options, raw, strict=True):
        option.credit = 0.0 if option.is_key else as_number(credit, "option credit")


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
    texts = str_list(data, "options")
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
            subject=optional_text(raw, "subject"),
            source_file=optional_text(raw, "source_file"),
        )
    if not isinstance(raw, str):
        raise ValueError("'passage' must be the passage text.")
    return Passage(
        text=raw,
        title=str(data.get("passage_title") or ""),
        subject=optional_text(data, "passage_subject" if "passage_subject" in data else "subject"),
        source_file=optional_text(data, "passage_source"),
    )
