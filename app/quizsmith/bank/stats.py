"""Statistics over the bank that the metrics need.

NACo's complexity score compares an item's reasoning-step count c with the expected count E
for its subject: c_score = min(c/E, E/c) (naco paper, section 3). E is the most common step
count among the teacher's accepted items of that subject, so each subject is judged against
its own standard rather than against SQuAD's. The NACo metric records the count it found
as `values["steps"]` of its score (`STEPS_KEY` of metric `NACO_METRIC`); the latest NACo
score of each accepted item counts.
"""

from __future__ import annotations

import sqlite3

NACO_METRIC = "naco"
STEPS_KEY = "steps"
#: The shipped E, as measured on SQuAD (DESIGN.md, NACo).
DEFAULT_EXPECTED_STEPS = 2
#: Fewer accepted items than this give too noisy a mode; the default is used instead.
MIN_ITEMS = 10


def step_histogram(conn: sqlite3.Connection, subject: str | None) -> dict[int, int]:
    """How many accepted items (of `subject`, or of the whole bank when None) have each
    reasoning-step count. Fractional counts (averaged over samples) are rounded half away
    from zero; counts below 1 are left out, since E = 0 would make c/E undefined."""
    sql = (
        "SELECT CAST(round(json_extract(s.values_json, '$.' || ?)) AS INTEGER) AS steps, "
        "count(*) FROM items i "
        "JOIN latest_scores l ON l.item_id = i.id AND l.metric = ? "
        "JOIN scores s ON s.id = l.score_id "
        "WHERE i.status = 'accepted' "
        "AND json_type(s.values_json, '$.' || ?) IN ('integer', 'real') "
    )
    params: list[object] = [STEPS_KEY, NACO_METRIC, STEPS_KEY]
    if subject is not None:
        sql += "AND i.subject_id = (SELECT id FROM subjects WHERE name = ?) "
        params.append(" ".join(subject.split()))
    sql += "GROUP BY steps HAVING steps >= 1 ORDER BY steps"
    return {int(steps): int(n) for steps, n in conn.execute(sql, params)}


def expected_steps(histogram: dict[int, int], min_items: int, default: int) -> int:
    """The mode of the histogram, or `default` when it holds fewer than `min_items` items.
    A tie goes to the smaller count, so the answer never depends on row order; the smaller
    count is also the one nearer the shipped default of 2."""
    if sum(histogram.values()) < min_items:
        return default
    return min(histogram, key=lambda steps: (-histogram[steps], steps))
