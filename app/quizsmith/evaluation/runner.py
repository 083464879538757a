"""`run_evaluation`: score a labelled dataset with metrics and compare with the human labels.

A job (a generator of Progress events that returns the `Report`): load the dataset with its
adapter, draw the --limit sample (sampling.py), score every (record, metric) pair, each result
read from or written to the cache at once (cache.py), then compute the statistics (report.py).
Cancelling (the token, Ctrl-C) stops between two results; whatever finished is in the cache,
so running the same command again continues and ends with the same report as an
uninterrupted run.
"""

from __future__ import annotations

import time
from collections.abc import Generator, Sequence
from pathlib import Path

from quizsmith.domain import ScoreResult
from quizsmith.evaluation import adapters
from quizsmith.evaluation.cache import ResultCache
from quizsmith.evaluation.report import Report, build_report
from quizsmith.evaluation.sampling import stratified_sample
from quizsmith.evaluation.scoring import METRIC_SEED, make_scorers
from quizsmith.evaluation.stats import N_BOOT
from quizsmith.jobs import CancelToken, Progress
from quizsmith.metrics.base import MetricContext
from quizsmith.settings import Settings


def run_evaluation(
    dataset_path: str | Path,
    fmt: str,
    metrics: Sequence[str],
    limit: int | None = None,
    seed: int = 0,
    cache_dir: str | Path | None = None,
    settings: Settings | None = None,
    cancel: CancelToken | None = None,
    *,
    n_boot: int = N_BOOT,
) -> Generator[Progress, None, Report]:
    started = time.perf_counter()
    cancel = cancel or CancelToken()
    settings = settings or Settings()
    if cache_dir is None:
        from quizsmith import paths

        cache_dir = paths.cache_dir() / "evaluation"
    names = list(dict.fromkeys(m.strip() for m in metrics if m.strip()))
    if not names:
        from quizsmith.errors import QuizsmithError

        raise QuizsmithError("No metrics to run.", "Give --metrics, e.g. naco,bleu.")
    ctx = MetricContext(settings=settings, cancel=cancel, seed=METRIC_SEED)
    scorers = make_scorers(names, ctx)
    yield Progress(f"Reading {Path(dataset_path).name} ({fmt})")
    all_records = adapters.load_records(dataset_path, fmt)
    records = stratified_sample(
        all_records, limit, seed, whole_groups=adapters.is_group_format(fmt)
    )
    cache = ResultCache.in_dir(Path(cache_dir))
    results: list[dict[str, ScoreResult]] = [{} for _ in records]
    total = len(records) * len(scorers)
    done = cached = 0
    try:
        for index, record in enumerate(records):
            key = record.key
            for scorer in scorers:
                cancel.raise_if_cancelled()
                result = cache.get(key, scorer.name, scorer.config_key)
                if result is None:
                    result = scorer.score(record)
                    cache.put(key, scorer.config_key, result)
                else:
                    cached += 1
                results[index][scorer.name] = result
                # Later metrics of the same record may build on this one (the overall
                # estimate reads the signals and the live metrics), as in the app.
                if result.scored:
                    record.item.scores[scorer.name] = result
                done += 1
                yield Progress(
                    f"{scorer.name} on record {index + 1}/{len(records)}",
                    done,
                    total,
                    (record, result),
                )
    finally:
        cache.close()
    yield Progress("Computing correlations and bootstrap intervals", done, total)
    data = build_report(
        records,
        results,
        scorers,
        dataset={
            "path": str(dataset_path),
            "format": fmt,
            "records_in_file": len(all_records),
            "records_evaluated": len(records),
            "limit": limit,
            "seed": seed,
        },
        seed=seed,
        n_boot=n_boot,
    )
    data["timing"].update(
        {
            "wall_seconds": round(time.perf_counter() - started, 3),
            "from_cache": cached,
            "computed": done - cached,
            "cache_file": str(cache.path),
        }
    )
    return Report(data=data, records=records, results=results)
