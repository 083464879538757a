"""The kind a question asks for, read by the parser against the pattern rules it replaced.

300 QGEval questions with "what" or "which" (../shared/data/qgeval, shuffled with seed 1),
none written for either reader; prints the ones where the parser's `asked_kind`
(generation/distractor_kinds.py) and the patterns of revision ccc7277 (read from git) differ,
for reading one by one (docs/generation.md, step 5, has the count).

    .venv/bin/python bench/asked_kind_compare.py
"""

from __future__ import annotations

import importlib.util
import json
import random
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data" / "qgeval" / "instances.json"
OLD = "ccc7277:app/quizsmith/generation/distractor_kinds.py"


def questions(count: int = 300) -> list[str]:
    rows = json.loads(DATA.read_text(encoding="utf-8"))
    found = sorted({q["prediction"].strip() for r in rows for q in r["questions"]})
    random.Random(1).shuffle(found)
    wh = [
        q
        for q in found
        if q.lower().startswith(("what", "which"))
        or " what " in q.lower()
        or " which " in q.lower()
    ]
    return wh[:count]


def main() -> None:
    from quizsmith.generation.distractor_kinds import asked_kind

    source = subprocess.run(
        ["git", "show", OLD], cwd=ROOT, check=True, capture_output=True, text=True
    ).stdout
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "old_kinds.py"
        path.write_text(source, encoding="utf-8")
        spec = importlib.util.spec_from_file_location("old_kinds", path)
        assert spec and spec.loader
        old = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(old)
    asked = questions()
    differ = [(q, old.asked_kind(q), asked_kind(q)) for q in asked]
    differ = [d for d in differ if d[1] != d[2]]
    print(f"{len(asked)} questions; the readers differ on {len(differ)}")
    for question, before, now in differ:
        print(f"patterns {before!r:24} parser {now!r:22} {question}", file=sys.stdout)


if __name__ == "__main__":
    main()
