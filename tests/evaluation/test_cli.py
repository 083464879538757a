from __future__ import annotations

import json
from pathlib import Path

import pytest

from quizsmith.cli import main


def test_eval_command_writes_json_markdown_and_plots(
    qgeval_small: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = tmp_path / "out" / "report.json"
    plots = tmp_path / "plots"
    argv = [
        "eval",
        str(qgeval_small),
        "--format",
        "qgeval",
        "--metrics",
        "bleu,rouge",
        "--limit",
        "3",
        "--seed",
        "1",
        "--report",
        str(report),
        "--plots",
        str(plots),
        "--cache-dir",
        str(tmp_path / "cache"),
    ]
    assert main(argv) == 0
    data = json.loads(report.read_text(encoding="utf-8"))
    assert data["dataset"]["records_evaluated"] == 3
    assert data["metrics"] == ["bleu", "rouge"]
    assert report.with_suffix(".md").read_text(encoding="utf-8").startswith("# Metric evaluation")
    pngs = list(plots.glob("*.png"))
    assert pngs and all(p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" for p in pngs)
    out = capsys.readouterr().out
    assert "bleu:" in out and "scored" in out
    # A second run is served from the cache and writes the same report.
    assert main(argv) == 0
    again = json.loads(report.read_text(encoding="utf-8"))
    assert {k: v for k, v in again.items() if k != "timing"} == {
        k: v for k, v in data.items() if k != "timing"
    }
    assert again["timing"]["computed"] == 0


def test_eval_command_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"question": "Q?", "answer": "A"}\n', encoding="utf-8")
    rc = main(
        [
            "eval",
            str(bad),
            "--format",
            "jsonl",
            "--metrics",
            "bleu",
            "--report",
            str(tmp_path / "r.json"),
            "--cache-dir",
            str(tmp_path),
        ]
    )
    assert rc == 2
    err = capsys.readouterr().err
    assert "bad.jsonl, line 1" in err and "fix:" in err
    # The shipped model is rebuilt by its own command only (issue 49): no --ship here.
    with pytest.raises(SystemExit) as exited:
        main(["eval", str(bad), "--format", "jsonl", "--fit", "--ship", "--report", "r.json"])
    assert exited.value.code == 2
    assert "unrecognized arguments: --ship" in capsys.readouterr().err
