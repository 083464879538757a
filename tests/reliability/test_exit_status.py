"""Exit statuses and `quizsmith score ITEMS.jsonl` (issue 18): 0 only when everything was
done, 4 when the run finished but items were not scored (3 stays "no display" for `gui`), 2
for refusals; ITEMS.jsonl goes through import's checks before any model loads; --out is
written as each score is made; the summary counts only this run's scores."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from quizsmith.cli import main
from quizsmith.cli_shared import EXIT_INCOMPLETE
from quizsmith.providers import manager
from quizsmith.settings import Endpoint, Settings, save

from .test_http_boundary import RawServer, chat_ok, reply

PASSAGE = "The Eiffel Tower was built for the 1889 World's Fair in Paris."


def _items(path: Path, *stems: str, **extra: Any) -> Path:
    lines = [
        json.dumps({"type": "short", "question": s, "answer": "1889", "passage": PASSAGE, **extra})
        for s in stems
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _qa_endpoint(base_url: str) -> None:
    s = Settings(n_threads=1)
    s.roles["qa"] = "endpoint:school"
    s.endpoints["school"] = Endpoint(
        name="school", base_url=base_url, model="m", max_retries=0, timeout_s=5
    )
    save(s)


def test_exit_statuses_are_distinct() -> None:
    from quizsmith.gui.app import NO_DISPLAY_EXIT

    assert len({0, 1, 2, NO_DISPLAY_EXIT, EXIT_INCOMPLETE, 130}) == 6


def test_every_item_failing_is_not_success_and_out_is_written_as_it_goes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    items = _items(tmp_path / "items.jsonl", "When was the tower built?", "Where is the tower?")
    out = tmp_path / "scored.jsonl"
    seen_in_out: list[int] = []

    def respond(i: int, req: dict[str, Any]) -> bytes:
        if out.exists():
            lines = out.read_text(encoding="utf-8").splitlines()
            seen_in_out.append(sum("naco" in json.loads(line)["scores"] for line in lines))
        return reply(chat_ok(content=5))  # a 200 whose content is not text

    server = RawServer(respond)
    _qa_endpoint(server.base_url)
    try:
        code = main(["score", str(items), "--metrics", "naco", "--out", str(out)])
    finally:
        server.close()
        manager.close_all()
    stdout = capsys.readouterr().out
    assert code == EXIT_INCOMPLETE
    assert "0 scores written" in stdout and "2 not scored" in stdout
    assert "where the text of the answer belongs" in stdout
    # The second item's requests saw the first item's result already in --out.
    assert 1 in seen_in_out
    for line in out.read_text(encoding="utf-8").splitlines():
        json.loads(line, parse_constant=lambda c: pytest.fail(f"{c} in --out"))


@pytest.mark.parametrize(
    ("stems", "extra", "why"),
    [
        (["?"], {}, "no words"),
        (["x" * 11000 + "?"], {}, "at most 2,000"),
        (["Which?"], {"type": "mcq", "distractors": ["1889", "1900"]}, "same text"),
    ],
    ids=["stem of ?", "11k-character stem", "duplicate options"],
)
def test_score_items_jsonl_runs_imports_checks_first(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], stems: list[str], extra: Any, why: str
) -> None:
    items = _items(tmp_path / "items.jsonl", *stems, **extra)
    out = tmp_path / "scored.jsonl"
    assert main(["score", str(items), "--metrics", "naco,kda,exam", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "Line 1 of items.jsonl" in err and why in err and "fix:" in err
    assert not out.exists()
