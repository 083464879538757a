"""NACo paper's SQuAD candidates (squad_candidates.jsonl): per line a passage (`context`),
the `answer` and three human-written questions, all valid: `refq` (the original SQuAD
question), `annoq` and `annoq_clue_refq`.

Records: one per question, group = the line (its SQuAD id), role = the question field, label
valid = 1. `refq` is the reference for the other two; `refq` itself has none. A good
reference-free metric scores the three alike (paper, Table 1): see the group table.
"""

from __future__ import annotations

from pathlib import Path

from quizsmith.evaluation.adapters.common import (
    format_error,
    need_str,
    read_jsonl,
    short_item,
)
from quizsmith.evaluation.records import EvalRecord

NAME = "naco-squad"
ROLES = ("refq", "annoq", "annoq_clue_refq")
VALID_ROLES = ROLES
FLAWED_ROLES: tuple[str, ...] = ()
GROUP_FORMAT = True


def group_id(raw: object, number: int) -> str:
    if isinstance(raw, list) and raw:
        return "+".join(str(x) for x in raw)
    if isinstance(raw, str | int) and str(raw):
        return str(raw)
    return f"line{number}"


def load(path: Path) -> list[EvalRecord]:
    records: list[EvalRecord] = []
    for number, obj in read_jsonl(path, NAME):
        where = f"line {number}"
        context = need_str(obj, "context", path, where, NAME)
        answer = need_str(obj, "answer", path, where, NAME)
        refq = need_str(obj, "refq", path, where, NAME)
        group = group_id(obj.get("og_id"), number)
        for role in ROLES:
            stem = need_str(obj, role, path, where, NAME)
            refs = [] if role == "refq" else [refq]
            records.append(
                EvalRecord(
                    record_id=f"{NAME}:{group}:{role}",
                    item=short_item(
                        context,
                        stem,
                        answer,
                        refs[0] if refs else None,
                        dataset=NAME,
                        source_id=group,
                        role=role,
                    ),
                    labels={"valid": 1.0},
                    group=group,
                    role=role,
                    source=role,
                    references=refs,
                    valid=True,
                )
            )
    if not records:
        raise format_error(path, "line 1", "no records found.", NAME)
    return records
