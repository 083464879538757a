"""ItemBank's near-duplicate checks: items whose question and answer are cosine-close to
another's, from vectors stored in the bank (the vector maths is in dedupe.py)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from quizsmith.bank import dedupe as neardup
from quizsmith.bank import records
from quizsmith.bank.access import BankAccess
from quizsmith.bank.dedupe import DEFAULT_THRESHOLD, DuplicateMatch, EmbedFn
from quizsmith.domain import Flag, Item
from quizsmith.jobs import CancelToken, Job, Progress, run_to_end


class DuplicatesMixin(BankAccess):
    """Near-duplicate search and the item vectors it reads."""

    #: The embedder given to ItemBank, or None until the configured one is first needed.
    _embed: EmbedFn | None
    _embed_model: str | None

    # --- near-duplicates ----------------------------------------------------------------

    def near_duplicates(
        self,
        item: Item | str,
        *,
        threshold: float = DEFAULT_THRESHOLD,
        limit: int = 5,
    ) -> list[DuplicateMatch]:
        """Items in the bank whose question and answer are at least `threshold` cosine-close
        to `item`'s (or to a text), closest first; the item itself is never its own match."""
        return self.find_near_duplicates([item], threshold=threshold, limit=limit)[0]

    def find_near_duplicates(
        self,
        items: Sequence[Item | str],
        *,
        threshold: float = DEFAULT_THRESHOLD,
        limit: int = 5,
    ) -> list[list[DuplicateMatch]]:
        """`near_duplicates` for several items at once (one model call, one matrix load).
        Items of the bank without a vector are embedded and stored first (see
        `embed_missing`); a read-only bank compares with the vectors it already holds."""
        if not items:
            return []
        texts = [t if isinstance(t, str) else dedupe_text(t) for t in items]
        exclude = [{t.id} if isinstance(t, Item) and t.id is not None else set() for t in items]
        return self._near(texts, exclude, threshold, limit)[2]

    def _near(
        self, texts: Sequence[str], exclude: list[set[int]], threshold: float, limit: int
    ) -> tuple[str, np.ndarray, list[list[DuplicateMatch]]]:
        if not self.read_only:
            run_to_end(self.embed_missing())
        model, embed = self._embedder()
        vectors = neardup.as_matrix(embed(list(texts)), len(texts))
        with self.reading() as conn:
            ids, matrix = neardup.load(conn, model, int(vectors.shape[1]))
            found = neardup.nearest(
                ids, matrix, vectors, threshold=threshold, limit=limit, exclude=exclude
            )
            stems = {
                r[0]: r[1]
                for r in conn.execute(
                    "SELECT id, stem FROM items WHERE id IN (SELECT value FROM json_each(?))",
                    (records.id_list({i for row in found for i, _ in row}),),
                )
            }
        matches = [[DuplicateMatch(i, sim, stems.get(i, "")) for i, sim in row] for row in found]
        return model, vectors, matches

    def embed_missing(self, cancel: CancelToken | None = None, batch: int = 64) -> Job[int]:
        """Job: compute and store vectors for items that have none from the current model.
        Each batch is its own transaction, so cancelling keeps what was done."""
        token = cancel or CancelToken()
        model, embed = self._embedder()
        with self.reading() as conn:
            total = neardup.count_missing(conn, model)
        done = 0
        while done < total:
            token.raise_if_cancelled()
            with self.reading() as conn:
                todo = neardup.missing(conn, model, limit=batch)
            if not todo:
                break
            ids, texts = [t[0] for t in todo], [t[1] for t in todo]
            vectors = neardup.as_matrix(embed(texts), len(texts))
            with self.transaction() as conn:
                neardup.store(conn, model, ids, texts, vectors)
            done += len(todo)
            yield Progress("Embedding items for duplicate checks", min(done, total), total)
        return done

    def _embedder(self) -> tuple[str, EmbedFn]:
        if self._embed is None:
            from quizsmith.providers import provider_for_role

            provider = provider_for_role("embeddings")
            self._embed = provider.embed
            self._embed_model = self._embed_model or provider.info.label()
        model = self._embed_model or str(getattr(self._embed, "__qualname__", "custom"))
        return model, self._embed


def dedupe_text(item: Item) -> str:
    return neardup.embedding_text(item.stem, item.key)


def duplicate_flag(matches: Sequence[DuplicateMatch]) -> Flag:
    closest = ", ".join(f"#{m.item_id} ({m.similarity:.2f})" for m in matches)
    return Flag(
        neardup.FLAG_CODE,
        f"Very similar to item(s) already in the bank: {closest}.",
        neardup.FLAG_METRIC,
        "warning",
    )
