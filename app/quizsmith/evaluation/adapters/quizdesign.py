"""Quiz Design (Laban et al. 2022) groups: per line `group_id, doc_id, answer_span, context,
questions[{question, label, reason, model_name, answer_span}]`; label 1 = the teacher kept
the question, 0 = removed, with reason disfluent / wrong_context / off_target; `model_name`
may join several systems with "|" (they wrote the same question).

MRE paper protocol: the kept questions of a group are the references of every other question
in it (multi-reference); a kept question is compared with the other kept ones, never with
itself. The first reference (file order) is the single reference. Label kept = 1/0; role =
"kept" or the removal reason ("removed" without one); source = model_name.
"""

from __future__ import annotations

from pathlib import Path

from quizsmith.evaluation.adapters.common import (
    format_error,
    need_str,
    read_jsonl,
    same_text,
    short_item,
)
from quizsmith.evaluation.records import EvalRecord

NAME = "quizdesign"
VALID_ROLES = ("kept",)
FLAWED_ROLES = ("disfluent", "wrong_context", "off_target", "removed")
GROUP_FORMAT = True


def load(path: Path) -> list[EvalRecord]:
    records: list[EvalRecord] = []
    for number, obj in read_jsonl(path, NAME):
        where = f"line {number}"
        context = need_str(obj, "context", path, where, NAME)
        group = str(obj.get("group_id") or f"line{number}")
        questions = obj.get("questions")
        if not isinstance(questions, list) or not questions:
            raise format_error(path, where, "'questions' must be a non-empty list.", NAME, obj)
        parsed: list[tuple[str, int, str, str, str]] = []
        for qi, q in enumerate(questions):
            qwhere = f"{where}, question {qi}"
            if not isinstance(q, dict):
                raise format_error(path, qwhere, "expected an object.", NAME)
            stem = need_str(q, "question", path, qwhere, NAME)
            label = q.get("label")
            if label not in (0, 1) or isinstance(label, bool):
                raise format_error(path, qwhere, "'label' must be 0 or 1.", NAME, obj)
            answer = q.get("answer_span") or obj.get("answer_span")
            if not isinstance(answer, str) or not answer.strip():
                raise format_error(path, qwhere, "no answer_span.", NAME, obj)
            reason = str(q.get("reason") or "").strip()
            role = "kept" if label == 1 else (reason or "removed")
            parsed.append((stem, int(label), role, answer, str(q.get("model_name") or "")))
        kept = [stem for stem, label, *_ in parsed if label == 1]
        for qi, (stem, label, role, answer, model) in enumerate(parsed):
            refs = [k for k in kept if not same_text(k, stem)]
            records.append(
                EvalRecord(
                    record_id=f"{NAME}:{group}:{qi}",
                    item=short_item(
                        context,
                        stem,
                        answer,
                        refs[0] if refs else None,
                        dataset=NAME,
                        source_id=group,
                        doc_id=obj.get("doc_id"),
                        system=model or None,
                    ),
                    labels={"kept": float(label)},
                    group=group,
                    role=role,
                    source=model or "unknown",
                    references=refs,
                    valid=label == 1,
                )
            )
    if not records:
        raise format_error(path, "line 1", "no records found.", NAME)
    return records
