"""NACo paper's HotpotQA candidates: per line `og_id`, `contexts_w_ans` (two passages
separated by " <sep> ", the answer span wrapped in " <ans> ... <ans> ") and six questions:
`refq`, `annoq`, `annoq_clue_refq` (valid), `1hop_q` (lacks the two-hop complexity), `non_q`
(not a question) and `random_q` (unanswerable from the passages).

The markers are removed from the passage and the answer is the text between them; the
passage keeps " <sep> " between the two paragraphs (NACo reads them as two passages). Labels:
valid = 1 for the three valid questions, 0 for the flawed ones; `refq` is the reference for
the others. Missing question fields are skipped (not every release has all six).
"""

from __future__ import annotations

import re
from pathlib import Path

from quizsmith.evaluation.adapters.common import (
    format_error,
    need_str,
    read_jsonl,
    short_item,
)
from quizsmith.evaluation.adapters.naco_squad import group_id
from quizsmith.evaluation.records import EvalRecord

NAME = "naco-groups"
VALID_ROLES = ("refq", "annoq", "annoq_clue_refq")
FLAWED_ROLES = ("1hop_q", "non_q", "random_q")
ROLES = VALID_ROLES + FLAWED_ROLES
GROUP_FORMAT = True

_ANS = re.compile(r"<ans>(.*?)<ans>", re.DOTALL)
_NO_SPACE_BEFORE = set(",.;:!?)'\"")


def strip_answer(text: str) -> tuple[str, str]:
    """(text without the markers, the answer between them); ValueError without a marked
    answer."""
    match = _ANS.search(text)
    if match is None or not match.group(1).strip():
        raise ValueError("no answer span marked with <ans> ... <ans>.")
    answer = " ".join(match.group(1).split())
    before = text[: match.start()].rstrip()
    after = text[match.end() :].lstrip()
    joined = (before + " " if before else "") + answer
    if after:
        joined += after if after[0] in _NO_SPACE_BEFORE else " " + after
    if "<ans>" in joined:
        raise ValueError("more than one <ans> ... <ans> span.")
    return joined, answer


def load(path: Path) -> list[EvalRecord]:
    records: list[EvalRecord] = []
    for number, obj in read_jsonl(path, NAME):
        where = f"line {number}"
        raw = need_str(obj, "contexts_w_ans", path, where, NAME)
        try:
            passage, answer = strip_answer(raw)
        except ValueError as exc:
            raise format_error(path, where, f"contexts_w_ans: {exc}", NAME, obj) from None
        passage = " <sep> ".join(p.strip() for p in passage.split("<sep>"))
        refq = need_str(obj, "refq", path, where, NAME)
        group = group_id(obj.get("og_id"), number)
        for role in ROLES:
            stem = obj.get(role)
            if stem is None:
                continue
            if not isinstance(stem, str) or not stem.strip():
                raise format_error(path, where, f"{role!r} is not a text.", NAME, obj)
            refs = [] if role == "refq" else [refq]
            valid = role in VALID_ROLES
            records.append(
                EvalRecord(
                    record_id=f"{NAME}:{group}:{role}",
                    item=short_item(
                        passage,
                        stem,
                        answer,
                        refs[0] if refs else None,
                        dataset=NAME,
                        source_id=group,
                        role=role,
                    ),
                    labels={"valid": 1.0 if valid else 0.0},
                    group=group,
                    role=role,
                    source=role,
                    references=refs,
                    valid=valid,
                )
            )
    if not records:
        raise format_error(path, "line 1", "no records found.", NAME)
    return records
