from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

from quizsmith.domain import Item, Passage, ScoreResult
from quizsmith.errors import QuizsmithError
from quizsmith.evaluation.adapters import load_records
from quizsmith.evaluation.features import ALL_FEATURES, FEATURES, overall_features
from quizsmith.evaluation.overall import (
    BlendClassifier,
    OverallModel,
    default_target,
    feature_matrix,
    fit_overall,
    grouped_folds,
    load_active_model,
    shipped_model_path,
    user_model_path,
)
from quizsmith.evaluation.records import EvalRecord
from quizsmith.evaluation.refit import refit_from_bank


def _scores(v: float, naco: bool = False) -> dict[str, ScoreResult]:
    out = {
        "bleu": ScoreResult(metric="bleu", value=v, values={"single": v}),
        "rouge": ScoreResult(metric="rouge", value=min(1.0, v + 0.1), values={"single": v}),
    }
    if naco:
        out["naco"] = ScoreResult(metric="naco", value=v, values={"n": 1, "a": v, "c": 0.5})
    return out


def _synthetic(n: int = 80, seed: int = 0) -> tuple[list[EvalRecord], list[dict]]:
    rng = random.Random(seed)
    records, scores = [], []
    for i in range(n):
        v = rng.random()
        accept = 1.0 if v + rng.gauss(0, 0.2) > 0.5 else 0.0
        item = Item(type="short", stem=f"Question {i}?", key="x", passage=Passage(text="p"))
        records.append(
            EvalRecord(record_id=f"r{i}", item=item, labels={"accept": accept}, group=f"g{i % 16}")
        )
        scores.append(_scores(v, naco=i % 2 == 0))
    return records, scores


def test_grouped_folds_never_share_a_passage(qgeval_small: Path) -> None:
    records = load_records(qgeval_small, "qgeval") * 3
    groups = [f"{r.group}-{i % 4}" for i, r in enumerate(records)]
    folds = grouped_folds(groups, n_splits=5)
    assert len(folds) == 5
    seen_test: list[int] = []
    for train, test in folds:
        assert not {groups[i] for i in train} & {groups[i] for i in test}
        seen_test.extend(test.tolist())
    assert sorted(seen_test) == list(range(len(groups)))  # every item tested once
    with pytest.raises(QuizsmithError):
        grouped_folds(["one"] * 5)


def test_features_and_matrix() -> None:
    feats = overall_features(_scores(0.4, naco=True))
    assert feats["ref.bleu4"] == 0.4 and feats["naco.a"] == 0.4 and feats["kda.cont"] is None
    mre = ScoreResult(
        metric="mre", value=0.8, values={"sre_bleu4": 0.2, "mre_bleu4": 0.3, "mre_bertscore": 0.8}
    )
    from_mre = overall_features({"mre": mre})
    assert from_mre["ref.bleu4"] == 0.2 and from_mre["mre.bleu4"] == 0.3
    m = feature_matrix([feats])
    assert m.shape == (1, 2 * len(FEATURES))
    # The shipped columns are reference-free: a reference overlap is not among them.
    assert not any(f.startswith(("ref.", "mre.", "mirror.")) for f in FEATURES)
    j = FEATURES.index("kda.cont")
    assert m[0, j] == -1.0 and m[0, len(FEATURES) + j] == 1.0
    not_scored = {"bleu": ScoreResult.not_scored("bleu", "no reference question")}
    assert all(v is None for v in overall_features(not_scored).values())


def test_qgeval_target_rule(qgeval_small: Path) -> None:
    records = load_records(qgeval_small, "qgeval")
    for r in records:
        expected = all(r.labels[d] >= 2.5 for d in r.labels if d != "mean")
        assert default_target(r) == int(expected)


def test_fit_predict_save_load(tmp_path: Path) -> None:
    records, scores = _synthetic()
    model = fit_overall(records, scores, seed=0, n_boot=50, features=ALL_FEATURES)
    assert set(model.used) == {"ref.bleu4", "ref.rouge_l", "naco", "naco.n", "naco.a", "naco.c"}
    cv = model.info["cv"]
    assert cv["folds"] == 5 and cv["pearson_vs_accept"]["pearson"]["value"] > 0.3
    assert "ref.bleu4" in model.info["single_features"]
    result = model.predict(_scores(0.9, naco=True))
    assert result.scored and 0.0 <= (result.value or 0) <= 1.0
    assert result.evidence["features"]["ref.bleu4"] == 0.9
    low = model.predict(_scores(0.05, naco=True))
    assert (low.value or 0) < (result.value or 0)
    # Too few of the features it learned from: not scored, with the reason.
    lonely = model.predict({"bleu": _scores(0.5)["bleu"]})  # 1 of the 6 features
    assert not lonely.scored and "Too few metric scores" in (lonely.not_scored_reason or "")
    path, sidecar = model.save(tmp_path / "m.joblib")
    assert sidecar.exists() and path.stat().st_size < 1_000_000
    again = OverallModel.load(path)
    assert again.predict(_scores(0.9, naco=True)).value == result.value


