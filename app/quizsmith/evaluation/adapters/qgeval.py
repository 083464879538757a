"""QGEval (Fu et al. 2024): instances.json, one JSON array of passages, each with the
reference question, the answer and 15 systems' questions rated 1-3 on seven dimensions.

Record per question: group = passage id, role = source = the QG system. The reference is the
dataset's reference question, except for the "<dataset>_reference" system, whose question IS
the reference: it gets no reference (comparing a text with itself says nothing). HotpotQA
passages hold two paragraphs separated by a line break; they are joined with " <sep> ", the
NACo paper's two-passage format, so that NACo reads them as two passages. A derived label
"mean" (the mean of the seven dimensions) is added for the overall tables.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from quizsmith.evaluation.adapters.common import (
    format_error,
    need_str,
    read_text,
    same_text,
    short_item,
)
from quizsmith.evaluation.records import EvalRecord

NAME = "qgeval"
DIMENSIONS = (
    "fluency",
    "clarity",
    "conciseness",
    "relevance",
    "consistency",
    "answerability",
    "answer_consistency",
)
GROUP_FORMAT = False


def _passage(text: str) -> str:
    parts = [p.strip() for p in text.split("\n") if p.strip()]
    return " <sep> ".join(parts) if len(parts) == 2 else text.strip()


def load(path: Path) -> list[EvalRecord]:
    text = read_text(path)
    try:
        data: Any = json.loads(text)
    except json.JSONDecodeError as exc:
        first: Any = None
        first_line = text.lstrip().splitlines()[0] if text.strip() else ""
        try:
            first = json.loads(first_line)
        except json.JSONDecodeError:
            first = None
        raise format_error(
            path, f"line {exc.lineno}", f"not valid JSON ({exc.msg}).", NAME, first
        ) from None
    if not isinstance(data, list):
        raise format_error(path, "top level", "expected a JSON array of passages.", NAME, data)
    records: list[EvalRecord] = []
    for index, inst in enumerate(data):
        where = f"instance {index}"
        if not isinstance(inst, dict):
            raise format_error(path, where, "expected an object.", NAME)
        pid = str(inst.get("id") or index)
        where = f"instance {index} (id {pid})"
        passage = _passage(need_str(inst, "passage", path, where, NAME))
        answer = need_str(inst, "answer", path, where, NAME)
        reference = need_str(inst, "reference", path, where, NAME)
        questions = inst.get("questions")
        if not isinstance(questions, list):
            raise format_error(path, where, "'questions' must be a list.", NAME, inst)
        for qi, q in enumerate(questions):
            qwhere = f"{where}, question {qi}"
            if not isinstance(q, dict):
                raise format_error(path, qwhere, "expected an object.", NAME)
            stem = need_str(q, "prediction", path, qwhere, NAME)
            system = str(q.get("source") or f"system{qi}")
            labels: dict[str, float] = {}
            for dim in DIMENSIONS:
                value = q.get(dim)
                if isinstance(value, bool) or not isinstance(value, int | float):
                    raise format_error(path, qwhere, f"rating {dim!r} is not a number.", NAME, q)
                labels[dim] = float(value)
            labels["mean"] = sum(labels[d] for d in DIMENSIONS) / len(DIMENSIONS)
            is_reference = system.endswith("_reference") or (
                system == "reference" and same_text(stem, reference)
            )
            refs = [] if is_reference else [reference]
            records.append(
                EvalRecord(
                    record_id=f"{NAME}:{pid}:{system}",
                    item=short_item(
                        passage,
                        stem,
                        answer,
                        refs[0] if refs else None,
                        dataset=NAME,
                        source_id=pid,
                        system=system,
                    ),
                    labels=labels,
                    group=pid,
                    role=system,
                    source=system,
                    references=refs,
                )
            )
    if not records:
        raise format_error(path, "top level", "no questions found.", NAME)
    return records
