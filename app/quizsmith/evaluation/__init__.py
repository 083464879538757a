"""Metric validation on labelled datasets: adapters, statistics, the cached runner, reports
with plots, and the overall quality model (see docs/evaluation.md)."""

from __future__ import annotations

from quizsmith.evaluation.adapters import FORMATS, load_records
from quizsmith.evaluation.overall import OverallModel, fit_overall
from quizsmith.evaluation.records import EvalRecord
from quizsmith.evaluation.refit import refit_from_bank
from quizsmith.evaluation.report import Report
from quizsmith.evaluation.runner import run_evaluation
from quizsmith.evaluation.stats import correlations

__all__ = [
    "FORMATS",
    "EvalRecord",
    "OverallModel",
    "Report",
    "correlations",
    "fit_overall",
    "load_records",
    "refit_from_bank",
    "run_evaluation",
]