def test_blend_fits_saves_and_ignores_columns_constant_in_training(tmp_path: Path) -> None:
    records, scores = _synthetic()
    model = fit_overall(records, scores, seed=0, n_boot=50, features=ALL_FEATURES, kind="blend")
    assert isinstance(model.estimator, BlendClassifier)
    high, low = model.predict(_scores(0.9, naco=True)), model.predict(_scores(0.05, naco=True))
    assert 0.0 <= (low.value or 0) < (high.value or 0) <= 1.0
    path, _ = model.save(tmp_path / "blend.joblib")
    assert OverallModel.load(path).predict(_scores(0.9, naco=True)).value == high.value
    # By hand: column 1 is constant in training (a metric the training items lacked), so
    # whatever value it has later cannot move the estimate.
    rng = np.random.default_rng(0)
    x = np.column_stack([rng.random(200), np.full(200, -1.0)])
    y = (x[:, 0] + rng.normal(0, 0.2, 200) > 0.5).astype(int)
    blend = BlendClassifier(seed=0, min_leaf=10).fit(x, y)
    assert blend.keep_.tolist() == [True, False]
    probe = np.array([[0.8, -1.0], [0.8, 5.0], [0.1, -1.0]])
    p = blend.predict_proba(probe)[:, 1]
    assert p[0] == p[1] and p[0] > p[2]
    assert np.allclose(blend.predict_proba(probe).sum(axis=1), 1.0)
    # Nothing varies: a clear error, not a library traceback.
    with pytest.raises(QuizsmithError, match="same value on every item"):
        BlendClassifier().fit(np.full((40, 2), 0.5), np.array([0, 1] * 20))


def test_fit_needs_both_decisions() -> None:
    records, scores = _synthetic(30)
    for r in records:
        r.labels["accept"] = 1.0
    with pytest.raises(QuizsmithError, match="Too little to fit"):
        fit_overall(records, scores)


def test_shipped_model_loads_and_predicts_in_range() -> None:
    if not shipped_model_path().exists():
        pytest.fail(f"{shipped_model_path()} is missing: CONTRIBUTING.md, Rebuilding ...")
    model = OverallModel.load(shipped_model_path())
    assert model.info["training"]["items"] > 0 and model.used
    # Reference-free: nothing it uses needs a reference question.
    assert all(f.startswith(("sig.", "naco", "kda", "exam")) for f in model.used)
    assert model.info["cv"]["by_dataset"]["qgeval"]["n"] > 0
    values = []
    for v in np.linspace(0, 1, 6):
        signals = {
            "key_lp": -3.0 + 3.0 * v,
            "key_gain_passage": v,
            "key_gain_question": -1.0 + 2.0 * v,
            "key_share": v,
            "pick_f1": v,
            "q_fluency": -4.0,
            "sim": 0.2 + 0.5 * v,
            "key_in_sentence": 1.0,
            "overlap": v,
            "key_in_stem": 0.0,
            "stem_words": 10.0,
            "is_question": 1.0,
            "wh_match": 0.5,
            "cos_q_key": 0.3,
            "cos_q_masked": 0.3 + 0.4 * v,
        }
        item = Item(type="short", stem="Q?", key="k")
        item.scores = {"signals": ScoreResult(metric="signals", value=v, values=signals)}
        result = model.predict(item)
        assert result.scored and result.metric == "overall"
        values.append(result.value)
    assert all(0.0 <= x <= 1.0 for x in values)
    assert values[-1] > values[0]  # the key better supported by passage and question
    bare = model.predict(Item(type="short", stem="Q?", key="k"))
    assert not bare.scored and "Too few" in (bare.not_scored_reason or "")


def test_default_load_prefers_the_teachers_model(tmp_path: Path) -> None:
    # isolated_dirs points the config folder into tmp_path.
    assert not user_model_path().exists()
    records, scores = _synthetic()
    fit_overall(records, scores, n_boot=0).save(user_model_path())
    assert OverallModel.load().path == user_model_path()


