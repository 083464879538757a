"""Round three (issue 28): a bank replaced under a running job, references that point at
nothing, and `quizsmith recover` on real damaged banks (with sqlite_stat1, as every bank that
was closed once has)."""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
import sys
import time
from contextlib import closing
from pathlib import Path

import pytest

from quizsmith.bank import BankError, BankReplacedError, ItemBank
from quizsmith.bank.recover import recover_bank
from quizsmith.cli import main
from quizsmith.domain import Item, Passage, ScoreResult

from .test_damaged_bank import _damage_page_of


def _bank(path: Path, items: int, stem: str = "Question number {n} about the river?") -> None:
    with ItemBank(path) as bank:
        pid = bank.add_passage(Passage(text="The river carries silt to the delta.", title="r"))
        ids = bank.add_items(
            [
                Item(
                    type="mcq",
                    stem=stem.format(n=n),
                    key=f"silt {n}",
                    options=Item.make_options(f"silt {n}", [f"sand {n}", f"clay {n}"]),
                    passage_id=pid,
                    target_fact=f"Fact-{n:04d} of the river.",  # stored in items only
                )
                for n in range(items)
            ]
        )
        for item_id in ids[::3]:
            bank.save_score(item_id, ScoreResult(metric="naco", value=0.5), [])


def _tables(path: Path) -> set[str]:
    with closing(sqlite3.connect(path)) as conn:
        return {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}


# -- a bank replaced under a running job ------------------------------------------------------
def test_a_write_after_the_file_was_replaced_is_refused(tmp_path: Path) -> None:
    bank_path, other = tmp_path / "school.qbank", tmp_path / "other.qbank"
    _bank(bank_path, 5)
    _bank(other, 30, stem="Other bank's question {n}?")
    bank = ItemBank(bank_path)
    first = bank.search(limit=None)[0]
    bank.save_score(first.id, ScoreResult(metric="kda", value=0.4), [])
    # cp other.qbank new; mv new school.qbank: the reported swap, while the bank is open.
    shutil.copy(other, tmp_path / "new.qbank")
    (tmp_path / "new.qbank").replace(bank_path)
    with pytest.raises(BankReplacedError) as caught:
        bank.save_score(first.id, ScoreResult(metric="kda", value=0.9), [])
    assert "school.qbank was replaced by another file" in caught.value.message
    assert "nothing more is saved" in caught.value.message and caught.value.fix
    bank.close()
    # The file now at the name is the other bank, untouched and consistent.
    with ItemBank(bank_path) as swapped:
        assert swapped.count() == 30 and swapped.integrity_problems() == []
        assert all(s.startswith("Other bank") for s in (i.stem for i in swapped.search()))


def test_a_bank_closed_after_its_file_was_replaced_leaves_no_wal_for_the_new_file(
    tmp_path: Path,
) -> None:
    """A window that only reads after the swap, then closes: SQLite keeps a moved file's -wal
    by name on close; closing moves it into the file that was opened instead."""
    bank_path, other = tmp_path / "school.qbank", tmp_path / "other.qbank"
    _bank(bank_path, 5)
    _bank(other, 30, stem="Other bank's question {n}?")
    bank = ItemBank(bank_path)
    bank.save_score(1, ScoreResult(metric="kda", value=0.4), [])  # committed, in the -wal
    bank_path.rename(tmp_path / "moved.qbank")
    shutil.copy(other, bank_path)
    bank.close()
    wal = tmp_path / "school.qbank-wal"
    assert not wal.exists() or wal.stat().st_size == 0
    with ItemBank(bank_path) as swapped:
        assert swapped.count() == 30 and swapped.integrity_problems() == []
    with ItemBank(tmp_path / "moved.qbank") as moved:  # the score went to the file opened
        assert [s.value for s in moved.score_history(1, "kda")] == [0.4]


def test_a_bank_removed_under_an_open_window_is_refused(tmp_path: Path) -> None:
    bank_path = tmp_path / "school.qbank"
    _bank(bank_path, 3)
    with ItemBank(bank_path) as bank:
        bank_path.rename(tmp_path / "moved.qbank")
        with pytest.raises(BankReplacedError, match="was removed or renamed"):
            bank.add_passage(Passage(text="Another passage about deltas."))


