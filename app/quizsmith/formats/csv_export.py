"""CSV for spreadsheets (export only): one row per item with its latest scores and flags.

Columns: id, type, question, answer, accepted (a numerical tolerance, other accepted answers
and partial credit, as `answer_details` words them), options, fact, status, subject, tags, one
column per metric found on the exported items (its value, or "not scored: reason"), and flags.
Options are a JSON list in the bank's order (key included), which keeps texts containing commas
or separators unambiguous; tags are joined with "; ", flags with " | ". The file is UTF-8 with
a byte-order mark so that Excel shows accents, CJK and emoji correctly. Text cells that start
with = + - @ get a leading apostrophe so a spreadsheet shows them instead of running them as
formulas (CSV injection).
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

from quizsmith.domain import Item, ScoreResult
from quizsmith.formats.base import Exporter, ExportOptions, ExportResult, answer_details

BASE_COLUMNS = [
    "id", "type", "question", "answer", "accepted", "options", "fact", "status", "subject", "tags",
]  # fmt: skip
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def _cell(text: str | None) -> str:
    value = text or ""
    return "'" + value if value.startswith(_FORMULA_START) else value


def score_cell(score: ScoreResult | None) -> str:
    if score is None:
        return ""
    if score.scored and score.value is not None:
        return f"{score.value:.4g}"
    return f"not scored: {score.not_scored_reason or 'no reason given'}"


class CsvFormat(Exporter):
    name = "csv"
    title = "CSV"
    extension = ".csv"
    order = 80
    description = "CSV spreadsheet: one row per item with scores and flags"

    def write(
        self, items: list[Item], path: Path, options: ExportOptions, result: ExportResult
    ) -> None:
        metrics = sorted({name for item in items for name in item.scores})
        with path.open("w", encoding="utf-8-sig", newline="") as out:
            writer = csv.writer(out)
            writer.writerow([*BASE_COLUMNS, *metrics, "flags"])
            for item in items:
                ordered = [o.text for o in sorted(item.options, key=lambda o: o.position)]
                writer.writerow(
                    [
                        item.id if item.id is not None else "",
                        item.type,
                        _cell(item.stem),
                        _cell(item.key),
                        _cell(answer_details(item)),
                        json.dumps(ordered, ensure_ascii=False) if ordered else "",
                        _cell(item.target_fact),
                        item.status,
                        _cell(item.subject),
                        _cell("; ".join(item.tags)),
                        *(score_cell(item.scores.get(m)) for m in metrics),
                        _cell(" | ".join(f.message or f.code for f in item.flags)),
                    ]
                )
                result.count += 1
