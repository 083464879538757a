"""Build a shipped estimator from its checked-in config: the command behind every fitted file
in resources/ (issue 49).

    .venv/bin/python -m quizsmith.evaluation.train_estimator --config packaging/estimators/X.toml

A config (TOML; its paths are relative to the config's own folder) names what it builds
(`artefact`: "overall" or "item_types"), where it writes it (`output`), the per-item inputs
beside it (`[data]`: ids, groups, labels and signal values, never the datasets' text) and the
fit's settings (`[fit]`). The fit runs on those numbers only, never on a model: the signals
were read once, by the bench scripts that measure them (packaging/estimators/README.md says
which). The file written names, in its sidecar (`rebuild`), the command and config that
rebuild it.

- "overall": an overall estimate (quality/overall_model.py), fitted by evaluation/overall.py's
  `fit_overall` exactly as `quizsmith eval --fit` fits one: the same estimator, seed, grouped
  folds and figures. Items: one JSON line each, {"id", "group", "accept", "mean", "value",
  "signals": {signal: value}, "reading"?}; an optional readings file adds the 1.5B reader's
  signals by each item's "reading" key (an item it has not read is left out, as the
  standard profile's fit always did).
- "item_types": the true/false and fill-in-the-blank calibration
  (evaluation/item_type_calibration.py) from bench/item_types.py's per-blank readings.
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
import time
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from quizsmith.domain import Item, ScoreResult
from quizsmith.errors import QuizsmithError
from quizsmith.evaluation.records import EvalRecord

COMMAND = "python -m quizsmith.evaluation.train_estimator --config {config}"
ARTEFACTS = ("overall", "item_types")


def load_config(path: Path) -> dict[str, Any]:
    try:
        config = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise QuizsmithError(
            f"The estimator config {path} cannot be read ({exc}).",
            "Name one of the TOML files in packaging/estimators/.",
        ) from None
    if config.get("artefact") not in ARTEFACTS:
        raise QuizsmithError(
            f"{path}: `artefact` must be one of {', '.join(ARTEFACTS)}.",
            "Name what the config builds.",
        )
    if not isinstance(config.get("data"), dict) or "items" not in config["data"]:
        raise QuizsmithError(
            f"{path}: [data] must name the per-item `items` file.", 'Add items = "NAME.jsonl".'
        )
    if not isinstance(config.get("output"), str):
        raise QuizsmithError(
            f"{path}: `output` must name the file to write.", 'Add output = "PATH".'
        )
    return config


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    """The rows of a per-item file; a missing file or a line that is no JSON object is an
    error naming the file (and the line)."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise QuizsmithError(
            f"The per-item file {path} cannot be read ({exc}).",
            "Export it first (CONTRIBUTING.md, Rebuilding the shipped estimators).",
        ) from None
    rows = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            row, problem = None, str(exc)
        else:
            problem = "not a JSON object"
        if not isinstance(row, dict):
            raise QuizsmithError(
                f"{path}, line {number}: {problem}.", "Export the file again; do not edit it."
            )
        rows.append(row)
    return rows


