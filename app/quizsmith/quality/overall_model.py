"""The shipped overall estimates and their loading: one model per model profile.

The overall estimate (KDA paper, section 4.3 and Table 7) is a small model fitted on human
decisions that turns metric outputs into the probability that a teacher accepts the item.
This module is its home in the app: where each profile's file lives, loading it with its
checks, and predicting. evaluation/overall.py only fits and checks such models (`quizsmith
eval --fit`, `quizsmith refit`, `python -m quizsmith.evaluation.train_estimator`) and writes
them with `save`.

One model per profile (settings.PROFILES): the light profile's is the shipped
resources/overall_model.joblib, fitted on signals from the light models (Gemma 270M reads,
SmolLM2 judges fluency). The standard profile has no model of its own yet (fitting one on the
1.5B reader's signals is the next step of issue 26): until its file exists, the standard
profile uses the light profile's model and computes the signals it reads with the light
models (`signals_profile`), so its estimate is the one measured in docs/evaluation.md rather
than a model fed signals from a reader it never saw. A teacher's refit is kept per profile in
the config folder and used before the shipped file.

Why this module is long: the saved format's reader and writer, the estimator class the
shipped file holds and the per-profile file rules belong together (a pickle names its class
by module, so `BlendClassifier` must live where the app loads it).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from quizsmith.domain import Item, ScoreResult, utc_now
from quizsmith.errors import QuizsmithError
from quizsmith.quality.features import (
    FEATURES,
    all_feature_names,
    metrics_read,
    overall_features,
)

MISSING_VALUE = -1.0
#: An item is scored only when at least this share of the features the model learned from
#: is present; with fewer the estimate would rest on imputed values.
MIN_PRESENT_SHARE = 0.5
FORMAT_VERSION = 1
#: Each profile's model file: shipped in resources/, a teacher's refit in the config folder.
MODEL_FILES = {"light": "overall_model.joblib", "standard": "overall_model_standard.joblib"}
MODEL_FILE = MODEL_FILES["light"]
#: The profile whose model serves a profile that has none of its own.
FALLBACK_PROFILE = "light"


def _profile(profile: str | None) -> str:
    if profile is None:
        from quizsmith import settings as settings_mod

        profile = settings_mod.load().profile
    return profile if profile in MODEL_FILES else FALLBACK_PROFILE


def shipped_model_path(profile: str | None = "light") -> Path:
    from quizsmith import paths

    return paths.resources_dir() / MODEL_FILES[_profile(profile)]


def user_model_path(profile: str | None = "light") -> Path:
    """Where a teacher's refitted model lives (never over the shipped file)."""
    from quizsmith import paths

    return paths.config_dir() / MODEL_FILES[_profile(profile)]


def signals_profile(profile: str | None = None) -> str:
    """The profile whose model serves `profile` (None: the settings file's), and so whose
    models compute the signals it reads: the profile itself when a model was fitted for it
    (shipped or refitted), else the light profile."""
    own = _profile(profile)
    if user_model_path(own).exists() or shipped_model_path(own).exists():
        return own
    return FALLBACK_PROFILE


def active_model_path(profile: str | None = None) -> Path:
    """The model the app predicts with on a profile (None: the settings file's): the
    teacher's refitted one, else the shipped one (`signals_profile` says whose)."""
    serving = signals_profile(profile)
    user = user_model_path(serving)
    return user if user.exists() else shipped_model_path(serving)


#: The model read last per file, with the version of the file it was read from: the light
#: profile's model (the quick estimate) and the standard one's are used one after the other.
_ACTIVE: dict[str, tuple[tuple[int, int], OverallModel]] = {}


def load_active_model(profile: str | None = None) -> OverallModel:
    """The active model (`active_model_path`), read once per version of its file: the live
    set predicts with it after every edit, and unpickling it costs more than predicting
    (about 16 ms against 4 ms). A refit or a new file (another size or modification time) is
    read afresh."""
    path = active_model_path(profile)
    try:
        stat = path.stat()
    except OSError:
        return OverallModel.load(path)  # says what is missing
    version = (stat.st_mtime_ns, stat.st_size)
    kept = _ACTIVE.get(str(path))
    if kept is None or kept[0] != version:
        kept = (version, OverallModel.load(path))
        _ACTIVE[str(path)] = kept
    return kept[1]


