"""`quizsmith generate` on the bundled models: JSONL out, bank in, and continuing a batch."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from quizsmith.bank import ItemBank
from quizsmith.cli import main

pytestmark = pytest.mark.slow

PASSAGE = (
    "The Hesburgh Library at the University of Notre Dame was completed in 1963. It is the "
    "third building to house the main collection of books. The front of the library is "
    "adorned with the Word of Life mural, designed by the artist Millard Sheets. The mural is "
    "popularly known as Touchdown Jesus because of its proximity to Notre Dame Stadium.\n\n"
    "The university library system holds more than 3 million volumes in ten libraries. The "
    "Snite Museum of Art was founded in 1980 and holds about 30,000 works of art."
)


@pytest.fixture
def passage_file(tmp_path: Path) -> Path:
    # One llama.cpp thread: the suite may share the cores with other work.
    config = Path(os.environ["QUIZSMITH_CONFIG_DIR"])
    config.mkdir(parents=True, exist_ok=True)
    (config / "settings.toml").write_text("[models]\nn_threads = 1\n", encoding="utf-8")
    path = tmp_path / "library.txt"
    path.write_text(PASSAGE, encoding="utf-8")
    return path


def test_generate_writes_jsonl_and_bank_and_continues(
    passage_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out, bank_path = tmp_path / "items.jsonl", tmp_path / "quiz.qbank"
    common = ["generate", str(passage_file), "--types", "cloze,short", "--no-rank"]
    assert main([*common, "-n", "2", "--out", str(out), "--bank", str(bank_path)]) == 0
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [r["type"] for r in rows] == ["cloze", "short"]
    assert all(r["fact"] in PASSAGE and r["answer"] in r["fact"] for r in rows)
    with ItemBank(bank_path, create=False) as bank:
        first = bank.search(limit=None)
        assert len(first) == 2
        passage_id = first[0].passage_id
    # The same passage again with -n 3: the two stored items count, one more is made, and it
    # asks about a different answer.
    assert main([*common, "-n", "3", "--bank", str(bank_path)]) == 0
    assert "Continuing: 2 items" in capsys.readouterr().out
    with ItemBank(bank_path, create=False) as bank:
        items = bank.items_of_passage(passage_id)
        assert len(items) == 3
        assert len({it.key for it in items}) == 3
        assert bank.integrity_problems() == []


def test_generate_refuses_bad_arguments(passage_file: Path, capsys: pytest.CaptureFixture[str]):
    assert main(["generate", str(passage_file), "-n", "2"]) == 2
    assert "--out" in capsys.readouterr().err
    assert main(["generate", str(passage_file), "--types", "essay", "--out", "x.jsonl"]) == 2
    assert "types must be" in capsys.readouterr().err
    missing = passage_file.with_name("missing.pdf")
    assert main(["generate", str(missing), "--out", "x.jsonl"]) == 2