def test_active_model_is_read_once_per_version_of_its_file(tmp_path: Path) -> None:
    shipped = load_active_model()
    assert shipped.path == shipped_model_path() and load_active_model() is shipped
    # A teacher's refit is a new file: read at once, and then kept.
    records, scores = _synthetic()
    fit_overall(records, scores, n_boot=0).save(user_model_path())
    refitted = load_active_model()
    assert refitted.path == user_model_path() and refitted is not shipped
    assert load_active_model() is refitted
    user_model_path().unlink()
    assert load_active_model().path == shipped_model_path()


def test_refit_from_bank(tmp_path: Path) -> None:
    from quizsmith.bank import ItemBank

    with ItemBank(tmp_path / "b.qbank") as bank:
        rng = random.Random(1)
        ids = []
        for i in range(40):
            pid = bank.add_passage(Passage(text=f"Passage {i % 8} text."))
            item = Item(type="short", stem=f"Question {i}?", key="answer", passage_id=pid)
            item_id = bank.add_item(item)
            v = rng.random()
            mre = ScoreResult(
                metric="mre",
                value=v,
                values={"sre_bleu4": v, "sre_rouge_l": v, "mre_bleu4": v, "mre_bertscore": v},
            )
            bank.add_score(item_id, mre)
            ids.append((item_id, v))
        for item_id, v in ids[:15]:
            bank.review(item_id, "accept" if v > 0.5 else "reject")
        with pytest.raises(QuizsmithError, match="Not enough decisions"):
            refit_from_bank(bank)
        for item_id, v in ids[15:]:
            bank.review(item_id, "needs-review")
            bank.review(item_id, "accept" if v > 0.4 else "reject")
        # A true/false decision is no lesson for the question model (its own calibration).
        tf_item = Item(type="tf", stem="Water is wet.", key="True", passage_id=pid)
        tf_item.options = Item.make_options("True", ["False"])
        tf = bank.add_item(tf_item)
        bank.add_score(tf, ScoreResult(metric="mre", value=0.9, values={"sre_bleu4": 0.9}))
        bank.review(tf, "accept")
        model = refit_from_bank(bank, min_each=5)
    assert model.path == user_model_path() and user_model_path().exists()
    assert model.path != shipped_model_path()
    assert model.info["training"]["items"] == 40
    assert "ref.bleu4" in model.used


def _bank_with_decisions(path: Path, decided: int) -> None:
    from quizsmith.bank import ItemBank

    rng = random.Random(3)
    with ItemBank(path) as bank:
        for i in range(40):
            pid = bank.add_passage(Passage(text=f"Passage {i % 8} text."))
            item_id = bank.add_item(
                Item(type="short", stem=f"Question {i}?", key="answer", passage_id=pid)
            )
            v = rng.random()
            naco = ScoreResult(metric="naco", value=v, values={"n": 1, "a": v, "c": 1.0})
            bank.add_score(item_id, naco)
            if i < decided:
                # Decisions the scores predict: a refit no better than chance is not used.
                bank.review(item_id, "accept" if v > 0.5 else "reject")


