"""ItemBank's quizzes: named, ordered sets of the bank's items."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from quizsmith.bank import records
from quizsmith.bank.access import BankAccess
from quizsmith.bank.errors import BankError
from quizsmith.domain import Quiz, utc_now


class QuizzesMixin(BankAccess):
    """Creating, renaming, filling, ordering and deleting quizzes."""

    # --- quizzes ------------------------------------------------------------------------

    def create_quiz(self, name: str, item_ids: Sequence[int] = ()) -> int:
        clean = self._quiz_name(name)
        with self.transaction() as conn:
            if conn.execute("SELECT 1 FROM quizzes WHERE name = ?", (clean,)).fetchone():
                raise BankError(f"A quiz named {clean!r} already exists.", "Choose another name.")
            quiz_id = int(
                conn.execute(
                    "INSERT INTO quizzes (name, created) VALUES (?, ?)", (clean, utc_now())
                ).lastrowid
                or 0
            )
            self._write_quiz_order(conn, quiz_id, list(item_ids))
            return quiz_id

    def rename_quiz(self, quiz_id: int, name: str) -> None:
        clean = self._quiz_name(name)
        with self.transaction() as conn:
            other = conn.execute("SELECT id FROM quizzes WHERE name = ?", (clean,)).fetchone()
            if other is not None and other[0] != quiz_id:
                raise BankError(f"A quiz named {clean!r} already exists.", "Choose another name.")
            if (
                conn.execute("UPDATE quizzes SET name = ? WHERE id = ?", (clean, quiz_id)).rowcount
                == 0
            ):
                raise _missing_quiz(quiz_id)

    def delete_quiz(self, quiz_id: int) -> None:
        """Delete the quiz; its items stay in the bank."""
        with self.transaction() as conn:
            if conn.execute("DELETE FROM quizzes WHERE id = ?", (quiz_id,)).rowcount == 0:
                raise _missing_quiz(quiz_id)

    def get_quiz(self, quiz_id: int) -> Quiz:
        with self.reading() as conn:
            found = records.load_quizzes(conn, quiz_id)
        if not found:
            raise _missing_quiz(quiz_id)
        return found[0]

    def quizzes(self) -> list[Quiz]:
        with self.reading() as conn:
            return records.load_quizzes(conn)

    def add_to_quiz(
        self, quiz_id: int, item_ids: Sequence[int], position: int | None = None
    ) -> None:
        """Insert items at `position` (default: the end); items already in the quiz move."""
        with self.transaction() as conn:
            order = self._quiz_order(conn, quiz_id)
            adding = list(dict.fromkeys(item_ids))
            rest = [i for i in order if i not in set(adding)]
            at = len(rest) if position is None else max(0, min(position, len(rest)))
            self._write_quiz_order(conn, quiz_id, rest[:at] + adding + rest[at:])

    def remove_from_quiz(self, quiz_id: int, item_ids: Sequence[int]) -> None:
        with self.transaction() as conn:
            drop = set(item_ids)
            order = self._quiz_order(conn, quiz_id)
            self._write_quiz_order(conn, quiz_id, [i for i in order if i not in drop])

    def reorder_quiz(self, quiz_id: int, item_ids: Sequence[int]) -> None:
        """Set the quiz's order; `item_ids` must be exactly the quiz's items."""
        with self.transaction() as conn:
            order = self._quiz_order(conn, quiz_id)
            if sorted(order) != sorted(item_ids):
                raise BankError(
                    "The new order must list exactly the quiz's items, each once.",
                    "Refresh the quiz and try again.",
                )
            self._write_quiz_order(conn, quiz_id, list(item_ids))

    @staticmethod
    def _quiz_name(name: str) -> str:
        clean = records.clean_name(name)
        if clean is None:
            raise BankError("A quiz needs a name.", "Type a name for the quiz.")
        return clean

    def _quiz_order(self, conn: sqlite3.Connection, quiz_id: int) -> list[int]:
        if conn.execute("SELECT 1 FROM quizzes WHERE id = ?", (quiz_id,)).fetchone() is None:
            raise _missing_quiz(quiz_id)
        return [
            r[0]
            for r in conn.execute(
                "SELECT item_id FROM quiz_items WHERE quiz_id = ? ORDER BY position, item_id",
                (quiz_id,),
            )
        ]

    def _write_quiz_order(self, conn: sqlite3.Connection, quiz_id: int, order: list[int]) -> None:
        order = list(dict.fromkeys(order))
        present = {
            r[0]
            for r in conn.execute(
                "SELECT id FROM items WHERE id IN (SELECT value FROM json_each(?))",
                (records.id_list(order),),
            )
        }
        absent = [i for i in order if i not in present]
        if absent:
            raise BankError(
                f"Item(s) {', '.join(map(str, absent))} are not in the bank.", "Refresh the list."
            )
        conn.execute("DELETE FROM quiz_items WHERE quiz_id = ?", (quiz_id,))
        conn.executemany(
            "INSERT INTO quiz_items (quiz_id, item_id, position) VALUES (?, ?, ?)",
            [(quiz_id, item_id, pos) for pos, item_id in enumerate(order)],
        )


def _missing_quiz(quiz_id: int) -> BankError:
    return BankError(f"Quiz {quiz_id} is not in the bank.", "Refresh the list of quizzes.")