def features_of_active_model(profile: str | None = None) -> frozenset[str] | None:
    """The features the active model reads, from its JSON sidecar (cheap: no scikit-learn
    import, so the GUI can ask while it lays out). None when that is unknown."""
    sidecar = active_model_path(profile).with_suffix(".json")
    try:
        used = json.loads(sidecar.read_text(encoding="utf-8"))["used_features"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if not isinstance(used, list) or not all(isinstance(f, str) for f in used):
        return None
    return frozenset(used)


def metrics_read_by_active_model(profile: str | None = None) -> frozenset[str] | None:
    """Which metrics' results the active model reads (None when that is unknown)."""
    used = features_of_active_model(profile)
    return None if used is None else metrics_read(used)


#: How a shipped model is rebuilt from its checked-in config (CONTRIBUTING.md, "Rebuilding the
#: shipped estimators").
_REBUILD = (
    "python -m quizsmith.evaluation.train_estimator --config packaging/estimators/{name}.toml"
)


def signal_versions() -> dict[str, int]:
    """The versions of the signals a model is fitted on, as its info records them."""
    from quizsmith.quality.reader import READER_VERSION
    from quizsmith.quality.signals import SIGNALS_VERSION

    return {"signals_version": SIGNALS_VERSION, "reader_version": READER_VERSION}


def feature_matrix(
    rows: Sequence[Mapping[str, float | None]], features: Sequence[str] = FEATURES
) -> np.ndarray:
    """Values (missing -> MISSING_VALUE) followed by one missing-indicator column each."""
    values = np.full((len(rows), len(features)), MISSING_VALUE)
    missing = np.ones((len(rows), len(features)))
    for i, row in enumerate(rows):
        for j, name in enumerate(features):
            v = row.get(name)
            if v is not None and math.isfinite(v):
                values[i, j] = v
                missing[i, j] = 0.0
    return np.hstack([values, missing])


def _proba(estimator: Any, x: np.ndarray) -> np.ndarray:
    """P(accept) even for a model that saw a single class."""
    classes = list(estimator.classes_)
    if 1 not in classes:
        return np.zeros(len(x))
    return np.asarray(estimator.predict_proba(x)[:, classes.index(1)], dtype=float)


@dataclass
class OverallModel:
    estimator: Any
    used: tuple[str, ...]
    info: dict[str, Any] = field(default_factory=dict)
    path: Path | None = None
    #: The columns the estimator was fitted on, in order (a subset of ALL_FEATURES).
    features: tuple[str, ...] = FEATURES

    # -- persistence --------------------------------------------------------------------------
    @classmethod
    def load(cls, path: str | Path | None = None) -> OverallModel:
        """The model at `path`; by default the teacher's refitted one when there is one, else
        the shipped one. Only load files Quizsmith wrote: the format is a pickle."""
        import joblib

        target = active_model_path("light") if path is None else Path(path)
        if not target.exists():
            raise QuizsmithError(
                f"There is no overall model at {target}.",
                "Fit one with `quizsmith eval ... --fit` or reinstall Quizsmith.",
            )
        try:
            blob = joblib.load(target)
        except Exception as exc:  # a damaged or foreign file: any unpickling error
            raise QuizsmithError(
                f"The overall model {target} cannot be read ({type(exc).__name__}).",
                "Delete it (the shipped model is used instead) or fit it again.",
            ) from None
        if not isinstance(blob, dict) or blob.get("format_version") != FORMAT_VERSION:
            raise QuizsmithError(
                f"{target} is not an overall model this Quizsmith can read.",
                "Fit it again with `quizsmith eval ... --fit`.",
            )
        known = all_feature_names()  # a plug-in metric's features included
        unknown = [f for f in blob.get("features", []) if f not in known]
        if unknown or not blob.get("features"):
            raise QuizsmithError(
                f"{target} was fitted on features this Quizsmith does not compute "
                f"({', '.join(unknown) or 'none listed'}).",
                "Fit it again with `quizsmith eval ... --fit` or `quizsmith refit`.",
            )
        # A model reading signals of another version than this Quizsmith computes is refused.
        # (A model saved before the reader had versions read its first form: 1.)
        info, versions = blob.get("info", {}), signal_versions()
        for key, features, what, default, ship in (
            ("signals_version", "sig.", "quality", None, _REBUILD.format(name="overall_light")),
            (
                "reader_version",
                "sig.reader_",
                "reader",
                1,
                _REBUILD.format(name="overall_standard"),
            ),
        ):
            fitted, current = info.get(key, default), versions[key]
            if fitted != current and any(f.startswith(features) for f in blob["used"]):
                raise QuizsmithError(
                    f"{target} was fitted on version {fitted} of the {what} signals; this "
                    f"Quizsmith computes version {current}.",
                    f"Fit it again (`quizsmith refit`, or {ship} for the shipped model).",
                )
        return cls(
            blob["estimator"],
            tuple(blob["used"]),
            dict(blob["info"]),
            target,
            tuple(blob["features"]),
        )

    def save(self, path: str | Path) -> tuple[Path, Path]:
        """Write the model and its JSON sidecar (same name, .json)."""
        import os

        import joblib

        target = Path(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        blob = {
            "format_version": FORMAT_VERSION,
            "features": list(self.features),
            "used": list(self.used),
            "info": self.info,
            "estimator": self.estimator,
        }
        tmp = target.with_name(target.name + ".tmp")
        joblib.dump(blob, tmp, compress=3)
        os.replace(tmp, target)
        sidecar = target.with_suffix(".json")
        sidecar.write_text(json.dumps(self.info, indent=2) + "\n", encoding="utf-8")
        self.path = target
        return target, sidecar

    # -- prediction ---------------------------------------------------------------------------
    def reasons(
        self, scores: Mapping[str, ScoreResult], feats: Mapping[str, float | None], k: int = 3
    ) -> list[dict[str, Any]] | None:
        """The signals that moved this item's estimate most, in words (quality/explain.py);
        empty when none moved it much, None for a model fitted before its training medians
        were kept (it cannot tell)."""
        from quizsmith.quality.explain import explain

        references = self.info.get("reference_values")
        if not isinstance(references, dict):
            return None
        return explain(
            lambda rows: _proba(self.estimator, feature_matrix(rows, self.features)),
            feats,
            self.used,
            references,
            k,
            _reader_answer(scores),
        )

    def predict(self, item: Item | Mapping[str, ScoreResult]) -> ScoreResult:
        scores = item.scores if isinstance(item, Item) else item
        feats = overall_features(scores)
        present = [f for f in self.used if feats.get(f) is not None]
        config = {
            "model": "overall",
            "file": str(self.path) if self.path else None,
            "trained_on": self.info.get("training", {}).get("description"),
            "estimator": self.info.get("estimator"),
        }
        needed = max(1, math.ceil(MIN_PRESENT_SHARE * len(self.used)))
        if len(present) < needed:
            missing = [f for f in self.used if feats.get(f) is None]
            return ScoreResult.not_scored(
                "overall",
                f"Too few metric scores for the overall estimate ({len(present)} of the "
                f"{len(self.used)} it uses; missing: {', '.join(missing)}).",
                model_config=config,
            )
        prob = float(_proba(self.estimator, feature_matrix([feats], self.features))[0])
        reasons = self.reasons(scores, feats)
        return ScoreResult(
            metric="overall",
            value=min(1.0, max(0.0, prob)),
            values={"p_accept": prob, "n_features": len(present)},
            evidence={
                "features": {f: feats[f] for f in present},
                "missing": [f for f in self.used if feats.get(f) is None],
                "reasons": reasons,
            },
            model_config=config,
            created=utc_now(),
        )


def _reader_answer(scores: Mapping[str, ScoreResult]) -> str | None:
    signals = scores.get("signals")
    answer = signals.evidence.get("reader_answer") if signals is not None else None
    return answer if isinstance(answer, str) else None


class BlendClassifier:
    """The mean of two probability models that see the signals differently: a logistic
    regression on cubic B-spline expansions of each feature (smooth, one bend per feature,
    no interactions) and shallow gradient-boosted trees (steps and interactions, e.g. a low
    answer likelihood mattering only when the stem reads as a question).

    Why: on the 3,000 QGEval + 1,050 variant items (5 folds grouped by passage) each alone
    gave QGEval r 0.40-0.41 out of fold and their mean 0.42, against 0.37 for the plain
    logistic regression (docs/evaluation.md, "The overall estimate"). Columns that never
    vary in training (a metric the training items did not carry) are dropped, so a value the
    model never saw cannot move the estimate."""

    def __init__(self, seed: int = 0, min_leaf: int = 80) -> None:
        self.seed = seed
        self.min_leaf = min_leaf

    def fit(self, x: np.ndarray, y: np.ndarray) -> BlendClassifier:
        from sklearn.ensemble import HistGradientBoostingClassifier
        from sklearn.linear_model import LogisticRegression
        from sklearn.pipeline import make_pipeline
        from sklearn.preprocessing import SplineTransformer, StandardScaler

        self.keep_ = np.ptp(x, axis=0) > 0
        if not self.keep_.any():
            raise QuizsmithError(
                "Every feature has the same value on every item, so there is nothing to learn "
                "from.",
                "Score the items with metrics whose values differ, or evaluate more items.",
            )
        self.classes_ = np.unique(y)
        kept = x[:, self.keep_]
        self.smooth_ = make_pipeline(
            StandardScaler(),
            SplineTransformer(n_knots=4, degree=3, extrapolation="constant"),
            LogisticRegression(C=0.3, max_iter=5000),
        ).fit(kept, y)
        self.trees_ = HistGradientBoostingClassifier(
            max_depth=2,
            learning_rate=0.03,
            max_iter=300,
            min_samples_leaf=self.min_leaf,
            l2_regularization=1.0,
            random_state=self.seed,
        ).fit(kept, y)
        return self

    def predict_proba(self, x: np.ndarray) -> np.ndarray:
        kept = x[:, self.keep_]
        return np.asarray(
            (self.smooth_.predict_proba(kept) + self.trees_.predict_proba(kept)) / 2.0
        )
