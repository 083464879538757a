"""Which items an export takes from the bank: a quiz (in its order), or every item with a
status (default "accepted": only what the teacher approved leaves the bank), or all."""

from __future__ import annotations

from typing import TYPE_CHECKING

from quizsmith.domain import STATUSES, Item, Review
from quizsmith.formats.base import FormatError

if TYPE_CHECKING:
    from quizsmith.bank import ItemBank

DEFAULT_STATUS = "accepted"


def select_items(
    bank: ItemBank, *, quiz: str | None = None, status: str | None = None
) -> list[Item]:
    """Items with their passages, in quiz order or in bank order (by id).

    `status` is a status name or "all". With `quiz` and no `status` every item of the quiz is
    taken (the teacher chose them); without `quiz` the default is accepted items only.
    """
    if status is not None and status != "all" and status not in STATUSES:
        raise FormatError(f"Unknown status {status!r}.", f"Use one of: all, {', '.join(STATUSES)}.")
    if quiz is not None:
        found = [q for q in bank.quizzes() if q.name == quiz]
        if not found:
            known = ", ".join(repr(q.name) for q in bank.quizzes()) or "none"
            raise FormatError(
                f"There is no quiz named {quiz!r} in {bank.path.name}.",
                f"Quizzes in this bank: {known}.",
            )
        items = bank.get_items(found[0].item_ids, with_passages=True)
        if status not in (None, "all"):
            items = [i for i in items if i.status == status]
        return items
    wanted = DEFAULT_STATUS if status is None else status
    return bank.search(
        status=None if wanted == "all" else wanted,
        sort_by="id",
        descending=False,
        limit=None,
        with_passages=True,
    )


def latest_reviews(bank: ItemBank, items: list[Item]) -> dict[int, Review]:
    """The newest review of each item that has one (for the teacher report)."""
    latest = {}
    for item in items:
        if item.id is None:
            continue
        reviews = bank.reviews(item.id)
        if reviews:
            latest[item.id] = reviews[-1]
    return latest
