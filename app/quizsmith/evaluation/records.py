"""What the evaluation harness works on: one labelled item per record.

A record is an interchange `Item` (passage, stem, key, and the reference question when the
dataset has one) plus the human labels for it, the group it belongs to (the passage, or the
dataset's group of candidate questions) and its role in that group (the question type or the
system that wrote it). `references` holds every reference question the item may be compared
with (several for multi-reference formats); `item.reference` is the first of them, which is
what single-reference measures and the MRE metric use.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

from quizsmith.domain import Item


@dataclass(kw_only=True)
class EvalRecord:
    #: Human-readable identity within the dataset, e.g. "qgeval:<passage id>:<system>".
    record_id: str
    item: Item
    labels: dict[str, float] = field(default_factory=dict)
    group: str = ""
    role: str = ""
    #: What wrote the question (QG system, model); the sampler stratifies by it.
    source: str = ""
    references: list[str] = field(default_factory=list)
    #: Whether the dataset calls this question valid; None when it says nothing either way.
    valid: bool | None = None

    @property
    def key(self) -> str:
        """A content hash: the cache key of this record. Anything a metric may read is in it,
        so an edited dataset line is scored again rather than served a stale result."""
        item = self.item
        content = {
            "passage": item.passage.text if item.passage else None,
            "provenance_passage2": item.provenance.get("passage2"),
            "stem": item.stem,
            "key": item.key,
            "type": item.type,
            "options": [(o.text, o.is_key, o.position) for o in item.options],
            "fact": item.target_fact,
            "subject": item.subject,
            "references": self.references,
        }
        blob = json.dumps(content, sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(blob.encode("utf-8")).hexdigest()[:32]

    def summary(self) -> dict[str, Any]:
        return {
            "record_id": self.record_id,
            "group": self.group,
            "role": self.role,
            "source": self.source,
            "labels": self.labels,
        }
