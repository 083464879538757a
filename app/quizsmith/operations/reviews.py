"""Recording a teacher's decision on items (accept, reject, needs-review)."""

from __future__ import annotations

from collections.abc import Sequence

from quizsmith.bank.store import ItemBank
from quizsmith.operations.changes import OpChanges


def record_review(
    bank: ItemBank, item_ids: Sequence[int], decision: str, reason: str = "", note: str = ""
) -> OpChanges:
    """Record the same decision on each item, setting its status (`DECISION_STATUS`). One
    transaction: an unknown item or decision records nothing at all, so a batch is never
    half decided."""
    ids = list(item_ids)
    with bank.transaction():
        for item_id in ids:
            bank.review(item_id, decision, reason, note)
    return OpChanges(items=frozenset(ids), reviews=True)
