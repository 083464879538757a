"""`quizsmith refit` and the desktop app's "Learn my standard": the overall estimate refitted on
a teacher's own accept/reject decisions in a bank, and kept only when it measures better than
the model in use.

A refit on decisions the signals cannot predict (random ones) measured a cross-validated AUC
of 0.43, worse than chance, and was saved and used from then on (issue 48). So the new model's
grouped out-of-fold predictions (`overall.out_of_fold`, the figures it would be saved with)
are compared, before anything is saved, with the model in use:

- the shipped model is measured on the same decisions (it was fitted on other data, so its
  figure on the teacher's is a held-out one), on the items it can score, with the new model's
  out-of-fold figure on those same items;
- a teacher's earlier refit saw (some of) these decisions, so its figure on them would flatter
  it; its own cross-validated AUC, saved with it, is its figure instead;
- where neither can be had (a model that cannot be read, or that scores too few of these
  items), the bar is chance: an AUC of 0.5.

The new model replaces the one in use only when its AUC is higher than that figure and than
chance; otherwise a QuizsmithError says both figures and nothing is written.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from quizsmith.domain import ScoreResult
from quizsmith.errors import QuizsmithError
from quizsmith.evaluation.overall import fit_overall, grouped_folds, out_of_fold, training_data
from quizsmith.evaluation.records import EvalRecord
from quizsmith.quality.features import all_feature_names
from quizsmith.quality.overall_model import (
    OverallModel,
    active_model_path,
    signals_profile,
    user_model_path,
)

#: Refitting on a teacher's decisions needs this many accept/reject decisions, with at least
#: MIN_EACH of each kind (fewer give a model that mostly echoes the majority decision).
MIN_DECISIONS = 30
MIN_EACH = 10
#: The AUC of a model that knows nothing: the least a refit must beat.
CHANCE_AUC = 0.5


@dataclass
class Comparison:
    """The new model's figure against the one in use, on the same decisions where it can."""

    new_auc: float
    #: The figure of the model in use, or None when it has none here (`why_none` says why).
    current_auc: float | None
    #: What `current_auc` is, in words ("the shipped model on the same 36 decisions").
    current: str
    #: How many decisions the new model's figure is measured on.
    n: int
    why_none: str = ""

    @property
    def bar(self) -> float:
        return max(CHANCE_AUC, self.current_auc if self.current_auc is not None else CHANCE_AUC)

    @property
    def better(self) -> bool:
        return self.new_auc > self.bar

    def refusal(self) -> str:
        """Why the new model is not used, with both figures."""
        figure = f"its cross-validated AUC on your {self.n} decisions is {self.new_auc:.2f}"
        kept = "so the model in use is kept and nothing was saved"
        if self.current_auc is not None and self.current_auc > CHANCE_AUC:
            return (
                f"The refitted model measures no better than the one in use, {kept}: "
                f"{figure}, against {self.current_auc:.2f} for {self.current} (0.50 is chance)."
            )
        why = (
            f"{self.current} measures {self.current_auc:.2f}"
            if self.current_auc is not None
            else self.why_none
        )
        return (
            f"The refitted model measures no better than chance, {kept}: {figure}, where 0.50 "
            f"is chance: the scores do not tell your accepted questions from your rejected "
            f"ones ({why})."
        )

    def as_info(self) -> dict[str, Any]:
        return {
            "new_auc": round(self.new_auc, 6),
            "compared_with": self.current if self.current_auc is not None else "chance",
            "compared_auc": round(self.bar, 6),
            "n": self.n,
        }


