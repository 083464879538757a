"""Real SQuAD items (../shared/data/naco) built into 4-option MCQs, for the metric tests and
bench/metrics.py: key = the answer, distractors = answers of other rows of the same kind
(number, name, other), chosen with a fixed seed per row."""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from quizsmith.domain import Item, Passage

SQUAD = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "naco"
SQUAD_FILE = SQUAD / "squad_candidates.jsonl"


def _kind(answer: str) -> str:
    if any(c.isdigit() for c in answer):
        return "number"
    return "name" if answer[:1].isupper() else "other"


def squad_rows() -> list[dict[str, Any]]:
    """The rows; raises FileNotFoundError when the shared data is absent (tests skip)."""
    return [json.loads(line) for line in SQUAD_FILE.read_text(encoding="utf-8").splitlines()]


def squad_mcqs(indices: Sequence[int], rows: list[dict[str, Any]] | None = None) -> list[Item]:
    rows = rows if rows is not None else squad_rows()
    items = []
    for i in indices:
        row = rows[i % len(rows)]
        pool = sorted(
            {
                r["answer"]
                for j, r in enumerate(rows)
                if j != i
                and _kind(r["answer"]) == _kind(row["answer"])
                and r["answer"].casefold() != row["answer"].casefold()
            }
        )
        items.append(
            Item(
                type="mcq",
                stem=row["refq"],
                key=row["answer"],
                options=Item.make_options(row["answer"], random.Random(i).sample(pool, 3)),
                passage=Passage(text=row["context"]),
                reference=row["annoq"],
            )
        )
    return items
