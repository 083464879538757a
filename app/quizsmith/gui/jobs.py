"""The desktop app's jobs and metric lists live in `quizsmith.operations.jobs` (Qt-free,
so they run in workers and the CLI can share them); the GUI's modules import them from
here, under the names they always had."""

from __future__ import annotations

from quizsmith.operations.jobs import (
    GeneratedBatch,
    JobFactory,
    all_metrics,
    content_signature,
    default_live_metrics,
    exam_check_job,
    generate_job,
    live_order,
    load_passage_job,
    metric_context,
    refit_overall_job,
    score_and_store_job,
    score_draft_job,
    store_if_current,
)

__all__ = [
    "GeneratedBatch",
    "JobFactory",
    "all_metrics",
    "content_signature",
    "default_live_metrics",
    "exam_check_job",
    "generate_job",
    "live_order",
    "load_passage_job",
    "metric_context",
    "refit_overall_job",
    "score_and_store_job",
    "score_draft_job",
    "store_if_current",
]
