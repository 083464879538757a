"""What a teacher makes of the items: review decisions (the bank keeps every one) and
quizzes."""

from __future__ import annotations

from dataclasses import dataclass, field

from quizsmith.domain.checks import check_choice
from quizsmith.domain.vocabulary import DECISION_STATUS


@dataclass(kw_only=True)
class Review:
    """A teacher's decision on an item; the bank keeps every one."""

    item_id: int
    decision: str
    reason: str = ""
    note: str = ""
    created: str | None = None

    def __post_init__(self) -> None:
        check_choice("decision", self.decision, tuple(DECISION_STATUS), optional=False)


@dataclass(kw_only=True)
class Quiz:
    """A named, ordered set of items."""

    name: str
    item_ids: list[int] = field(default_factory=list)
    id: int | None = None
    created: str | None = None
