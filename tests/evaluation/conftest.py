"""Shared fixtures: the hand-written fixture files and a few real lines of the shipped
datasets (../shared/data next to the checkout; QUIZSMITH_DATA_DIR overrides)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

FIXTURES = Path(__file__).parent / "fixtures"
REPO = Path(__file__).resolve().parents[2]


def data_dir() -> Path:
    env = os.environ.get("QUIZSMITH_DATA_DIR")
    return Path(env) if env else REPO.parent / "shared" / "data"


@pytest.fixture
def fixtures() -> Path:
    return FIXTURES


@pytest.fixture
def qgeval_small(tmp_path: Path) -> Path:
    """The first SQuAD and the first HotpotQA passage of QGEval (2 x 15 questions)."""
    source = data_dir() / "qgeval" / "instances.json"
    if not source.exists():
        pytest.skip(f"QGEval data not found at {source}")
    data = json.loads(source.read_text(encoding="utf-8"))
    squad = next(x for x in data if x["questions"][0]["source"].startswith("SQuAD"))
    hotpot = next(x for x in data if x["questions"][0]["source"].startswith("HotpotQA"))
    path = tmp_path / "qgeval_small.json"
    path.write_text(json.dumps([squad, hotpot]), encoding="utf-8")
    return path


@pytest.fixture
def naco_squad_small(tmp_path: Path) -> Path:
    source = data_dir() / "naco" / "squad_candidates.jsonl"
    if not source.exists():
        pytest.skip(f"NACo data not found at {source}")
    lines = source.read_text(encoding="utf-8").splitlines()[:4]
    path = tmp_path / "naco_small.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path