def test_refit_command_learns_the_teachers_decisions(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from quizsmith.cli import main

    few, enough = tmp_path / "few.qbank", tmp_path / "enough.qbank"
    _bank_with_decisions(few, decided=12)
    assert main(["refit", "--bank", str(few)]) == 2
    err = capsys.readouterr().err
    assert "Not enough decisions" in err and "at least 30" in err
    assert not user_model_path().exists()

    _bank_with_decisions(enough, decided=36)
    assert main(["refit", "--bank", str(enough)]) == 0
    out = capsys.readouterr().out
    assert "Refitted the overall score on your decisions (36 items)" in out
    loaded = OverallModel.load()
    assert loaded.path == user_model_path()
    assert set(loaded.used) >= {"naco", "naco.a"}
    assert loaded.predict(
        {"naco": ScoreResult(metric="naco", value=0.5, values={"n": 1, "a": 0.5, "c": 1.0})}
    ).scored


def _signal_scores(v: float) -> dict[str, ScoreResult]:
    from quizsmith.quality.signals import SIGNALS

    values = {name: v for name in SIGNALS}
    return {"signals": ScoreResult(metric="signals", value=v, values=values)}


def test_fit_on_signals_and_read_them_from_the_overall_evidence(tmp_path: Path) -> None:
    rng = random.Random(5)
    records, scores = [], []
    for i in range(120):
        v = rng.random()
        item = Item(type="short", stem=f"Q{i}?", key="k", passage=Passage(text="p"))
        accept = 1.0 if v + rng.gauss(0, 0.15) > 0.5 else 0.0
        records.append(
            EvalRecord(record_id=f"a:{i}", item=item, labels={"accept": accept}, group=f"g{i % 20}")
        )
        scores.append(_signal_scores(v))
    for kind in ("forest", "logistic", "boosting"):
        model = fit_overall(records, scores, n_boot=0, kind=kind)
        assert model.features == FEATURES and model.info["estimator"]["kind"] == kind
        assert all(f.startswith("sig.") for f in model.used)
        assert model.info["cv"]["pearson_vs_accept"]["pearson"]["value"] > 0.4
    # The overall metric keeps the signals in its evidence: a refit reads them from there.
    high = model.predict(_signal_scores(0.95))
    stored = ScoreResult(
        metric="overall",
        value=high.value,
        evidence={"signals": _signal_scores(0.95)["signals"].values},
    )
    assert overall_features({"overall": stored})["sig.key_lp"] == 0.95
    assert (high.value or 0) > (model.predict(_signal_scores(0.05)).value or 1)


def test_a_model_on_features_this_version_lacks_is_refused(tmp_path: Path) -> None:
    import joblib

    records, scores = _synthetic()
    model = fit_overall(records, scores, n_boot=0, features=ALL_FEATURES)
    path, _ = model.save(tmp_path / "m.joblib")
    blob = joblib.load(path)
    blob["features"] = [*blob["features"], "made.up"]
    joblib.dump(blob, path)
    with pytest.raises(QuizsmithError, match=r"does not compute \(made\.up\)"):
        OverallModel.load(path)


def test_per_dataset_cross_validation_when_fitted_on_two() -> None:
    records, scores = _synthetic(120)
    for i, r in enumerate(records):
        r.record_id = f"{'one' if i % 2 else 'two'}:{i}"
    model = fit_overall(records, scores, n_boot=0, features=ALL_FEATURES)
    assert set(model.info["cv"]["by_dataset"]) == {"one", "two"}
    assert model.info["cv"]["by_dataset"]["one"]["n"] == 60


def test_a_model_on_older_signals_is_refused(tmp_path: Path) -> None:
    import joblib

    rng = random.Random(2)
    records = [
        EvalRecord(
            record_id=f"a:{i}",
            item=Item(type="short", stem="Q?", key="k"),
            labels={"accept": float(i % 2)},
            group=f"g{i % 10}",
        )
        for i in range(60)
    ]
    scores = [_signal_scores(rng.random()) for _ in records]
    path, _ = fit_overall(records, scores, n_boot=0).save(tmp_path / "m.joblib")
    assert OverallModel.load(path).info["signals_version"] >= 1
    blob = joblib.load(path)
    blob["info"]["signals_version"] = -1
    joblib.dump(blob, path)
    with pytest.raises(QuizsmithError, match="version -1 of the quality signals"):
        OverallModel.load(path)


def test_a_model_on_an_older_reader_is_refused_and_a_light_one_is_not(tmp_path: Path) -> None:
    """The reader's key likelihoods changed form (quality/reader.py READER_VERSION): a model
    that reads them must have been fitted on the same form; one that does not, loads."""
    import joblib

    from quizsmith.quality.features import feature_names
    from quizsmith.quality.reader import READER_SIGNALS, READER_VERSION

    rng = random.Random(3)
    records, scores = [], []
    for i in range(80):
        v = rng.random()
        records.append(
            EvalRecord(
                record_id=f"a:{i}",
                item=Item(type="short", stem=f"Q{i}?", key="k"),
                labels={"accept": 1.0 if v > 0.5 else 0.0},
                group=f"g{i % 10}",
            )
        )
        result = _signal_scores(v)["signals"]
        result.values.update({name: v for name in READER_SIGNALS})
        scores.append({"signals": result})
    with_reader = fit_overall(records, scores, n_boot=0, features=feature_names())
    assert any(f.startswith("sig.reader_") for f in with_reader.used)
    assert with_reader.info["reader_version"] == READER_VERSION
    light_features = [f for f in feature_names() if not f.startswith("sig.reader_")]
    light = fit_overall(records, scores, n_boot=0, features=light_features)
    assert not any(f.startswith("sig.reader_") for f in light.used)
    for model, name in ((with_reader, "reader.joblib"), (light, "light.joblib")):
        path, _ = model.save(tmp_path / name)
        blob = joblib.load(path)
        blob["info"]["reader_version"] = 1
        joblib.dump(blob, path)
    with pytest.raises(QuizsmithError, match="version 1 of the reader signals"):
        OverallModel.load(tmp_path / "reader.joblib")
    assert OverallModel.load(tmp_path / "light.joblib").info["reader_version"] == 1
