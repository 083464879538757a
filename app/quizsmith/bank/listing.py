"""ItemBank's search and listings (full-text search with filters, counts, subjects, tags)
and the statistics the metrics read (NACo's expected complexity)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from quizsmith.bank import records, search, stats
from quizsmith.bank.access import BankAccess
from quizsmith.domain import Item


class ListingMixin(BankAccess):
    """Search, listings and statistics: reads only."""

    # --- search and listing -------------------------------------------------------------

    def search(
        self,
        query: str = "",
        *,
        status: str | Sequence[str] | None = None,
        subject: str | None = None,
        tag: str | None = None,
        min_scores: Mapping[str, float] | None = None,
        max_scores: Mapping[str, float] | None = None,
        flagged: bool | None = None,
        sort_by: str = "created",
        descending: bool = True,
        limit: int | None = 200,
        offset: int = 0,
        with_passages: bool = False,
    ) -> list[Item]:
        """Items matching the full-text `query` (any text; see `search.fts_query`) and every
        filter given, sorted by "created", "updated", "id" or a metric's latest value
        (unscored items last). Score thresholds are inclusive. Passages are loaded only when
        asked, since a listing does not show them."""
        filters = search.Filters(
            query, status, subject, tag, min_scores or {}, max_scores or {}, flagged
        )
        with self.reading() as conn:
            ids = search.search_ids(
                conn, filters, sort_by=sort_by, descending=descending, limit=limit, offset=offset
            )
            return records.load_items(conn, ids, with_passages=with_passages)

    def count(
        self,
        query: str = "",
        *,
        status: str | Sequence[str] | None = None,
        subject: str | None = None,
        tag: str | None = None,
        min_scores: Mapping[str, float] | None = None,
        max_scores: Mapping[str, float] | None = None,
        flagged: bool | None = None,
    ) -> int:
        """How many items `search` with the same arguments would find without a limit."""
        filters = search.Filters(
            query, status, subject, tag, min_scores or {}, max_scores or {}, flagged
        )
        with self.reading() as conn:
            return search.count(conn, filters)

    def status_counts(self) -> dict[str, int]:
        with self.reading() as conn:
            return dict(conn.execute("SELECT status, count(*) FROM items GROUP BY status"))

    def subjects(self) -> list[str]:
        with self.reading() as conn:
            return [r[0] for r in conn.execute("SELECT name FROM subjects ORDER BY name")]

    def tags(self) -> list[str]:
        with self.reading() as conn:
            return [r[0] for r in conn.execute("SELECT name FROM tags ORDER BY name")]

    # --- statistics for the metrics -----------------------------------------------------

    def expected_complexity(
        self,
        subject: str | None,
        min_items: int = stats.MIN_ITEMS,
        default: int = stats.DEFAULT_EXPECTED_STEPS,
    ) -> int:
        """NACo's expected reasoning-step count E for `subject` (None: the whole bank): the
        mode over accepted items' latest NACo "steps" when at least `min_items` have one,
        else `default`. Ties go to the smaller count."""
        return stats.expected_steps(self.complexity_histogram(subject), min_items, default)

    def complexity_histogram(self, subject: str | None) -> dict[int, int]:
        with self.reading() as conn:
            return stats.step_histogram(conn, subject)
