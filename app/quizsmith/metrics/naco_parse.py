"""Reading NACo's chain-of-thought answers (naco paper, appendix A.2): the free-text response
(`parse_cot_answer`) and the JSON-constrained retry (`cot_from_json`), both into a `CotAnswer`.

Split out of metrics/naco.py, which re-exports these names; the fewshot profile and the
benchmark scripts also use the pieces (`_ECHOED`, `_find_verdict`, `_find_steps`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from quizsmith.errors import OutputParseError


class NacoParseError(OutputParseError):
    """The model's CoT-QA answer has neither a verdict nor an <ans> span."""


@dataclass(frozen=True)
class CotAnswer:
    """What one CoT-QA response says."""

    naturalness: int  # 0 or 1
    answer: str
    steps: list[str] = field(default_factory=list)
    #: "natural", "not a question" or "Question unnatural" (the A.2 wording).
    verdict: str = "natural"


# -- parsing the A.2 free-text answer ---------------------------------------------------------
# Models often echo the instructions ("If not, output 'not a question'"); an echoed instruction
# is not a verdict, so it is removed before looking for one.
_ECHOED = re.compile(
    r"(?:if (?:not|so),?\s*)?output\s*['\"\u2018\u201c]?\s*(?:not a question|question unnatural)"
    r"\s*['\"\u2019\u201d]?",
    re.IGNORECASE,
)
_NOT_QUESTION = re.compile(r"\bnot\s+a\s+question\b", re.IGNORECASE)
# "is not a question ... but" style double negatives are rare; "a question, not a statement"
# does not match because the phrase must read "not a question".
_UNNATURAL = re.compile(r"\bquestion\s+(?:is\s+)?unnatural\b", re.IGNORECASE)
_NEGATED_UNNATURAL = re.compile(r"\b(?:not|n't)\s+(?:\w+\s+){0,2}unnatural\b", re.IGNORECASE)
# <ans> X <ans>, <ans>X</ans>, or an unterminated <ans> X at the end of a line.
_ANS = re.compile(r"<\s*ans\s*>(.*?)(?:<\s*/?\s*ans\s*>|\n|$)", re.IGNORECASE | re.DOTALL)
_PLACEHOLDER = re.compile(r"^\[?\s*answer\s+text\s*\]?$", re.IGNORECASE)
# The line may be numbered as the prompt's parts are ("2. Step 1: ...", "3. Step 2: ..."):
# the 1.5B model does so in about 45% of QGEval answers, whose steps were all missed (c = 0).
_STEP = re.compile(
    r"^\s*(?:[-*\u2022]\s*)?(?:\(?[a-z]\)\s*|[a-z]\.\s+|\d{1,2}[.)]\s*)?"
    r"\**step\s*(\d+)\**\s*[:.)\-]?\**\s*(.*)$",
    re.IGNORECASE | re.MULTILINE,
)
_REASONING_HEAD = re.compile(r"step[\s-]*by[\s-]*step\s+reasoning\s*:?", re.IGNORECASE)
_ITEM = re.compile(r"^\s*(?:\(?[a-z]\)|[a-z]\.|[ivx]+\.|\d+[.)]|[-*\u2022])\s+(.*)$", re.I)
_ANSWER_LINE = re.compile(r"^\s*(?:3\.\s*)?\**answer\**\s*:|<\s*ans\s*>", re.IGNORECASE)
_MAX_STEPS = 50  # a runaway list is not reasoning; counts above this are capped


def parse_cot_answer(text: str) -> CotAnswer:
    """Read an appendix A.2 response. Raises NacoParseError (only) when it has neither a
    "not a question" / "Question unnatural" verdict nor an answer between <ans> tokens."""
    if not isinstance(text, str):
        raise NacoParseError("The model's answer is not text.", "Try again.")
    cleaned = _ECHOED.sub(" ", text.replace("\r\n", "\n"))
    answer = _find_answer(cleaned)
    steps = _find_steps(cleaned)
    verdict = _find_verdict(cleaned)
    if verdict != "natural":
        return CotAnswer(0, answer or "", steps, verdict)
    if answer is None:
        raise NacoParseError(
            "The model's answer has no <ans> span and no verdict.",
            "It is asked once more with constrained output; a larger qa model follows A.2.",
        )
    return CotAnswer(1, answer, steps, verdict)


