"""What the parts of `ItemBank` rely on: its file, and the transactions and readers that
`store.ItemBank` defines (one writer under a lock, a reader per thread).

Each group of ItemBank's methods (items.py, reviews.py, listing.py, quizzes.py,
near_duplicates.py, interchange.py) is a mixin of this class, so `ItemBank` stays the one
entry point to stored data while each group reads on its own.
"""

from __future__ import annotations

import sqlite3
from contextlib import AbstractContextManager
from pathlib import Path

from quizsmith.bank import records


class BankAccess:
    """The connection side of ItemBank, as its method groups see it."""

    path: Path
    read_only: bool

    def transaction(
        self, timeout: float | None = None
    ) -> AbstractContextManager[sqlite3.Connection]:
        """One user action on the writer (store.ItemBank.transaction)."""
        raise NotImplementedError

    def reading(self) -> AbstractContextManager[sqlite3.Connection]:
        """A consistent snapshot for several queries (store.ItemBank.reading)."""
        raise NotImplementedError

    @staticmethod
    def _require_item(conn: sqlite3.Connection, item_id: int) -> None:
        if conn.execute("SELECT 1 FROM items WHERE id = ?", (item_id,)).fetchone() is None:
            raise records.missing_item(item_id)
