"""NACo-style groups built from the SQuAD candidates file (`squad_candidates.jsonl`).

The NACo paper tested its metric on HotpotQA groups of three valid questions and three flawed
ones (a single-hop question, a non-question, a random question). That file is not shipped;
the SQuAD candidates are, with three valid questions per passage. This adapter builds the
flawed members the same way for each SQuAD line, deterministically (seeded by the line):

- `non_q`: not a question: the passage sentence that holds the answer, as the statement it is;
- `shuffled_q`: not a question: the reference question's words in a shuffled order;
- `random_q`: a valid question about another passage (the reference question of a line far
  away in the file), asked of this passage with this key;
- `wrong_key_q`: the reference question with another span of the passage as its key (an
  entity, number or noun phrase sharing no word with the real answer): a question whose
  answer is not the key.

There is no single-hop variant: SQuAD questions are single-passage. Labels: valid = 1 for the
three human questions, 0 for the four built ones; `refq` is the reference of the others.
"""

from __future__ import annotations

import hashlib
import random
from pathlib import Path

from quizsmith.evaluation.adapters import naco_squad
from quizsmith.evaluation.adapters.common import format_error, short_item
from quizsmith.evaluation.records import EvalRecord
from quizsmith.metrics.squad import f1_score, normalize_answer

NAME = "naco-variants"
VALID_ROLES = naco_squad.ROLES
FLAWED_ROLES = ("non_q", "shuffled_q", "random_q", "wrong_key_q")
ROLES = VALID_ROLES + FLAWED_ROLES
GROUP_FORMAT = True


def _rng(group: str) -> random.Random:
    return random.Random(int(hashlib.sha256(group.encode()).hexdigest()[:12], 16))


def answer_sentence(passage: str, answer: str) -> str | None:
    from quizsmith.generation.sentences import split_sentences

    wanted = normalize_answer(answer)
    for sentence in split_sentences(passage):
        if wanted and wanted in normalize_answer(sentence.text):
            return sentence.text
    return None


def shuffled(question: str, rng: random.Random) -> str:
    words = question.rstrip(" ?").split()
    for _ in range(10):
        rng.shuffle(words)
        if " ".join(words).lower() != question.rstrip(" ?").lower():
            break
    return " ".join(words)


def other_key(passage: str, answer: str, rng: random.Random) -> str | None:
    """A span of the passage that shares no word with the answer."""
    from quizsmith.generation.sentences import split_sentences
    from quizsmith.quality.rule_spans import candidate_targets

    try:
        spans = {t.answer for t in candidate_targets(passage, split_sentences(passage))}
    except Exception:  # a passage the span finder refuses gives no such variant
        return None
    usable = sorted(s for s in spans if f1_score(s, answer) == 0.0)
    return rng.choice(usable) if usable else None


def load(path: Path) -> list[EvalRecord]:
    base = naco_squad.load(path)
    by_group: dict[str, list[EvalRecord]] = {}
    for record in base:
        by_group.setdefault(record.group or record.record_id, []).append(record)
    groups = list(by_group)
    records: list[EvalRecord] = []
    for index, group in enumerate(groups):
        valid = by_group[group]
        for record in valid:
            # This dataset's ids (the cache keys on content, so nothing is scored twice).
            record.record_id = f"{NAME}:{group}:{record.role}"
        records += valid
        ref = next(r for r in valid if r.role == "refq")
        passage = ref.item.passage.text if ref.item.passage else ""
        answer = ref.item.key
        rng = _rng(group)
        far = by_group[groups[(index + len(groups) // 2) % len(groups)]]
        built: dict[str, tuple[str, str]] = {
            "shuffled_q": (shuffled(ref.item.stem, rng), answer),
            "random_q": (next(r for r in far if r.role == "refq").item.stem, answer),
        }
        statement = answer_sentence(passage, answer)
        if statement:
            built["non_q"] = (statement, answer)
        wrong = other_key(passage, answer, rng)
        if wrong:
            built["wrong_key_q"] = (ref.item.stem, wrong)
        for role in FLAWED_ROLES:
            if role not in built:
                continue
            stem, key = built[role]
            records.append(
                EvalRecord(
                    record_id=f"{NAME}:{group}:{role}",
                    item=short_item(
                        passage, stem, key, ref.item.stem, dataset=NAME, source_id=group, role=role
                    ),
                    labels={"valid": 0.0},
                    group=group,
                    role=role,
                    source=role,
                    references=[ref.item.stem],
                    valid=False,
                )
            )
    if not records:
        raise format_error(path, "line 1", "no records found.", NAME)
    return records
