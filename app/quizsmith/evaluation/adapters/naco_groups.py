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
    answer, with an odd number of markers, or with marked spans that disagree.

    The released HotpotQA file marks every occurrence of the answer when it appears in both
    passages, so a line may hold 2, 4, 6 or 8 markers: each pair is one occurrence.
    """
    if text.count("<ans>") % 2:
        raise ValueError(
            "an odd number of <ans> markers (each answer needs an opening and a closing one)."
        )
    spans = [" ".join(m.group(1).split()) for m in _ANS.finditer(text)]
    if not spans or not all(spans):
        raise ValueError("no answer span marked with <ans> ... <ans>.")
    if len({s.casefold() for s in spans}) > 1:
        raise ValueError(f"the marked answers disagree: {sorted(set(spans))}.")
    joined = _ANS.sub(lambda m: "\x00" + " ".join(m.group(1).split()) + "\x00", text)
    pieces = joined.split("\x00")
    out = ""
    for piece in pieces:
        piece_stripped = piece.strip()
        if not piece_stripped:
            continue
        if out and piece_stripped[0] not in _NO_SPACE_BEFORE:
            out += " "
        out += piece_stripped
    return out, spans[0]


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
