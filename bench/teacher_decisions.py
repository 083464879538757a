"""Do the scores agree with teachers? Quiz Design's keep/remove decisions (issue 45).

    .venv/bin/python bench/teacher_decisions.py --fill --shard 0/2 &   # one llama.cpp
    .venv/bin/python bench/teacher_decisions.py --fill --shard 1/2     # thread each
    .venv/bin/python bench/teacher_decisions.py --report

Quiz Design (Laban et al. 2022, `../shared/data/quizdesign`, development split: 3 documents,
199 answer spans, 1,088 machine-written questions a teacher kept or removed as disfluent, off
target or wrong context). `--fill` reads every question with the `signals` metric on the
standard profile: the light models' likelihood signals (what the light profile's estimate
reads) and the 1.5B reader's (what the standard profile's reads), one row per question with
the seconds it took, into bench/results/teacher-decisions.jsonl (a re-run extends it).

`--report` measures, on those rows:
- each signal's correlation with keep (r) and its mean on kept questions against each removal
  reason, nothing fitted (intervals by resampling answer spans, the unit teachers judged);
- the shipped estimators (fitted on QGEval, never on these) as they are;
- candidate estimators fitted on teachers' decisions, each measured leave one document out
  (fitted on two documents, read on the third), as the issue asks.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from common import per_item_results

SHARED = Path(__file__).resolve().parents[2] / "shared"
DATA = SHARED / "data" / "quizdesign" / "quiz_design_groups_dev.jsonl"
RESULTS = Path(__file__).resolve().parent / "results" / "teacher-decisions.jsonl"
#: QGEval's questions read the same way on the light profile (their 1.5B reader signals are
#: already in standard-reader.jsonl), so that every candidate is measured on both targets.
QGEVAL_RESULTS = Path(__file__).resolve().parent / "results" / "qgeval-signals.jsonl"


def records() -> list[Any]:
    from quizsmith.evaluation import adapters

    return adapters.load_records(DATA, "quizdesign")


def accept_label(record: Any) -> int | None:
    from quizsmith.evaluation.overall import default_target

    return default_target(record)


def row_of(record: Any, result: Any, seconds: float) -> dict[str, Any]:
    item = record.item
    return {
        "key": record.key,
        "record_id": record.record_id,
        "doc_id": item.provenance.get("doc_id"),
        "group": record.group,
        "label": accept_label(record),
        "reason": record.role,
        "system": record.source,
        "scored": result.scored,
        "values": dict(result.values) if result.scored else {},
        "reader_answer": result.evidence.get("reader_answer"),
        "not_scored": None if result.scored else result.reason,
        "seconds": round(seconds, 3),
    }


def qgeval_records(n_passages: int) -> list[Any]:
    from judgement import interleaved_qgeval
    from quizsmith.evaluation import adapters

    return adapters.load_records(interleaved_qgeval(n_passages), "qgeval")


def with_text(rows: list[dict[str, Any]], found: list[Any]) -> list[dict[str, Any]]:
    """The rows with their question and answer put back from the dataset: the per-item
    files keep ids and numbers only (the datasets are not redistributed from here)."""
    by_key = {r.key: r.item for r in found}
    out = []
    for row in rows:
        item = by_key.get(row["key"])
        if item is not None:
            out.append({**row, "question": item.stem, "answer": item.key})
    return out


def in_run_order(rows: list[Any], group_of: Any) -> list[Any]:
    """Answer spans in a seeded random order, so that any prefix of a run covers every
    document (a run stopped early still measures leave one document out)."""
    groups = sorted({str(group_of(r)) for r in rows})
    rank = {g: i for i, g in enumerate(random.Random(0).sample(groups, len(groups)))}
    return sorted(rows, key=lambda r: rank[str(group_of(r))])


def fill(args: argparse.Namespace) -> None:
    from quizsmith.metrics.base import MetricContext
    from quizsmith.metrics.registry import get
    from quizsmith.settings import Settings

    k, n = args.shard
    if args.qgeval:
        path, profile, found = QGEVAL_RESULTS, "light", qgeval_records(args.qgeval)
    else:
        path, profile, found = RESULTS, "standard", records()
    done = per_item_results(path, "key")
    ctx = MetricContext(settings=Settings(profile=profile, n_threads=1), seed=0)
    metric = get("signals")()
    found = in_run_order(found, lambda r: r.group)
    todo = [r for i, r in enumerate(found) if i % n == k and r.key not in done]
    print(f"shard {k}/{n}: {len(todo)} to read", file=sys.stderr)
    with path.open("a", encoding="utf-8") as out:
        for index, record in enumerate(todo):
            started = time.perf_counter()
            result = metric.score(record.item, ctx)
            row = row_of(record, result, time.perf_counter() - started)
            out.write(json.dumps(row, ensure_ascii=False) + "\n")
            out.flush()
            if index % 20 == 0:
                print(f"shard {k}/{n}: {index + 1}/{len(todo)} {row['seconds']} s", file=sys.stderr)


def shard_arg(text: str) -> tuple[int, int]:
    k, n = (int(x) for x in text.split("/"))
    if not 0 <= k < n:
        raise argparse.ArgumentTypeError("K/N with 0 <= K < N")
    return k, n


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--fill", action="store_true", help="read the questions (resumable)")
    parser.add_argument("--shard", type=shard_arg, default=(0, 1), help="K/N: every Nth row")
    parser.add_argument(
        "--qgeval",
        type=int,
        default=0,
        metavar="N",
        help="fill QGEval's first N interleaved passages instead (light profile)",
    )
    parser.add_argument("--report", action="store_true", help="measure and write the report")
    args = parser.parse_args()
    if args.fill:
        fill(args)
    if args.report:
        from teacher_report import report

        report(RESULTS, QGEVAL_RESULTS, records(), qgeval_records(args.qgeval or 100))


if __name__ == "__main__":
    main()
