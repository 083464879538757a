"""Near-duplicate detection with sentence embeddings stored per item.

Each item is embedded as its question and answer together ("stem\\nkey"): two items asking the
same thing in other words, with the same answer, land close together, while the same question
frame about a different fact ("capital of France?" / "capital of Spain?") is pulled apart by
the answer. Vectors are L2-normalised float32 BLOBs, so similarity is a dot product, done
with numpy over every stored vector of the same model (100k x 384 floats is ~150 MB and a
few tens of milliseconds per batch of new items).

The default threshold, 0.92 cosine, is deliberately strict: a warning should mean "this is
the same item". Measured with all-MiniLM-L6-v2 on "stem\nkey" texts: a close rewording of a
question with the same answer scores 0.96, looser paraphrases 0.90-0.91, the same question with
a different answer 0.81, the same frame about another fact ("capital of Spain?") 0.51 and
unrelated items below 0.2. It is an argument wherever it is used, so a teacher's setting can
lower it (0.88 also catches loose paraphrases).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from quizsmith.bank.errors import BankError
from quizsmith.bank.records import id_list

DEFAULT_THRESHOLD = 0.92
FLAG_CODE = "near-duplicate"
FLAG_METRIC = "dedupe"

EmbedFn = Callable[[Sequence[str]], list[list[float]]]


@dataclass(frozen=True)
class DuplicateMatch:
    """An item already in the bank that is very close to the one being checked."""

    item_id: int
    similarity: float
    stem: str


def embedding_text(stem: str, key: str) -> str:
    return f"{stem.strip()}\n{key.strip()}"


def as_matrix(vectors: Sequence[Sequence[float]], expected: int) -> np.ndarray:
    """Float32 rows of unit length; a provider that returns the wrong shape is refused."""
    matrix = np.asarray(vectors, dtype=np.float32)
    if matrix.ndim != 2 or matrix.shape[0] != expected or matrix.shape[1] == 0:
        raise BankError(
            f"The embedding model returned {matrix.shape} for {expected} texts.",
            "Check the embeddings model in the settings.",
        )
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    if not np.all(np.isfinite(norms)) or np.any(norms == 0):
        raise BankError(
            "The embedding model returned an empty vector.",
            "Check the embeddings model in the settings.",
        )
    result: np.ndarray = matrix / norms
    return result


def missing(
    conn: sqlite3.Connection, model: str, limit: int | None = None
) -> list[tuple[int, str]]:
    """Items with no vector from `model` (new, edited since, or embedded by another model)."""
    sql = (
        "SELECT i.id, i.stem, i.key FROM items i LEFT JOIN item_embeddings e "
        "ON e.item_id = i.id AND e.model = ? WHERE e.item_id IS NULL ORDER BY i.id"
    )
    params: list[object] = [model]
    if limit is not None:
        sql += " LIMIT ?"
        params.append(limit)
    return [(r[0], embedding_text(r[1], r[2])) for r in conn.execute(sql, params)]


def count_missing(conn: sqlite3.Connection, model: str) -> int:
    return int(
        conn.execute(
            "SELECT count(*) FROM items i LEFT JOIN item_embeddings e "
            "ON e.item_id = i.id AND e.model = ? WHERE e.item_id IS NULL",
            (model,),
        ).fetchone()[0]
    )


def store(
    conn: sqlite3.Connection,
    model: str,
    item_ids: Sequence[int],
    texts: Sequence[str],
    matrix: np.ndarray,
) -> int:
    """Save vectors computed outside the write lock, skipping any item whose text changed
    (or that was deleted) meanwhile; returns how many were stored."""
    current = {
        r[0]: embedding_text(r[1], r[2])
        for r in conn.execute(
            "SELECT id, stem, key FROM items WHERE id IN (SELECT value FROM json_each(?))",
            (id_list(item_ids),),
        )
    }
    rows = [
        (item_id, model, int(matrix.shape[1]), matrix[row].astype(np.float32).tobytes())
        for row, (item_id, text) in enumerate(zip(item_ids, texts, strict=True))
        if current.get(item_id) == text
    ]
    conn.executemany(
        "INSERT OR REPLACE INTO item_embeddings (item_id, model, dim, vector) VALUES (?, ?, ?, ?)",
        rows,
    )
    return len(rows)


def load(conn: sqlite3.Connection, model: str, dim: int) -> tuple[np.ndarray, np.ndarray]:
    """(ids, matrix) of every stored vector of `model`."""
    ids: list[int] = []
    blobs: list[bytes] = []
    for item_id, blob in conn.execute(
        "SELECT item_id, vector FROM item_embeddings WHERE model = ? AND dim = ? ORDER BY item_id",
        (model, dim),
    ):
        ids.append(item_id)
        blobs.append(blob)
    matrix = np.frombuffer(b"".join(blobs), dtype=np.float32).reshape(len(ids), dim)
    return np.asarray(ids, dtype=np.int64), matrix


def nearest(
    ids: np.ndarray,
    matrix: np.ndarray,
    queries: np.ndarray,
    *,
    threshold: float,
    limit: int,
    exclude: Iterable[Iterable[int]] = (),
) -> list[list[tuple[int, float]]]:
    """For each query row, the stored items at or above `threshold`, closest first."""
    excluded = [set(e) for e in exclude] or [set() for _ in range(len(queries))]
    if len(ids) == 0:
        return [[] for _ in range(len(queries))]
    similarities = queries @ matrix.T
    out: list[list[tuple[int, float]]] = []
    for row, skip in zip(similarities, excluded, strict=True):
        hits = np.flatnonzero(row >= threshold)
        ranked = hits[np.argsort(-row[hits], kind="stable")]
        matches = [(int(ids[j]), float(row[j])) for j in ranked if int(ids[j]) not in skip]
        out.append(matches[:limit])
    return out
