"""The command that builds the shipped estimators from a checked-in config (issue 49), run on
small samples: what it writes loads through the app's own loaders and names, in its sidecar,
the command and config that rebuild it."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from threadpoolctl import threadpool_limits

from quizsmith.evaluation import train_estimator
from quizsmith.evaluation.overall import fit_overall
from quizsmith.quality import type_estimate
from quizsmith.quality.features import overall_features
from quizsmith.quality.metric import ALL_SIGNALS
from quizsmith.quality.overall_model import OverallModel, feature_matrix

ROOT = Path(__file__).resolve().parents[2]
ESTIMATORS = ROOT / "packaging" / "estimators"
LIGHT = ("sig.key_lp", "sig.pick_f1", "sig.is_question", "sig.sim")


def _items(n: int = 200, groups: int = 20, seed: int = 0) -> list[dict]:
    """Items with light signals that carry the decision, noisily; every third unread."""
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(n):
        accept = int(rng.random() < 0.6)
        signals: dict[str, float | None] = dict.fromkeys(ALL_SIGNALS)
        signals.update(
            key_lp=float(rng.normal(-1.0 + accept, 0.8)),
            pick_f1=float(rng.random() < 0.3 + 0.5 * accept),
            is_question=float(rng.random() < 0.8 + 0.15 * accept),
            sim=float(rng.uniform(0.3, 0.9)),
        )
        rows.append(
            {
                "id": f"{'qgeval' if i % 4 else 'naco-variants'}:{i}",
                "group": f"p{i % groups}",
                "accept": accept,
                "mean": float(2 + accept + rng.normal(0, 0.2)) if i % 4 else None,
                "value": 0.5,
                "signals": signals,
                "reading": f"r{i}" if i % 3 else None,
            }
        )
    return rows


def _config(folder: Path, readings: bool, kind: str) -> Path:
    features = list(LIGHT) + (["sig.reader_f1", "sig.reader_key_lp"] if readings else [])
    lines = [
        'artefact = "overall"',
        'output = "model.joblib"',
        "[data]",
        'items = "items.jsonl"',
        'description = "a sample"',
        *(['readings = "readings.jsonl"'] if readings else []),
        "[fit]",
        f'kind = "{kind}"',
        "seed = 0",
        "folds = 2",
        "n_boot = 20",
        f"features = {json.dumps(features)}",
        "[info]",
        'profile = "standard"',
    ]
    path = folder / "sample.toml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("readings", "kind"), [(False, "blend"), (True, "logistic")], ids=["light", "with readings"]
)
def test_the_command_fits_an_overall_model_as_fit_overall_does(
    tmp_path: Path, readings: bool, kind: str
) -> None:
    rows = _items()
    train_estimator.write_jsonl(tmp_path / "items.jsonl", rows)
    rng = np.random.default_rng(1)
    read = {
        f"r{i}": {"key": f"r{i}", "reader_f1": float(rng.random()), "reader_key_lp": -rng.random()}
        for i in range(len(rows))
        if i % 3
    }
    train_estimator.write_jsonl(tmp_path / "readings.jsonl", read.values())
    config = _config(tmp_path, readings, kind)
    out = tmp_path / "built" / "model.joblib"

    # One thread: OpenMP's boosting threads fight over a busy machine's cores (10x slower).
    with threadpool_limits(1):
        assert train_estimator.main(["--config", str(config), "--output", str(out)]) == 0

    model = OverallModel.load(out)  # the app's own loader, with its checks
    sidecar = json.loads(out.with_suffix(".json").read_text(encoding="utf-8"))
    assert sidecar["rebuild"]["config"] == config.resolve().as_posix()
    assert sidecar["rebuild"]["command"] == (
        f"python -m quizsmith.evaluation.train_estimator --config {config.resolve().as_posix()}"
    )
    assert model.info["rebuild"] == sidecar["rebuild"]
    assert sidecar["profile"] == "standard"
    assert sidecar["training"]["items"] == (len(read) if readings else len(rows))
    # The same fit as fit_overall on the records and results the rows stand for.
    records, scores = train_estimator.overall_inputs(rows, read if readings else None)
    with threadpool_limits(1):
        direct = fit_overall(
            records, scores, kind=kind, n_splits=2, n_boot=20, features=tuple(model.features)
        )
    x = feature_matrix([overall_features(s) for s in scores], model.features)
    p_built = model.estimator.predict_proba(x)[:, 1]
    assert np.allclose(p_built, direct.estimator.predict_proba(x)[:, 1], rtol=0, atol=1e-9)
    assert sidecar["cv"]["pearson_vs_accept"] == direct.info["cv"]["pearson_vs_accept"]


def test_exported_rows_give_back_the_results_they_came_from() -> None:
    rows = _items(40, 8)
    records, scores = train_estimator.overall_inputs(rows, None)
    again = train_estimator.overall_rows(records, scores)
    assert [r["signals"] for r in again] == [r["signals"] for r in rows]
    assert [(r["id"], r["group"], r["accept"]) for r in again] == [
        (r["id"], r["group"], r["accept"]) for r in rows
    ]


def test_the_item_type_calibration_is_rebuilt_from_a_sample_of_its_readings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shipped = train_estimator.load_config(ESTIMATORS / "item_types.toml")
    readings = train_estimator.read_jsonl(ESTIMATORS / shipped["data"]["items"])
    tf = [r for r in readings if r["kind"] == "tf"][:30]
    cloze = [r for r in readings if r["kind"] == "cloze"][:30]
    train_estimator.write_jsonl(tmp_path / "items.jsonl", tf + cloze)
    config = tmp_path / "item_types.toml"
    config.write_text(
        'artefact = "item_types"\noutput = "calibration.json"\n'
        '[data]\nitems = "items.jsonl"\ndescription = "a sample of CELA"\n[fit]\nn_boot = 50\n',
        encoding="utf-8",
    )

    assert train_estimator.main(["--config", str(config)]) == 0

    built = tmp_path / "calibration.json"
    monkeypatch.setattr(type_estimate, "calibration_path", lambda: built)
    tf_fit = type_estimate.calibration("tf")  # read as the app reads it
    assert tf_fit is not None and tf_fit["features"] == ["tf_support"]
    assert tf_fit["provenance"]["data"] == "a sample of CELA"
    assert type_estimate.calibrations()["rebuild"]["config"] == config.resolve().as_posix()


def test_every_shipped_artefact_names_the_command_and_config_that_rebuild_it() -> None:
    for config in sorted(ESTIMATORS.glob("*.toml")):
        settings = train_estimator.load_config(config)
        target = (config.parent / settings["output"]).resolve()
        sidecar = target.with_suffix(".json")
        assert target.is_relative_to(ROOT / "resources"), config
        rebuild = json.loads(sidecar.read_text(encoding="utf-8")).get("rebuild")
        assert rebuild == {
            "command": f"python -m quizsmith.evaluation.train_estimator --config "
            f"{config.relative_to(ROOT).as_posix()}",
            "config": config.relative_to(ROOT).as_posix(),
        }, sidecar


@pytest.mark.parametrize(
    ("config_text", "items_text", "expected"),
    [
        (
            'artefact = "overall"\noutput = "m.joblib"\n[data]\nitems = "missing.jsonl"\n',
            None,
            "cannot be read",
        ),
        (
            'artefact = "overall"\noutput = "m.joblib"\n[data]\nitems = "items.jsonl"\n',
            '{"id": "a"}\n{"id": \n',
            "line 2",
        ),
        (
            'artefact = "overall"\noutput = "m.joblib"\n[data]\nitems = "items.jsonl"\n',
            "[1, 2]\n",
            "line 1: not a JSON object",
        ),
        ('artefact = "overall"\n[data]\nitems = "items.jsonl"\n', "", "`output`"),
        ('artefact = "forest"\n', "", "`artefact`"),
        ("artefact = \n", "", "cannot be read"),
    ],
)
def test_a_bad_config_or_items_file_is_a_clear_error(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    config_text: str,
    items_text: str | None,
    expected: str,
) -> None:
    config = tmp_path / "estimator.toml"
    config.write_text(config_text, encoding="utf-8")
    if items_text is not None:
        (tmp_path / "items.jsonl").write_text(items_text, encoding="utf-8")
    assert train_estimator.main(["--config", str(config)]) == 1
    error = capsys.readouterr().err
    assert error.startswith("error: ") and expected in error
    assert "Traceback" not in error
    assert not (tmp_path / "m.joblib").exists()
