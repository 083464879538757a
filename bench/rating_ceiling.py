"""Where the standard estimate's missing agreement lies (issue 26, judgement)

    .venv/bin/python bench/rating_ceiling.py

The standard overall estimate (light + 1.5B reader signals) reads r 0.473 with QGEval
acceptance out of fold; issue 26 asks for 0.55. Before any more model time goes into a new
signal, this asks which quality it would have to read. Each of QGEval's seven rated
dimensions in turn, the raters' own mean rating, is stacked on the estimate's out-of-fold
values (a logistic regression, itself out of fold over the same 5 passage groups): the gain
in r is what a signal that read that dimension perfectly could add, an upper bound. Then
two signals that cost no model call, from the reader's stored answers
(bench/results/standard-reader.jsonl): the MiniLM cosine of the reader's answer with the key
(where token F1 gives "Sophocles' play Antigone" against "Antigone" 0.5), and whether one
holds the other. Paired differences in r with 95% intervals by resampling passages; the
table: bench/results/rating_ceiling.md.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from common import git_revision, machine, per_item_results, write_results
from judgement import pearson, r_gain, stacked_out_of_fold
from quizsmith.evaluation.overall import QGEVAL_DIMENSIONS
from standard_reader import RESULTS, qgeval_estimate, records


def standardised(values: np.ndarray) -> np.ndarray:
    return (values - values.mean()) / values.std()


def reader_answer_signals(keys: list[str], answers: dict[str, str]) -> dict[str, np.ndarray]:
    from quizsmith.metrics.squad import normalize_answer
    from quizsmith.providers.manager import provider_for_role
    from quizsmith.settings import Settings

    read = per_item_results(RESULTS, "key")
    said = [read[key]["reader_answer"] or "" for key in keys]
    gold = [answers[key] for key in keys]
    embedder = provider_for_role("embeddings", Settings(profile="standard", n_threads=2))
    vectors = np.array(embedder.embed([*said, *gold]))
    a, g = vectors[: len(said)], vectors[len(said) :]
    cosine = (a * g).sum(1) / np.linalg.norm(a, axis=1) / np.linalg.norm(g, axis=1)
    said_n = [normalize_answer(t) for t in said]
    gold_n = [normalize_answer(t) for t in gold]
    holds = [bool(s and k and (s in k or k in s)) for s, k in zip(said_n, gold_n, strict=True)]
    return {
        "MiniLM cosine of the reader's answer with the key": cosine,
        "the reader's answer holds the key or the key it": np.array(holds, dtype=float),
        "reader answer F1 (in the estimate already)": np.array(
            [read[key]["reader_f1"] for key in keys]
        ),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--passages", type=int, default=200)
    parser.add_argument("--cache-dir", default=None, help="the evaluation cache (light signals)")
    parser.add_argument("--threads", type=int, default=1, help="for light signals not cached")
    args = parser.parse_args()
    keys, groups, full, y = qgeval_estimate(args)
    rows = {r["key"]: r for r in records(args.passages)}
    logit = np.log(full / (1 - full))
    alone = stacked_out_of_fold([logit], y, groups)

    def gain(column: np.ndarray) -> dict[str, Any]:
        both = stacked_out_of_fold([logit, standardised(column)], y, groups)
        return {
            "r_accept": round(pearson(column, y), 3),
            "stacked": round(pearson(both, y), 3),
            "gain": r_gain(both, alone, y, groups),
        }

    ratings = {
        dimension: gain(np.array([rows[key]["ratings"][dimension] for key in keys]))
        for dimension in QGEVAL_DIMENSIONS
    }
    answers = {key: rows[key]["answer"] for key in keys}
    signals = {name: gain(v) for name, v in reader_answer_signals(keys, answers).items()}
    data = {
        "machine": machine(),
        "revision": git_revision(),
        "items": len(y),
        "passages": len(set(groups.tolist())),
        "estimate_r_accept": round(pearson(alone, y), 3),
        "ratings": ratings,
        "reader_answer_signals": signals,
    }

    def line(name: str, found: dict[str, Any]) -> str:
        low, high = found["gain"]["ci95_by_passage"]
        return (f"| {name} | {found['r_accept']:.3f} | {found['stacked']:.3f} | "
                f"{found['gain']['value']:+.3f} [{low:+.3f}, {high:+.3f}] |")  # fmt: skip

    header = ["| stacked on the estimate | r with acceptance alone | stacked, r | gain |",
              "| --- | ---: | ---: | --- |"]  # fmt: skip
    md = [
        "## Where the standard estimate's missing agreement lies (`bench/rating_ceiling.py`)",
        "",
        "Command: `.venv/bin/python bench/rating_ceiling.py` at revision "
        f"{data['revision']}, {data['machine']['date']}; {data['machine']['cpu']}. "
        f"QGEval: {data['items']} questions of {data['passages']} passages; the standard "
        f"estimate out of fold: r {data['estimate_r_accept']:.3f} with acceptance. Each row "
        "stacked on it in a logistic regression, out of fold over the same passage groups; "
        "gain in r, 95% interval by resampling passages.",
        "",
        "The raters' own mean rating of one dimension (an upper bound for a signal of it):",
        "",
        *header,
        *(line(name, found) for name, found in ratings.items()),
        "",
        "Signals from the reader's stored answers (no model call):",
        "",
        *header,
        *(line(name, found) for name, found in signals.items()),
        "",
    ]
    write_results("rating_ceiling", data, "\n".join(md))
    print("\n".join(md))


if __name__ == "__main__":
    main()
