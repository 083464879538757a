"""Quizsmith's own item interchange JSONL (`Item.from_dict`) with a `labels` object of numbers
(booleans count as 1/0). Optional keys: `group` (default: the passage, else the line),
`role` (default "item"), `source` (default: provenance.system or model, else the role),
`references` (a list; default: the item's `reference`), `valid` (true/false)."""

from __future__ import annotations

import hashlib
from pathlib import Path

from quizsmith.domain import Item
from quizsmith.evaluation.adapters.common import format_error, read_jsonl
from quizsmith.evaluation.records import EvalRecord

NAME = "jsonl"
GROUP_FORMAT = False
VALID_ROLES: tuple[str, ...] = ()
FLAWED_ROLES: tuple[str, ...] = ()


def load(path: Path) -> list[EvalRecord]:
    records: list[EvalRecord] = []
    for number, obj in read_jsonl(path, NAME):
        where = f"line {number}"
        try:
            item = Item.from_dict(obj)
        except (ValueError, TypeError) as exc:
            raise format_error(path, where, str(exc), NAME, obj) from None
        raw_labels = obj.get("labels")
        if not isinstance(raw_labels, dict) or not raw_labels:
            raise format_error(path, where, "'labels' must be an object of numbers.", NAME, obj)
        labels: dict[str, float] = {}
        for name, value in raw_labels.items():
            if not isinstance(value, int | float):
                raise format_error(path, where, f"label {name!r} is not a number.", NAME, obj)
            labels[str(name)] = float(value)
        refs_raw = obj.get("references")
        if refs_raw is None:
            refs = [item.reference] if item.reference else []
        elif isinstance(refs_raw, list) and all(isinstance(r, str) for r in refs_raw):
            refs = [r for r in refs_raw if r.strip()]
        else:
            raise format_error(path, where, "'references' must be a list of texts.", NAME, obj)
        if refs and not item.reference:
            item.reference = refs[0]
        if item.passage:
            default_group = "p" + hashlib.sha256(item.passage.text.encode()).hexdigest()[:12]
        else:
            default_group = f"line{number}"
        role = str(obj.get("role") or "item")
        source = str(
            obj.get("source")
            or item.provenance.get("system")
            or item.provenance.get("model")
            or role
        )
        valid = obj.get("valid")
        records.append(
            EvalRecord(
                record_id=f"{NAME}:{path.stem}:{number}",
                item=item,
                labels=labels,
                group=str(obj.get("group") or default_group),
                role=role,
                source=source,
                references=refs,
                valid=valid if isinstance(valid, bool) else None,
            )
        )
    if not records:
        raise format_error(path, "line 1", "no records found.", NAME)
    return records
