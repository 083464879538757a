"""Questions whose key is one member of a list in its own sentence (issue 26, generation)

    .venv/bin/python bench/list_member_keys.py

A question about "Bob Dylan" from "a supergroup consisting of Bob Dylan, George Harrison, Jeff
Lynne, Roy Orbison and Tom Petty" cannot single him out: the list's other members answer it
as well. On bench/generation.py's items two of three bad ones were of this shape ("Which job
explains why valleys ... look the way they do?", key erosion of "erosion, transportation and
deposition"). This measures it on QGEval: the questions whose key (the dataset's answer) has
siblings in a list of the passage sentence (`PassageAnalysis.siblings`, the parser's conjuncts, as
`targets.choose_targets` reads it) that holds it,
against the rest: acceptance and answer consistency, with 95% intervals by resampling
passages (QGEval's answer is one per passage, so the passage is the unit). Nothing fitted;
the target cost it supports is `targets.LIST_MEMBER_COST`. The table:
bench/results/list_member_keys.md.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from common import git_revision, machine, write_results
from quizsmith.generation.analysis import analyse
from quizsmith.generation.sentences import split_sentences
from standard_reader import records

RESAMPLES = 2000


def key_sentence(passage: str, key: str) -> str | None:
    return next((s.text for s in split_sentences(passage) if key in s.text), None)


def passage_interval(by_passage: dict[str, list[float]], seed: int = 0) -> list[float]:
    """95% interval of the mean over questions, passages resampled with replacement."""
    rng = np.random.default_rng(seed)
    groups = list(by_passage.values())
    means = []
    for _ in range(RESAMPLES):
        picked = [groups[i] for i in rng.integers(0, len(groups), len(groups))]
        means.append(float(np.mean([v for g in picked for v in g])))
    return [round(float(np.percentile(means, 2.5)), 3), round(float(np.percentile(means, 97.5)), 3)]


def main() -> None:
    rows = records(200)
    member: dict[str, dict[str, Any]] = {}
    for row in rows:
        if row["passage_id"] not in member:
            sentence = key_sentence(row["passage"], row["answer"])
            siblings = analyse(sentence).siblings(row["answer"]) if sentence else []
            member[row["passage_id"]] = {"siblings": siblings, "sentence": sentence}
    data: dict[str, Any] = {"machine": machine(), "revision": git_revision(), "groups": {}}
    for name, wanted in (("key one member of a list", True), ("the rest", False)):
        chosen = [r for r in rows if bool(member[r["passage_id"]]["siblings"]) == wanted]
        found: dict[str, Any] = {"questions": len(chosen)}
        for label in ("accept", "answer_consistency"):
            by_passage: dict[str, list[float]] = {}
            for r in chosen:
                by_passage.setdefault(r["passage_id"], []).append(float(r[label]))
            found["passages"] = len(by_passage)
            found[label] = {
                "mean": round(float(np.mean([r[label] for r in chosen])), 3),
                "ci95_by_passage": passage_interval(by_passage),
            }
        data["groups"][name] = found
    data["examples"] = [
        {"key": r["answer"], "siblings": member[r["passage_id"]]["siblings"],
         "question": r["question"]}
        for r in {r["passage_id"]: r for r in rows if member[r["passage_id"]]["siblings"]}.values()
    ]  # fmt: skip
    md = [
        "## Keys that are one member of a list in their sentence (`bench/list_member_keys.py`)",
        "",
        "Command: `.venv/bin/python bench/list_member_keys.py` at revision "
        f"{data['revision']}, {data['machine']['date']}; {data['machine']['cpu']}. QGEval, "
        "3,000 questions of 200 passages (one answer per passage); 95% intervals by "
        "resampling passages.",
        "",
        "| questions | n (passages) | accepted | answer consistency (1-3) |",
        "| --- | ---: | --- | --- |",
    ]
    for name, found in data["groups"].items():
        acc, ac = found["accept"], found["answer_consistency"]
        md.append(
            f"| {name} | {found['questions']} ({found['passages']}) | {acc['mean']:.2f} "
            f"[{acc['ci95_by_passage'][0]:.2f}, {acc['ci95_by_passage'][1]:.2f}] | "
            f"{ac['mean']:.2f} [{ac['ci95_by_passage'][0]:.2f}, {ac['ci95_by_passage'][1]:.2f}] |"
        )
    md += ["", "The keys and their list's other members (one question each):", ""]
    md += [f"- {e['key']} ({', '.join(e['siblings'])}): {e['question']}" for e in data["examples"]]
    write_results("list_member_keys", data, "\n".join(md) + "\n")
    print("\n".join(md))


if __name__ == "__main__":
    main()
