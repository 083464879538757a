"""The result cache: one SQLite file, one row per (record key, metric, configuration key).

Every result is committed as soon as it exists, so an interrupted run (Ctrl-C, a crash, a
power cut) keeps everything it finished and the next run with the same dataset, metrics and
models continues where it stopped. The record key is a hash of the item's content and
references, the configuration key a hash of what determines the metric's output (models,
options, seed), so a changed model or option is scored afresh instead of served stale.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from quizsmith.domain import ScoreResult, utc_now
from quizsmith.errors import QuizsmithError

CACHE_FILE = "evaluation-cache.sqlite"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS results (
    record_key TEXT NOT NULL,
    metric TEXT NOT NULL,
    config_key TEXT NOT NULL,
    result TEXT NOT NULL,
    created TEXT NOT NULL,
    PRIMARY KEY (record_key, metric, config_key)
)
"""


class ResultCache:
    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self._conn = sqlite3.connect(str(path), timeout=30.0)
            self._conn.execute("PRAGMA journal_mode = WAL")
            self._conn.execute(_SCHEMA)
            self._conn.commit()
        except sqlite3.DatabaseError as exc:
            raise QuizsmithError(
                f"The evaluation cache {path} cannot be opened: {exc}.",
                "Delete that file (results are recomputed) or pass another cache folder.",
            ) from None

    @classmethod
    def in_dir(cls, folder: Path) -> ResultCache:
        return cls(Path(folder) / CACHE_FILE)

    def get(self, record_key: str, metric: str, config_key: str) -> ScoreResult | None:
        row = self._conn.execute(
            "SELECT result FROM results WHERE record_key = ? AND metric = ? AND config_key = ?",
            (record_key, metric, config_key),
        ).fetchone()
        if row is None:
            return None
        try:
            return ScoreResult.from_dict(json.loads(row[0]))
        except (ValueError, TypeError):
            return None  # unreadable row: score it again

    def put(self, record_key: str, config_key: str, result: ScoreResult) -> None:
        self._conn.execute(
            "INSERT OR REPLACE INTO results VALUES (?, ?, ?, ?, ?)",
            (
                record_key,
                result.metric,
                config_key,
                json.dumps(result.to_dict(), ensure_ascii=False),
                utc_now(),
            ),
        )
        self._conn.commit()

    def count(self) -> int:
        return int(self._conn.execute("SELECT count(*) FROM results").fetchone()[0])

    def close(self) -> None:
        self._conn.close()
