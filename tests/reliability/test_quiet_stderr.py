"""The model libraries' own output stays off the terminal in CLI runs (issue 18): before,
`quizsmith score` printed llama.cpp's "llama_kv_cache_iswa: using full-size SWA cache" and
transformers' "Loading weights" progress bar between Quizsmith's own lines."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from quizsmith.domain import Item, Passage
from quizsmith.settings import Settings

pytestmark = pytest.mark.slow

FACT = "The Hesburgh Library at the University of Notre Dame was completed in 1963."
NOISE = ("llama_", "ggml_", "Loading weights", "it/s]", "load_tensors", "Traceback")


def test_a_cli_run_on_both_bundled_models_prints_no_library_noise(
    tmp_path: Path, one_thread: Settings
) -> None:
    item = Item(
        type="mcq",
        stem="In what year was the Hesburgh Library completed?",
        key="1963",
        options=Item.make_options("1963", ["1971", "1958", "1980"]),
        target_fact=FACT,
        passage=Passage(text=FACT + " It houses the main collection of books.", title="lib"),
    )
    items = tmp_path / "items.jsonl"
    items.write_text(json.dumps(item.to_dict()) + "\n", encoding="utf-8")
    # KDA loads both llama.cpp models (SmolLM2 and Gemma 3, whose sliding-window cache was
    # the warning) and the transformers embedding model.
    command = ["score", str(items), "--metrics", "kda", "--out", str(tmp_path / "scored.jsonl")]
    done = subprocess.run(
        [sys.executable, "-m", "quizsmith.cli", *command],
        capture_output=True,
        text=True,
        timeout=600,
        env=os.environ.copy(),
    )
    assert done.returncode == 0, done.stderr
    noisy = [line for line in done.stderr.splitlines() if any(n in line for n in NOISE)]
    assert noisy == [], done.stderr
