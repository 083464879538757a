"""Where does the fewshot verdict model's A.2 response reach part 2, and does reading part 1
only change the verdict? (docs/metrics/naco-profiles.md, "Verdict v2")

    .venv/bin/python bench/naco_verdict_cut.py SHARD NSHARDS N OUT.jsonl

Items: every 5th of bench/judgement.py's QGEval sample (first N of them) and the first N
NACo-style variant questions; records i with i % NSHARDS == SHARD (run shards in parallel).
One greedy generation of 64 tokens per item with no stop string (v1's call); the part-1 text
is a prefix of it, so both verdicts come from the same generation. Writes one JSON line per
item: the v1 verdict ("full"), the verdict before part 2 ("part2") and before an <ans>
("ans"), and the token counts of each text.
"""

from __future__ import annotations

import json
import re
import sys

from judgement import SHARED, interleaved_qgeval
from quizsmith.evaluation.adapters import load_records
from quizsmith.metrics import naco_prompts as prompts
from quizsmith.metrics.base import MetricContext
from quizsmith.metrics.naco import NacoMetric, split_passages
from quizsmith.metrics.naco_parse import _ECHOED, _find_verdict
from quizsmith.settings import Settings

CUTS = {"part2": re.compile(r"\n\s*2\s*[.)]"), "ans": re.compile(r"<\s*ans\s*>", re.I)}


def main() -> None:
    shard, nshards, n, out = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    ctx = MetricContext(settings=Settings(n_threads=1))
    model, _ = NacoMetric()._fewshot_models(ctx)
    records = (
        load_records(interleaved_qgeval(100), "qgeval")[::5][:n]
        + load_records(SHARED / "naco" / "squad_candidates.jsonl", "naco-variants")[:n]
    )
    with open(out, "w", encoding="utf-8") as f:
        for i, record in enumerate(records):
            if i % nshards != shard:
                continue
            passages = split_passages(record.item)
            head = model.chat(
                [{"role": "user", "content": prompts.a2_prompt(passages, record.item.stem)}],
                max_tokens=64,
                temperature=0.0,
                seed=0,
                reuse_prefix=prompts.a2_reading(passages),
            ).text
            row = {
                "key": record.key,
                "role": record.role,
                "full": _find_verdict(_ECHOED.sub(" ", head)),
                "len": model.count_tokens(head),
            }
            for name, pattern in CUTS.items():
                match = pattern.search(head)
                cut = head[: match.start()] if match else head
                row[name] = _find_verdict(_ECHOED.sub(" ", cut))
                row[f"{name}_tokens"] = model.count_tokens(cut)
            f.write(json.dumps(row) + "\n")


if __name__ == "__main__":
    main()
