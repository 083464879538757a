"""The --limit sample: stratified, seeded, and the same for every metric.

- Group formats (naco-squad, naco-groups, quizdesign): whole groups are drawn in a seeded
  random order until N records are reached, so that the valid and flawed questions of a
  group are scored together (the last group is cut when it does not fit).
- Other formats (qgeval, jsonl): records are shuffled with the seed and taken round-robin
  over the sources (QG systems, in a seeded order); within a source, the next record is the
  first one whose group (passage) has been used least so far. Every system and every passage
  is thus represented as evenly as N allows.

The sample depends only on the records and the seed, never on the metrics asked for, and is
returned in the dataset's order.
"""

from __future__ import annotations

import random
from collections import Counter, defaultdict
from collections.abc import Sequence

from quizsmith.evaluation.records import EvalRecord


def stratified_sample(
    records: Sequence[EvalRecord], limit: int | None, seed: int, *, whole_groups: bool
) -> list[EvalRecord]:
    if limit is None or limit >= len(records):
        return list(records)
    if limit <= 0:
        return []
    rng = random.Random(seed)
    chosen = _by_groups(records, limit, rng) if whole_groups else _round_robin(records, limit, rng)
    return [records[i] for i in sorted(chosen)]


def _by_groups(records: Sequence[EvalRecord], limit: int, rng: random.Random) -> list[int]:
    members: dict[str, list[int]] = defaultdict(list)
    for i, rec in enumerate(records):
        members[rec.group].append(i)
    order = sorted(members)
    rng.shuffle(order)
    chosen: list[int] = []
    for group in order:
        chosen.extend(members[group][: limit - len(chosen)])
        if len(chosen) >= limit:
            break
    return chosen


def _round_robin(records: Sequence[EvalRecord], limit: int, rng: random.Random) -> list[int]:
    queues: dict[str, list[int]] = defaultdict(list)
    indices = list(range(len(records)))
    rng.shuffle(indices)
    for i in indices:
        queues[records[i].source].append(i)
    sources = sorted(queues)
    rng.shuffle(sources)
    used: Counter[str] = Counter()
    chosen: list[int] = []
    while len(chosen) < limit:
        progressed = False
        for source in sources:
            queue = queues[source]
            if not queue or len(chosen) >= limit:
                continue
            best = min(range(len(queue)), key=lambda k: used[records[queue[k]].group])
            index = queue.pop(best)
            used[records[index].group] += 1
            chosen.append(index)
            progressed = True
        if not progressed:
            break
    return chosen