def refit_from_bank(
    bank: Any,
    *,
    min_decisions: int = MIN_DECISIONS,
    min_each: int = MIN_EACH,
    path: str | Path | None = None,
    seed: int = 0,
) -> OverallModel:
    """Refit on the teacher's own accept/reject decisions in an ItemBank (the latest
    accept-or-reject review of each accepted or rejected question, with its latest scores)
    and save to `path` (default: the user's config folder, `user_model_path`, for the profile
    whose models computed the items' signals: `signals_profile()`), when the new model
    measures better than the one in use (see the module's docstring); else a QuizsmithError
    with both figures, and the model in use stays."""
    from quizsmith.quality.type_estimate import TYPES

    # Questions only: true/false and cloze items have their own calibration (type_estimate).
    items = [
        i for i in bank.search(status=["accepted", "rejected"], limit=None) if i.type not in TYPES
    ]
    records: list[EvalRecord] = []
    scores: list[Mapping[str, ScoreResult]] = []
    for item in items:
        decisions = [r.decision for r in bank.reviews(item.id) if r.decision != "needs-review"]
        if not decisions:
            continue
        accepted = decisions[-1] == "accept"
        group = f"passage{item.passage_id}" if item.passage_id else f"item{item.id}"
        records.append(
            EvalRecord(
                record_id=f"bank:{item.id}",
                item=item,
                labels={"accept": 1.0 if accepted else 0.0},
                group=group,
            )
        )
        scores.append(item.scores)
    n_accept = sum(int(r.labels["accept"]) for r in records)
    n_reject = len(records) - n_accept
    if len(records) < min_decisions or min(n_accept, n_reject) < min_each:
        raise QuizsmithError(
            f"Not enough decisions to refit the overall model: {n_accept} accepted and "
            f"{n_reject} rejected questions (true/false and fill-in items do not count).",
            f"Review at least {min_decisions} scored questions, with at least {min_each} "
            f"accepted and {min_each} rejected; until then the shipped model is used.",
        )
    # A teacher's bank may hold reference questions (imported banks): every feature the
    # items carry may serve, reference-based ones included.
    features = all_feature_names()
    profile = signals_profile()
    data = training_data(records, scores, features=features)
    # The same folds and seed as fit_overall's, so these are the figures it reports.
    oof = out_of_fold(data, grouped_folds(data.groups), seed)
    by_record = {id(r): s for r, s in zip(records, scores, strict=True)}
    comparison = compare_with_model_in_use(
        data.y, oof, [by_record[id(r)] for r in data.records], profile
    )
    if not comparison.better:
        raise QuizsmithError(
            comparison.refusal(),
            "Review more questions, accepting and rejecting by one standard, and refit again."
            + (
                f" To go back to the shipped model, delete {user_model_path(profile)}."
                if "earlier refit" in comparison.current
                else ""
            ),
        )
    model = fit_overall(
        records,
        scores,
        seed=seed,
        description=f"teacher decisions in {getattr(bank, 'path', 'the bank')}",
        features=features,
    )
    model.info["refit"] = comparison.as_info()
    model.save(path or user_model_path(profile))
    return model


def compare_with_model_in_use(
    y: np.ndarray,
    oof: np.ndarray,
    scores: Sequence[Mapping[str, ScoreResult]],
    profile: str,
) -> Comparison:
    """The new model's out-of-fold AUC (`oof`, for the decisions `y` of items with `scores`)
    against the model in use on `profile` (see the module's docstring for which figure)."""
    from sklearn.metrics import roc_auc_score

    def auc(truth: np.ndarray, predicted: np.ndarray) -> float:
        return float(roc_auc_score(truth, predicted))

    new_auc, n = auc(y, oof), len(y)
    path = active_model_path(profile)
    try:
        current = OverallModel.load(path)
    except QuizsmithError as exc:
        return Comparison(new_auc, None, "the model in use", n, exc.message.rstrip("."))
    if path == user_model_path(profile):
        what = "your earlier refit (its own cross-validated figure, saved with it)"
        recorded = current.info.get("cv", {}).get("auc")
        if isinstance(recorded, int | float) and np.isfinite(recorded):
            return Comparison(new_auc, float(recorded), what, n)
        return Comparison(new_auc, None, what, n, "your earlier refit was saved with no figure")
    predictions = [current.predict(s) for s in scores]
    scored = np.asarray([p.scored and p.value is not None for p in predictions])
    kept = int(scored.sum())
    if kept < MIN_EACH or len(set(y[scored].tolist())) < 2:
        why = (
            f"the shipped model can score only {kept} of these {n} questions from the scores "
            "they carry, so chance is the bar"
        )
        return Comparison(new_auc, None, "the shipped model", n, why)
    values = np.asarray([float(p.value or 0.0) for p in predictions])
    return Comparison(
        auc(y[scored], oof[scored]),
        auc(y[scored], values[scored]),
        f"the shipped model on the same {kept} decisions",
        kept,
    )