_SCORE_SLOWLY = """
import sys, time
from quizsmith.bank import ItemBank
from quizsmith.domain import ScoreResult
from quizsmith.cli import main
from quizsmith.metrics import registry
from quizsmith.metrics.base import Metric

class Slow(Metric):
    name = "slow"
    title = "Slow"
    item_types = ("mcq",)
    value_range = (0.0, 1.0)
    def compute(self, item, ctx):
        time.sleep(0.4)
        return ScoreResult(metric="slow", value=0.5)

registry.register("slow", Slow)
sys.exit(main(["score", "--bank", sys.argv[1], "--metrics", "slow"]))
"""


def test_score_stops_when_its_bank_is_swapped_mid_run(tmp_path: Path) -> None:
    """The reported case as a real process: `score` over 12 items, the file swapped after a
    few were scored. Before: rc 0, "12 scores written", scores on the other bank's items and
    30 broken references that later commands accepted."""
    bank_path, other = tmp_path / "school.qbank", tmp_path / "other.qbank"
    _bank(bank_path, 12)
    _bank(other, 40, stem="Other bank's question {n}?")
    script = tmp_path / "score_slowly.py"
    script.write_text(_SCORE_SLOWLY, encoding="utf-8")
    run = subprocess.Popen(
        [sys.executable, str(script), str(bank_path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        with closing(sqlite3.connect(f"{bank_path.as_uri()}?mode=ro", uri=True)) as look:
            scored = look.execute("SELECT count(*) FROM scores WHERE metric='slow'").fetchone()
        if scored[0] >= 3:
            break
        time.sleep(0.05)
    shutil.copy(other, tmp_path / "new.qbank")
    (tmp_path / "new.qbank").replace(bank_path)
    out, err = run.communicate(timeout=60)
    assert run.returncode == 2, (out, err)
    assert "school.qbank was replaced by another file" in err and "fix:" in err
    # The bank now at the name is the other one, whole: no score of this run landed on it.
    with ItemBank(bank_path) as swapped:
        assert swapped.count() == 40
        assert swapped.integrity_problems() == []
        with swapped.reading() as conn:
            assert (
                conn.execute("SELECT count(*) FROM scores WHERE metric='slow'").fetchone()[0] == 0
            )


def test_references_to_missing_items_are_refused_at_open(tmp_path: Path) -> None:
    bank_path = tmp_path / "school.qbank"
    _bank(bank_path, 6)
    with closing(sqlite3.connect(bank_path)) as conn:  # as a swapped -wal leaves it
        conn.execute("PRAGMA foreign_keys = OFF")
        conn.execute("DELETE FROM items WHERE id IN (1, 4)")
        conn.commit()
    with pytest.raises(BankError) as caught:
        ItemBank(bank_path)
    assert "is damaged" in caught.value.message
    assert "of scores point at items that are not in it" in caught.value.message
    assert "quizsmith recover school.qbank" in caught.value.fix


# -- quizsmith recover ----------------------------------------------------------------------
def test_recover_rescues_a_bank_with_a_damaged_page(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "school.qbank"
    _bank(path, 400)
    with closing(sqlite3.connect(path)) as conn:  # closed: its -wal is moved into the file
        conn.execute("ANALYZE")  # as PRAGMA optimize leaves it on a real bank
        conn.commit()
    assert "sqlite_stat1" in _tables(path)
    damaged = _damage_page_of(path, b"Fact-0200 of")  # a page of the items table
    with pytest.raises(BankError, match="damaged") as caught:
        ItemBank(path)
    assert "quizsmith recover" in caught.value.fix
    code = main(["recover", str(path)])
    out = capsys.readouterr().out
    assert code == 4  # rows on the damaged page were lost, and it says so
    assert "items:" in out and "could not be read" in out, out
    assert path.read_bytes() == damaged  # the damaged file is only read
    rescued = tmp_path / "school-rescued.qbank"
    with ItemBank(rescued) as bank:
        assert bank.integrity_problems() == []
        kept = bank.count()
        assert 300 < kept < 400, kept
        stems = {i.stem for i in bank.search(limit=None)}
        assert "Question number 0 about the river?" in stems
        assert "Question number 399 about the river?" in stems  # read back from the end
        assert len(bank.search("river", limit=None)) == kept  # the search index was rebuilt
        # A new item never takes the id of one lost on the damaged page.
        new_id = bank.add_item(Item(type="short", stem="What does the river carry?", key="silt"))
        assert new_id > 400
    # Run again: the rescued file exists, and is never overwritten.
    assert main(["recover", str(path)]) == 2
    assert "already exists" in capsys.readouterr().err


def test_recover_of_a_healthy_bank_keeps_everything(tmp_path: Path) -> None:
    path = tmp_path / "school.qbank"
    _bank(path, 50)
    with ItemBank(path) as bank:
        before = [(i.id, i.stem, i.key, [o.text for o in i.options]) for i in bank.search()]
        scores_before = bank.score_history(1, "naco")
    report = recover_bank(path, tmp_path / "copy.qbank")
    assert report.complete and report.problems == []
    with ItemBank(tmp_path / "copy.qbank") as bank:
        after = [(i.id, i.stem, i.key, [o.text for o in i.options]) for i in bank.search()]
        assert after == before
        assert [s.value for s in bank.score_history(1, "naco")] == [s.value for s in scores_before]


def test_recover_drops_references_to_lost_items(tmp_path: Path) -> None:
    path = tmp_path / "school.qbank"
    _bank(path, 9)
    with closing(sqlite3.connect(path)) as conn:
        conn.execute("PRAGMA foreign_keys = OFF")
        conn.execute("DELETE FROM items WHERE id = 4")
        conn.execute("DELETE FROM passages")
        conn.commit()
    report = recover_bank(path)
    assert report.table("scores").dropped == 1  # item 4's score
    assert report.table("options").dropped == 3
    assert report.table("items").cleared == 8  # their passage is gone; the items stay
    with ItemBank(report.target) as bank:
        assert bank.count() == 8 and bank.integrity_problems() == []


def test_recover_refuses_what_is_not_a_bank(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "notes.qbank"
    path.write_text("not a database", encoding="utf-8")
    assert main(["recover", str(path)]) == 2
    assert "is not an SQLite file" in capsys.readouterr().err
    assert not (tmp_path / "notes-rescued.qbank").exists()
    bank = tmp_path / "school.qbank"
    _bank(bank, 2)
    for out in (bank, tmp_path / "school.qbank-wal"):  # never written over the bank itself
        assert main(["recover", str(bank), "--out", str(out)]) == 2
        assert "is the damaged bank" in capsys.readouterr().err


def test_rows_skipped_without_an_error_are_reported(tmp_path: Path) -> None:
    """A damaged interior page can make SQLite skip a leaf without raising (seen once in
    three runs of the test above: 376 of 400 items kept, no word of it). The shortfall is
    found from the table's own count, else from what ANALYZE recorded."""
    from quizsmith.bank.recover import _shortfall

    path = tmp_path / "counts.db"
    with closing(sqlite3.connect(path)) as conn:
        conn.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, x TEXT)")
        conn.execute("CREATE INDEX t_x ON t (x)")
        conn.executemany("INSERT INTO t (x) VALUES (?)", [(str(i),) for i in range(10)])
        conn.execute("ANALYZE")
        conn.commit()
        # The table still holds 10: reading 7 of them is 3 skipped.
        assert _shortfall(conn, "t", 7) == "3 of 10 rows were skipped by a damaged page"
        assert _shortfall(conn, "t", 10) == ""
        # After deletions ANALYZE's count is older than the table: named with both causes.
        conn.execute("DELETE FROM t WHERE id > 8")
        conn.commit()
        message = _shortfall(conn, "t", 8)
        assert "ANALYZE counted 10" in message and "deleted since" in message
        assert _shortfall(conn, "t", 12) == ""  # more than expected is never a shortfall
