"""What a quiz is made of: passages, items, options, scores, flags, reviews and quizzes.

Plain dataclasses with no knowledge of storage, models or Qt; generation, the metrics, the item
bank, the exporters and the GUI all speak them. `Item.to_dict` / `Item.from_dict` define the
item interchange format of DESIGN.md ("Command line"): one JSON object per line with
`id, type, passage, fact, question, answer, distractors[], reference, scores{metric: {...}},
flags[], provenance{}` plus `status, subject, tags, difficulty`, and `options[]` (the
presentation order, key included) and `created` so that nothing is lost on a round trip.

The names below are the domain's interface: import them from `quizsmith.domain`. They live in
vocabulary.py (the lists of types, statuses and decisions; timestamps and numbers), parts.py
(passage, option, accepted answer, numerical key, media, flag, score), item.py (`Item` and the
rules it is stored by), review.py (`Review`, `Quiz`); checks.py holds the field checks their
readers share.

Standard library only: this package is imported by everything, including `quizsmith --help`.
"""

from __future__ import annotations

from quizsmith.domain.item import (
    BIDI_CONTROLS,
    MAX_OPTIONS,
    MAX_STEM_CHARS,
    ONE_DISTRACTOR,
    ONE_DISTRACTOR_MESSAGE,
    Item,
    distractor_warning,
    option_identity,
)
from quizsmith.domain.parts import (
    Accepted,
    Flag,
    Media,
    NumericKey,
    Option,
    Passage,
    ScoreResult,
)
from quizsmith.domain.review import Quiz, Review
from quizsmith.domain.vocabulary import (
    CHOICE_TYPES,
    DECISION_STATUS,
    DIFFICULTIES,
    ITEM_TYPE_NAMES,
    ITEM_TYPES,
    SEVERITIES,
    STATUSES,
    TF_ANSWERS,
    format_number,
    parse_number,
    text_hash,
    utc_now,
)

__all__ = [
    "BIDI_CONTROLS",
    "CHOICE_TYPES",
    "DECISION_STATUS",
    "DIFFICULTIES",
    "ITEM_TYPES",
    "ITEM_TYPE_NAMES",
    "MAX_OPTIONS",
    "MAX_STEM_CHARS",
    "ONE_DISTRACTOR",
    "ONE_DISTRACTOR_MESSAGE",
    "SEVERITIES",
    "STATUSES",
    "TF_ANSWERS",
    "Accepted",
    "Flag",
    "Item",
    "Media",
    "NumericKey",
    "Option",
    "Passage",
    "Quiz",
    "Review",
    "ScoreResult",
    "distractor_warning",
    "format_number",
    "option_identity",
    "parse_number",
    "text_hash",
    "utc_now",
]