def write_jsonl(path: Path, rows: Iterable[Mapping[str, Any]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as out:
        for row in rows:
            out.write(json.dumps(row, ensure_ascii=False) + "\n")


def rebuild_entry(config_path: Path) -> dict[str, str]:
    """The sidecar's `rebuild`: the config as the command was given it, relative to the
    working folder (the repository root, where the shipped configs are run from)."""
    try:
        shown = config_path.resolve().relative_to(Path.cwd().resolve())
    except ValueError:
        shown = config_path.resolve()
    config = shown.as_posix()
    return {"command": COMMAND.format(config=config), "config": config}


# -- the overall estimate ---------------------------------------------------------------------
def item_row(
    record: EvalRecord, target: int, signals: ScoreResult, reading: str | None = None
) -> dict[str, Any]:
    """An item's line in an overall config's items file: what the fit reads of it."""
    from quizsmith.quality.metric import ALL_SIGNALS

    mean = record.labels.get("mean")
    row: dict[str, Any] = {
        "id": record.record_id,
        "group": record.group or record.record_id,
        "accept": int(target),
        "mean": mean if mean is not None and math.isfinite(mean) else None,
        "value": signals.value,
        "signals": {name: signals.values.get(name) for name in ALL_SIGNALS},
    }
    if reading is not None:
        row["reading"] = reading
    return row


def overall_rows(
    records: Sequence[EvalRecord],
    scores: Sequence[Mapping[str, ScoreResult]],
    readings: Sequence[str | None] | None = None,
) -> list[dict[str, Any]]:
    """The items file of an overall config from evaluation records and their `signals`
    results (bench/judgement.py and bench/standard_reader.py write it with --export-items):
    the records with a decision and a scored signals result, in their order (the folds
    depend on it)."""
    from quizsmith.evaluation.overall import default_target

    keys = readings if readings is not None else [None] * len(records)
    rows = []
    for record, score, reading in zip(records, scores, keys, strict=True):
        target, signals = default_target(record), score.get("signals")
        if target is None or signals is None or not signals.scored:
            continue
        rows.append(item_row(record, target, signals, reading))
    return rows


def overall_inputs(
    rows: Sequence[Mapping[str, Any]], readings: Mapping[str, Mapping[str, Any]] | None
) -> tuple[list[EvalRecord], list[dict[str, ScoreResult]]]:
    """Records and `signals` results as fit_overall reads them, from an items file's rows;
    with readings, each item's reader signals from its reading (unread items left out)."""
    from quizsmith.quality.reader import READER_SIGNALS

    records, scores = [], []
    for row in rows:
        values = dict(row["signals"])
        if readings is not None:
            reading = readings.get(str(row.get("reading")))
            if reading is None:
                continue
            values.update({name: reading[name] for name in READER_SIGNALS})
        labels = {"accept": float(row["accept"])}
        if row.get("mean") is not None:
            labels["mean"] = float(row["mean"])
        records.append(
            EvalRecord(
                record_id=row["id"],
                item=Item(type="short", stem="", key=""),
                labels=labels,
                group=row["group"],
            )
        )
        scores.append({"signals": ScoreResult(metric="signals", value=row["value"], values=values)})
    return records, scores


def train_overall(config: Mapping[str, Any], folder: Path) -> Any:
    from quizsmith.evaluation.overall import fit_overall
    from quizsmith.quality.features import FEATURES

    data, fit = config["data"], config.get("fit", {})
    rows = read_jsonl(folder / data["items"])
    readings = None
    if "readings" in data:
        readings = {row["key"]: row for row in read_jsonl(folder / data["readings"])}
    records, scores = overall_inputs(rows, readings)
    model = fit_overall(
        records,
        scores,
        seed=int(fit.get("seed", 0)),
        n_splits=int(fit.get("folds", 5)),
        description=data.get("description", ""),
        n_boot=int(fit.get("n_boot", 1000)),
        features=tuple(fit.get("features", FEATURES)),
        kind=fit.get("kind", "forest"),
    )
    model.info.update(config.get("info", {}))
    return model


# -- the item-type calibration ----------------------------------------------------------------
def git_revision() -> str:
    """The checkout's short commit, for provenance ("unknown" outside a git checkout)."""
    try:
        return subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=True
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def train_item_types(config: Mapping[str, Any], folder: Path) -> dict[str, Any]:
    from quizsmith.evaluation.item_type_calibration import calibration_file, calibration_report

    data = config["data"]
    n_boot = int(config.get("fit", {}).get("n_boot", 2000))
    report = calibration_report(read_jsonl(folder / data["items"]), n_boot)
    provenance = {
        "data": data.get("description", data["items"]),
        "reader": report["reader"],
        "revision": git_revision(),
    }
    return calibration_file(report, provenance)


# -- the command ------------------------------------------------------------------------------
def build(config_path: Path, output: Path | None = None) -> Path:
    """Fit what the config describes and write it (and an overall model's sidecar) to
    `output`, by default the config's own `output`."""
    config = load_config(config_path)
    folder = config_path.parent
    target = output or folder / config["output"]
    rebuild = rebuild_entry(config_path)
    if config["artefact"] == "overall":
        model = train_overall(config, folder)
        model.info["rebuild"] = rebuild
        saved, _ = model.save(target)
        return saved
    blob = train_item_types(config, folder)
    blob["rebuild"] = rebuild
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(blob, indent=2) + "\n", encoding="utf-8")
    return target


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", type=Path, required=True, help="the estimator's TOML")
    parser.add_argument("--output", type=Path, help="write here instead of the config's output")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    try:
        saved = build(args.config, args.output)
    except QuizsmithError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(f"wrote {saved} in {time.perf_counter() - started:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
