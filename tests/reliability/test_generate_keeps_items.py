"""`quizsmith generate` keeps every finished item: a bank locked by another writer when an
item is ready costs no item, and a fresh run never asks one question twice (issue 18).

The generator is `QuickGenerator` (conftest.py): what is under test is what the CLI does
with finished items, and the bank is a real SQLite file locked by a real second connection.
"""

from __future__ import annotations

import itertools
import json
import sqlite3
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from quizsmith.bank import ItemBank, connection
from quizsmith.cli import main
from quizsmith.cli_shared import EXIT_INCOMPLETE
from quizsmith.providers.base import Provider

from .conftest import QuickGenerator

PASSAGE = (
    "The Hesburgh Library at the University of Notre Dame was completed in 1963. It is the "
    "third building to house the main collection of books. The front of the library is "
    "adorned with the Word of Life mural, designed by the artist Millard Sheets.\n\n"
    "The university library system holds more than 3 million volumes in ten libraries. The "
    "Snite Museum of Art was founded in 1980 and holds about 30,000 works of art."
)
CLUES = ("Alpha", "Bravo", "Charlie", "Delta", "Echo", "Foxtrot", "Golf", "Hotel", "India")


def _distinct_stems() -> Callable[[], str]:
    clues = itertools.cycle(CLUES)
    return lambda: f"Which detail do the notes give under clue {next(clues)}?"


@pytest.fixture
def passage_file(tmp_path: Path) -> Path:
    path = tmp_path / "library.txt"
    path.write_text(PASSAGE, encoding="utf-8")
    return path


class OtherWriter:
    """Another program writing to the bank: a second SQLite connection holding the write
    lock (BEGIN IMMEDIATE) from the moment `take` is called until `release`."""

    def __init__(self, path: Path) -> None:
        self.conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        self.held = False

    def take(self) -> None:
        if not self.held:
            self.conn.execute("BEGIN IMMEDIATE")
            self.held = True

    def release(self) -> None:
        if self.held:
            self.conn.execute("ROLLBACK")
            self.held = False

    def close(self) -> None:
        self.release()
        self.conn.close()


@pytest.fixture
def other_writer(tmp_path: Path) -> Iterator[OtherWriter]:
    bank_path = tmp_path / "quiz.qbank"
    ItemBank(bank_path).close()
    writer = OtherWriter(bank_path)
    yield writer
    writer.close()


def _rows(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _generate(passage: Path, n: int, *extra: str) -> int:
    common = ["--types", "short", "--no-rank", "--candidates", "1"]
    return main(["generate", str(passage), "-n", str(n), *common, *extra])


def test_a_bank_locked_for_a_moment_when_an_item_is_ready_still_gets_it(
    tmp_path: Path,
    passage_file: Path,
    other_writer: OtherWriter,
    quick_generation: Callable[[Provider], None],
) -> None:
    def lock_for_a_second() -> None:
        if not other_writer.held:
            other_writer.take()
            threading.Timer(1.0, other_writer.release).start()

    quick_generation(QuickGenerator(_distinct_stems(), on_stem=lock_for_a_second))
    bank_path = tmp_path / "quiz.qbank"
    assert _generate(passage_file, 2, "--bank", str(bank_path)) == 0
    with ItemBank(bank_path, create=False) as bank:
        assert bank.count() == 2
        assert bank.integrity_problems() == []


def test_a_bank_locked_throughout_loses_no_item(
    tmp_path: Path,
    passage_file: Path,
    other_writer: OtherWriter,
    quick_generation: Callable[[Provider], None],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Before: rc 2 "is busy", the finished item gone from the bank and from --out."""
    # Every try waits the busy timeout; a short one keeps the test fast.
    monkeypatch.setattr(connection, "BUSY_TIMEOUT_MS", 200)
    quick_generation(QuickGenerator(_distinct_stems(), on_stem=other_writer.take))
    bank_path, out = tmp_path / "quiz.qbank", tmp_path / "items.jsonl"
    assert _generate(passage_file, 2, "--bank", str(bank_path), "--out", str(out)) == (
        EXIT_INCOMPLETE
    )
    captured = capsys.readouterr()
    stems = [r["question"] for r in _rows(out)]
    assert len(stems) == 2
    rescue = sorted(tmp_path.glob("quiz-unsaved-*.jsonl"))
    assert len(rescue) == 1
    assert [r["question"] for r in _rows(rescue[0])] == stems
    assert f"kept in {rescue[0]}" in captured.err
    assert f"quizsmith import {rescue[0]} --bank {bank_path}" in captured.err
    # Following the fix once the other program is done adds them, passage and all.
    other_writer.release()
    assert main(["import", str(rescue[0]), "--bank", str(bank_path)]) == 0
    with ItemBank(bank_path, create=False) as bank:
        saved = bank.search(limit=None, with_passages=True)
        assert sorted(it.stem for it in saved) == sorted(stems)
        assert all(it.passage is not None and it.passage.text == PASSAGE for it in saved)
        assert bank.integrity_problems() == []


def test_without_out_a_locked_bank_keeps_the_items_in_the_rescue_file(
    tmp_path: Path,
    passage_file: Path,
    other_writer: OtherWriter,
    quick_generation: Callable[[Provider], None],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(connection, "BUSY_TIMEOUT_MS", 200)
    quick_generation(QuickGenerator(_distinct_stems(), on_stem=other_writer.take))
    bank_path = tmp_path / "quiz.qbank"
    assert _generate(passage_file, 1, "--bank", str(bank_path)) == EXIT_INCOMPLETE
    (rescue,) = tmp_path.glob("quiz-unsaved-*.jsonl")
    assert len(_rows(rescue)) == 1


def test_a_fresh_run_never_keeps_the_same_question_twice(
    tmp_path: Path, passage_file: Path, quick_generation: Callable[[Provider], None]
) -> None:
    """A resumed run avoids the questions already in the bank; a fresh one must also avoid
    those it made itself, even written in another case or spacing, with another key."""
    asked = iter(
        [
            "Which detail do the notes give here?",
            "WHICH detail  do the notes give here ?",
            "which detail do the notes give here?",
        ]
    )
    distinct = _distinct_stems()
    generator = QuickGenerator(lambda: next(asked, None) or distinct())
    quick_generation(generator)
    bank_path, out = tmp_path / "fresh.qbank", tmp_path / "items.jsonl"
    assert _generate(passage_file, 3, "--bank", str(bank_path), "--out", str(out)) == 0
    assert generator.stems_asked == 5  # two questions were dropped as repeats
    with ItemBank(bank_path, create=False) as bank:
        stems = [it.stem for it in bank.search(limit=None)]
        keys = [it.key for it in bank.search(limit=None)]
    assert len(stems) == 3
    assert len({" ".join(s.casefold().split()).rstrip("?. ") for s in stems}) == 3
    assert len(set(keys)) == 3
    assert sorted(r["question"] for r in _rows(out)) == sorted(stems)
