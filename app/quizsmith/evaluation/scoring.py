"""Scoring one record with one metric: the quality metrics through the metrics registry, and
the reference-overlap baselines `bleu`, `rouge`, `meteor`, `bertscore` (metrics/overlap.py).

Baselines are scored against the record's references: "single" = against the first reference
(SRE), "multi" = the maximum over all of them (MRE paper, equation 1; only when there are two
or more). The headline value is "multi" when present, else "single". A record without a
reference is "not scored: no reference question".

Model metrics run with `MetricContext(seed=METRIC_SEED)`, a fixed seed independent of the
sampling seed, so that a record's score is cached once whatever sample it appears in.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from quizsmith.domain import ScoreResult, utc_now
from quizsmith.evaluation.records import EvalRecord
from quizsmith.metrics import overlap
from quizsmith.metrics.base import MetricContext
from quizsmith.settings import Settings

BASELINES = ("bleu", "rouge", "meteor", "bertscore")
MODEL_METRICS = ("naco", "kda", "exam", "mirror", "mre")
METRIC_SEED = 0
#: Bump when a baseline's definition changes, so that cached values are recomputed.
BASELINE_VERSION = 1

_BASELINE_INFO = {
    "bleu": "sacrebleu sentence BLEU-4 (exp smoothing, effective order) / 100",
    "rouge": "rouge-score ROUGE-L F1 with Porter stemming",
    "meteor": "METEOR, exact + Porter-stem matching, no WordNet",
    "bertscore": "BERTScore-style F1 from all-MiniLM-L6-v2 token vectors (no idf, no rescaling)",
}


@dataclass
class Scorer:
    """Scores records with one metric; `config_key` identifies its configuration."""

    name: str
    config: dict[str, Any]
    score: Callable[[EvalRecord], ScoreResult]
    higher_is_better: bool = True

    @property
    def config_key(self) -> str:
        blob = json.dumps(self.config, sort_keys=True, default=str)
        return hashlib.sha256(blob.encode("utf-8")).hexdigest()[:24]


def known_metrics() -> list[str]:
    from quizsmith.metrics import registry

    return [*registry.names(), *BASELINES]


def make_scorers(names: Sequence[str], ctx: MetricContext) -> list[Scorer]:
    """One scorer per requested name; unknown names fail here, before any model loads."""
    from quizsmith.errors import QuizsmithError
    from quizsmith.metrics import registry

    scorers = []
    for name in names:
        if name in BASELINES:
            scorers.append(_baseline(name))
        elif name in registry.names():
            scorers.append(_model_metric(name, ctx))
        else:
            raise QuizsmithError(
                f"Unknown metric {name!r}.", f"Use some of: {', '.join(known_metrics())}."
            )
    return scorers


def _model_metric(name: str, ctx: MetricContext) -> Scorer:
    from quizsmith.metrics import registry

    metric = registry.get(name)()
    settings: Settings = ctx.settings
    config = {
        "metric": name,
        # Every role's model (the profile's with the user's on top): the light profile's
        # key is what it was before profiles, so cached results stay valid.
        "roles": settings.effective_roles(),
        "n_ctx": settings.n_ctx,
        "endpoints": sorted(settings.endpoints),
        # The whole [metrics] table: per-metric options and the prompt-profile overrides.
        "options": ctx.options(metric),
        "metrics_settings": settings.metrics,
        "seed": ctx.seed,
    }
    identity = metric.cache_identity(ctx)
    if identity is not None:
        # What else decides the output (e.g. the overall model file it predicts with); only
        # set when there is one, so other metrics keep their cached results.
        config["identity"] = identity

    def score(record: EvalRecord) -> ScoreResult:
        return metric.score(record.item, ctx)

    return Scorer(name, config, score, bool(metric.higher_is_better))


def _baseline(name: str) -> Scorer:
    config: dict[str, Any] = {
        "metric": name,
        "measure": _BASELINE_INFO[name],
        "version": BASELINE_VERSION,
    }
    embedder: list[overlap.TokenEmbedder] = []

    def measure(candidate: str, refs: list[str]) -> float:
        if name == "bleu":
            return overlap.bleu4(candidate, refs)
        if name == "rouge":
            return overlap.rouge_l(candidate, refs)
        if name == "meteor":
            return overlap.meteor(candidate, refs)
        if not embedder:
            embedder.append(overlap.minilm_token_embedder())
        return overlap.bertscore_f1(candidate, refs, embedder[0])

    def score(record: EvalRecord) -> ScoreResult:
        refs = [r for r in record.references if r.strip()]
        if not refs:
            return ScoreResult.not_scored(name, "no reference question", model_config=dict(config))
        import time

        started = time.perf_counter()
        stem = record.item.stem
        if name == "bertscore":
            # One forward pass for the candidate and every reference.
            if not embedder:
                embedder.append(overlap.minilm_token_embedder())
            vectors = embedder[0]([stem, *refs])
            per_ref = [overlap.bertscore_pair(vectors[0], v) for v in vectors[1:]]
        else:
            per_ref = [measure(stem, [r]) for r in refs]
        values: dict[str, Any] = {"single": round(per_ref[0], 6), "n_references": len(refs)}
        if len(refs) > 1:
            values["multi"] = round(max(per_ref), 6)
        value = values.get("multi", values["single"])
        return ScoreResult(
            metric=name,
            value=float(value),
            values=values,
            evidence={"references": refs},
            model_config=dict(config),
            seconds=time.perf_counter() - started,
            created=utc_now(),
        )

    if name == "bertscore":
        config["embeddings"] = "all-minilm-l6-v2"
    return Scorer(name, config, score, True)
