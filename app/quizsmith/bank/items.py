"""ItemBank's passages and items: adding, loading, editing and deleting them, with their
tags, scores and flags (the stored history of each is kept by records.py)."""

from __future__ import annotations

from collections.abc import Sequence

from quizsmith.bank import dedupe as neardup
from quizsmith.bank import records, search
from quizsmith.bank.dedupe import DEFAULT_THRESHOLD
from quizsmith.bank.errors import BankError
from quizsmith.bank.near_duplicates import DuplicatesMixin, dedupe_text, duplicate_flag
from quizsmith.domain import Flag, Item, Passage, ScoreResult


class ItemsMixin(DuplicatesMixin):
    """Passages and items (an item added with `dedupe` is checked for near-duplicates)."""

    # --- passages ---------------------------------------------------------------------------

    def add_passage(self, passage: Passage) -> int:
        """Store a passage and return its id; a passage with the same text, title, subject and
        source already stored is reused (its id is returned), so texts are never duplicated."""
        if not passage.text.strip():
            raise BankError("The passage is empty.", "Paste or import the passage text.")
        with self.transaction() as conn:
            return records.ensure_passage(conn, passage)

    def get_passage(self, passage_id: int) -> Passage:
        with self.reading() as conn:
            found = records.load_passages(conn, [passage_id])
        if passage_id not in found:
            raise BankError(f"Passage {passage_id} is not in the bank.", "Refresh the list.")
        return found[passage_id]

    def passages(self, subject: str | None = None) -> list[Passage]:
        sql, params = f"{records.PASSAGE_SELECT} ORDER BY p.id", []
        if subject is not None:
            sql = f"{records.PASSAGE_SELECT} WHERE s.name = ? ORDER BY p.id"
            params = [" ".join(subject.split())]
        with self.reading() as conn:
            return [
                Passage(id=r[0], title=r[1], subject=r[2], text=r[3], source_file=r[4])
                for r in conn.execute(sql, params)
            ]

    def items_of_passage(self, passage_id: int) -> list[Item]:
        """Every item written about a passage, oldest first (a re-run of a batch generation
        uses them to continue where it stopped)."""
        with self.reading() as conn:
            ids = [
                r[0]
                for r in conn.execute(
                    "SELECT id FROM items WHERE passage_id = ? ORDER BY id", (passage_id,)
                )
            ]
            return records.load_items(conn, ids, with_passages=False)

    def update_passage(self, passage: Passage) -> None:
        if passage.id is None:
            raise BankError("The passage has no id, so it is not in the bank.", "Add it instead.")
        with self.transaction() as conn:
            cur = conn.execute(
                "UPDATE passages SET title = ?, subject_id = ?, text = ?, hash = ?, "
                "source_file = ? WHERE id = ?",
                (
                    passage.title,
                    records.name_id(conn, "subjects", passage.subject, create=True),
                    passage.text,
                    passage.hash,
                    passage.source_file,
                    passage.id,
                ),
            )
            if cur.rowcount == 0:
                raise BankError(f"Passage {passage.id} is not in the bank.", "Refresh the list.")

    def delete_passage(self, passage_id: int) -> None:
        with self.transaction() as conn:
            used = conn.execute(
                "SELECT count(*) FROM items WHERE passage_id = ?", (passage_id,)
            ).fetchone()[0]
            if used:
                raise BankError(
                    f"Passage {passage_id} is used by {used} item(s).",
                    "Delete those items or attach them to another passage first.",
                )
            conn.execute("DELETE FROM passages WHERE id = ?", (passage_id,))

    # --- items ------------------------------------------------------------------------------

    def add_item(
        self, item: Item, *, dedupe: bool = False, threshold: float = DEFAULT_THRESHOLD
    ) -> int:
        """Store a new item (always under a new id) and return the id. With `dedupe`, items
        already in the bank at or above `threshold` similarity are recorded as a
        "near-duplicate" flag on the new item (see `near_duplicates`)."""
        return self.add_items([item], dedupe=dedupe, threshold=threshold)[0]

    def add_items(
        self, items: Sequence[Item], *, dedupe: bool = False, threshold: float = DEFAULT_THRESHOLD
    ) -> list[int]:
        """Store several items in one transaction (all or none); returns their ids in order."""
        for item in items:
            records.check_item(item)
        texts = [dedupe_text(item) for item in items]
        if dedupe and items:
            # Embedding takes model time: done before the write lock is taken.
            model, vectors, matches = self._near(texts, [set() for _ in items], threshold, 3)
        with self.transaction() as conn:
            ids = [records.insert_item(conn, item) for item in items]
            search.reindex_items(conn, ids)
            if dedupe and items:
                neardup.store(conn, model, ids, texts, vectors)
                for item_id, found in zip(ids, matches, strict=True):
                    if found:
                        records.write_flags(
                            conn, item_id, [duplicate_flag(found)], metric=neardup.FLAG_METRIC
                        )
        return ids

    def get_item(self, item_id: int) -> Item:
        """The item with its options, tags, flags, latest scores and passage."""
        found = self.get_items([item_id])
        if not found:
            raise records.missing_item(item_id)
        return found[0]

    def get_items(self, item_ids: Sequence[int], *, with_passages: bool = True) -> list[Item]:
        """Items in the given order; ids not in the bank are left out."""
        with self.reading() as conn:
            return records.load_items(conn, list(item_ids), with_passages=with_passages)

    def same_items(self, items: Sequence[Item]) -> list[int | None]:
        """For each item, the id of a bank item with the same type, question and answer (an
        import of a file already imported), else None."""
        with self.reading() as conn:
            return records.same_item_ids(conn, items)

    def update_item(self, item: Item) -> None:
        """Save an edited item's content. Scores, flags and reviews keep their own history
        and are changed through `add_score`, `set_flags` and `review`."""
        with self.transaction() as conn:
            records.update_item(conn, item)
            search.reindex_items(conn, [int(item.id or 0)])

    def delete_items(self, item_ids: Sequence[int]) -> int:
        """Delete items with their options, scores, reviews, flags and quiz places; returns
        how many existed."""
        with self.transaction() as conn:
            cur = conn.execute(
                "DELETE FROM items WHERE id IN (SELECT value FROM json_each(?))",
                (records.id_list(item_ids),),
            )
            return cur.rowcount

    def delete_item(self, item_id: int) -> None:
        if not self.delete_items([item_id]):
            raise records.missing_item(item_id)

    def set_tags(self, item_id: int, tags: Sequence[str]) -> None:
        with self.transaction() as conn:
            self._require_item(conn, item_id)
            records.write_tags(conn, item_id, tags)

    def add_score(self, item_id: int, score: ScoreResult) -> int:
        """Record a metric's result; earlier results stay in the history."""
        with self.transaction() as conn:
            self._require_item(conn, item_id)
            return records.insert_score(conn, item_id, score)

    def score_history(self, item_id: int, metric: str | None = None) -> list[ScoreResult]:
        """Every score of the item (of one metric, if given), oldest first."""
        with self.reading() as conn:
            return records.score_history(conn, [item_id], metric)[item_id]

    def set_flags(self, item_id: int, flags: Sequence[Flag], metric: str | None = None) -> None:
        """Replace the item's flags: only those of `metric` when given (a metric re-run
        replaces its own flags and leaves the others' alone), else all of them."""
        with self.transaction() as conn:
            self._require_item(conn, item_id)
            records.write_flags(conn, item_id, flags, metric)

    def save_score(self, item_id: int, score: ScoreResult, flags: Sequence[Flag]) -> int:
        """Record a metric's result and replace that metric's flags with `flags`, in one
        transaction: a failure between the two writes must not leave a new score beside
        flags that describe the previous one. Returns the score's id."""
        with self.transaction() as conn:
            self._require_item(conn, item_id)
            score_id = records.insert_score(conn, item_id, score)
            records.write_flags(conn, item_id, flags, score.metric)
            return score_id
