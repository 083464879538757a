"""ItemBank's record of a teacher's work on items: review decisions (each one kept) and the
editor's unsaved drafts (kept beside the item, never in it)."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence

from quizsmith.bank import records
from quizsmith.bank.access import BankAccess
from quizsmith.bank.errors import BankError
from quizsmith.domain import Review, utc_now


class ReviewsMixin(BankAccess):
    """Review decisions and editor drafts."""

    def review(self, item_id: int, decision: str, reason: str = "", note: str = "") -> Review:
        """Record a teacher's decision (accept, reject, needs-review) and set the item's
        status accordingly, in one transaction."""
        try:
            review = Review(item_id=item_id, decision=decision, reason=reason, note=note)
        except ValueError as exc:
            raise BankError(str(exc), "Accept, reject or mark as needing review.") from None
        with self.transaction() as conn:
            self._require_item(conn, item_id)
            return records.insert_review(conn, review, set_status=True)

    def reviews(self, item_id: int) -> list[Review]:
        with self.reading() as conn:
            return records.load_reviews(conn, [item_id])[item_id]

    def last_reviews(self, item_ids: Sequence[int]) -> dict[int, Review]:
        """The latest decision on each item that has one (one query; for lists that show
        why an item was rejected)."""
        with self.reading() as conn:
            found = records.load_reviews(conn, list(item_ids))
        return {item_id: reviews[-1] for item_id, reviews in found.items() if reviews}

    # --- editor drafts ------------------------------------------------------------------

    def save_draft(self, item_id: int, fields: Mapping[str, object]) -> str:
        """Keep an editor's unsaved edits of an item (JSON-able field values), replacing the
        previous draft; returns the time stored. The item itself is not changed."""
        saved = utc_now()
        text = json.dumps(dict(fields), ensure_ascii=False, sort_keys=True)
        with self.transaction() as conn:
            self._require_item(conn, item_id)
            conn.execute(
                "INSERT OR REPLACE INTO item_drafts (item_id, fields, saved) VALUES (?, ?, ?)",
                (item_id, text, saved),
            )
        return saved

    def get_draft(self, item_id: int) -> tuple[dict[str, object], str] | None:
        """The unsaved edits kept for an item and when they were stored, or None."""
        with self.reading() as conn:
            row = conn.execute(
                "SELECT fields, saved FROM item_drafts WHERE item_id = ?", (item_id,)
            ).fetchone()
        return (dict(json.loads(row[0])), str(row[1])) if row else None

    def delete_draft(self, item_id: int) -> None:
        """Forget an item's unsaved edits (after a save, or when the teacher discards them)."""
        with self.transaction() as conn:
            conn.execute("DELETE FROM item_drafts WHERE item_id = ?", (item_id,))