#: Where part 2 of an A.2 response ("2. Step by step reasoning") starts.
_PART_TWO = re.compile(r"\n\s*2\s*[.)]")


def fewshot_verdict(head: str) -> str:
    """The verdict of the fewshot profile: read from part 1 of the A.2 response only ("1. Your
    response to 1a and 1b", the format A.2 asks for); the generation stops at part 2
    (naco_prompts.VERDICT_STOPS). Measured on 300 items (150 QGEval, 150 NACo-style variants;
    docs/metrics/naco-profiles.md): SmolLM2 reaches part 2 after a median 12 tokens instead of
    using all 64, and every negative verdict kept was on a flawed variant (6 of 6), while 8 of
    the 12 that only part 2 raised were on valid or QGEval questions."""
    match = _PART_TWO.search(head)
    part_one = head[: match.start()] if match else head
    return _find_verdict(_ECHOED.sub(" ", part_one))


def _find_verdict(text: str) -> str:
    # Only the part before the answer counts: A.2 asks for the verdict first, and reasoning
    # may later quote the phrase ("the passage says it is not a question of money").
    head = re.split(r"<\s*ans\s*>", text, maxsplit=1, flags=re.IGNORECASE)[0]
    if _NOT_QUESTION.search(head):
        return "not a question"
    for match in _UNNATURAL.finditer(head):
        before = head[max(0, match.start() - 20) : match.end()]
        if not _NEGATED_UNNATURAL.search(before):
            return "Question unnatural"
    return "natural"


def _find_answer(text: str) -> str | None:
    found = None
    for match in _ANS.finditer(text):
        span = match.group(1).strip().strip("[]").strip()
        if _PLACEHOLDER.match(span) or (not span and found is not None):
            continue  # the echoed format line, or the closing tag read as an opening one
        found = span
        if span:
            break
    return found


def _find_steps(text: str) -> list[str]:
    by_number: dict[int, str] = {}
    for match in _STEP.finditer(text):
        number = int(match.group(1)) if len(match.group(1)) < 4 else 0
        # An empty "Step 2:" is a model stuttering the format, not a reasoning step.
        if number not in by_number and match.group(2).strip(" *.:-"):
            by_number[number] = match.group(2).strip()
    if by_number:
        return [by_number[k] for k in sorted(by_number)][:_MAX_STEPS]
    # No "Step i" markers: take the enumerated lines of the reasoning section, which starts
    # after "Step by step reasoning" and ends at the answer line.
    head = _REASONING_HEAD.search(text)
    if head is None:
        return []
    steps = []
    for line in text[head.end() :].split("\n"):
        if _ANSWER_LINE.search(line):
            break
        item = _ITEM.match(line)
        if item and item.group(1).strip():
            steps.append(item.group(1).strip())
    return steps[:_MAX_STEPS]


def cot_from_json(data: Any) -> CotAnswer:
    """Read the constrained retry ({natural, steps, answer}); NacoParseError when malformed."""
    if not isinstance(data, dict):
        raise NacoParseError("The model's JSON answer is not an object.", "")
    natural, steps, answer = data.get("natural"), data.get("steps"), data.get("answer")
    if not isinstance(natural, bool) or not isinstance(answer, str):
        raise NacoParseError("The model's JSON answer lacks 'natural' or 'answer'.", "")
    if not isinstance(steps, list) or not all(isinstance(s, str) for s in steps):
        raise NacoParseError("The model's JSON 'steps' is not a list of texts.", "")
    kept = [s.strip() for s in steps if s.strip()][:_MAX_STEPS]
    if not natural:
        return CotAnswer(0, answer.strip(), kept, "Question unnatural")
    return CotAnswer(1, answer.strip(), kept, "natural")
