"""Would a lower `fewshot_steps_tokens` change NACo's step counts? (docs/metrics/
naco-profiles.md, "Speed")

    .venv/bin/python bench/naco_steps_cap.py SHARD NSHARDS N OUT.jsonl

Items: every 5th of bench/judgement.py's QGEval sample (first N) and the first N NACo-style
variant questions; records i with i % NSHARDS == SHARD. For each: the fewshot answer (by
likelihood, the default) and one greedy steps continuation of 80 tokens (the default cap).
A cap of C tokens gives the first C of those tokens (greedy decoding: a shorter generation is
a prefix of a longer one), so the step count at each cap is read from the first C tokens.
Writes one JSON line per item with the tokens used and the step count per cap.
"""

from __future__ import annotations

import json
import sys

from judgement import SHARED, interleaved_qgeval
from quizsmith.evaluation.adapters import load_records
from quizsmith.metrics import naco_prompts as prompts
from quizsmith.metrics.base import MetricContext
from quizsmith.metrics.naco import NacoMetric, split_passages
from quizsmith.metrics.naco_parse import _find_steps
from quizsmith.settings import Settings

CAPS = (32, 40, 48, 56, 64, 80)
STOPS = ["\n\n", "\nPassage", "\nQuestion:"]


def main() -> None:
    shard, nshards, n, out = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    ctx = MetricContext(settings=Settings(n_threads=1))
    metric = NacoMetric()
    _, model = metric._fewshot_models(ctx)
    records = (
        load_records(interleaved_qgeval(100), "qgeval")[::5][:n]
        + load_records(SHARED / "naco" / "squad_candidates.jsonl", "naco-variants")[:n]
    )
    llm = model._get().llm  # type: ignore[attr-defined]
    with open(out, "w", encoding="utf-8") as f:
        for i, record in enumerate(records):
            if i % nshards != shard:
                continue
            passages = split_passages(record.item)
            answer = metric._likelihood_answer(model, record.item, ctx)
            text = model.complete(
                prompts.fewshot_steps_continuation(
                    prompts.fewshot_answer_prompt(passages, record.item.stem), answer
                ),
                max_tokens=80,
                temperature=0.0,
                seed=0,
                stop=STOPS,
                reuse_prefix=prompts.fewshot_reading(passages),
            ).text
            tokens = llm.tokenize(text.encode("utf-8"), add_bos=False, special=False)
            row: dict[str, object] = {"key": record.key, "role": record.role, "used": len(tokens)}
            for cap in CAPS:
                cut = llm.detokenize(tokens[:cap]).decode("utf-8", errors="ignore")
                row[f"steps_{cap}"] = len(_find_steps("Step 1:" + cut))
            f.write(json.dumps(row) + "\n")


if __name__ == "__main__":
    main()
