"""Round four (issue 48): a bank file is data, never code. Triggers, views and indexes that a
file carries beyond the schema are never run (removed, and said so, on the first open for
writing), a view in a table's place is refused before any query, `recover` builds no SQL
from names in the file and copies no trigger, a named pipe as a bank is refused without
waiting, and a rescue of an intact bank is complete however stale its statistics."""

from __future__ import annotations

import hashlib
import os
import sqlite3
import subprocess
import sys
import xml.etree.ElementTree as ET
from contextlib import closing
from pathlib import Path

import pytest
from sqlite_utils import Database

from quizsmith.bank import BankError, ItemBank, foreign, schema
from quizsmith.bank.recover import recover_bank
from quizsmith.cli import main
from quizsmith.domain import Item, Passage

needs_posix = pytest.mark.skipif(os.name != "posix", reason="named pipes are POSIX")

EVIL_DELETE = (
    "CREATE TRIGGER evil AFTER INSERT ON items BEGIN DELETE FROM items WHERE id <> NEW.id; END"
)
#: Accepting an item makes every option of it a key.
EVIL_KEYS = (
    "CREATE TRIGGER keys AFTER UPDATE OF status ON items BEGIN "
    "UPDATE options SET is_key = 1 WHERE item_id = NEW.id; END"
)
ENDLESS_VIEW = (
    "CREATE VIEW items AS WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) "
    "SELECT i AS id FROM n"
)


def _bank(path: Path, items: int = 50) -> Path:
    with ItemBank(path) as bank:
        pid = bank.add_passage(Passage(text="The river carries silt to the delta.", title="r"))
        bank.add_items(
            [
                Item(
                    type="mcq",
                    stem=f"Question {n} about the river?",
                    key=f"silt {n}",
                    options=Item.make_options(f"silt {n}", [f"sand {n}", f"clay {n}"]),
                    passage_id=pid,
                )
                for n in range(items)
            ]
        )
    return path


def _sql(path: Path, *statements: str) -> None:
    """Change the file as another program would (the sqlite3 shell)."""
    with closing(sqlite3.connect(path)) as conn:
        for statement in statements:
            conn.execute(statement)
        conn.commit()


def _objects(path: Path, kind: str) -> set[str]:
    with closing(sqlite3.connect(path)) as conn:
        return {
            r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = ?", (kind,))
        }


def _count(path: Path, table: str = "items") -> int:
    with closing(sqlite3.connect(path)) as conn:
        return int(conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0])


def _one_item_file(tmp_path: Path) -> Path:
    source = tmp_path / "one.jsonl"
    with ItemBank(tmp_path / "other.qbank") as other:
        other.add_item(Item(type="short", stem="What does the river carry?", key="silt"))
        other.export_jsonl(source)
    return source


def _cli(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """The command in its own process, so that a hang fails the test instead of stopping it."""
    return subprocess.run(
        [sys.executable, "-m", "quizsmith.cli", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=os.environ.copy(),
    )


def test_a_fresh_or_upgraded_bank_holds_nothing_foreign(tmp_path: Path) -> None:
    """The check must never fire on Quizsmith's own banks, at any migration."""
    fresh = _bank(tmp_path / "fresh.qbank", items=2)
    with closing(sqlite3.connect(fresh)) as conn:
        assert foreign.foreign_objects(conn) == [] and foreign.replaced_tables(conn) == []
    names = schema.known_names()
    for stop in names[1:]:
        old = tmp_path / f"old-{stop}.qbank"
        with closing(sqlite3.connect(old, isolation_level=None)) as conn:
            schema.migrate(Database(conn), stop_before=stop)
            assert foreign.foreign_objects(conn) == []
        with ItemBank(old) as bank:
            assert bank.notices == [] and bank.schema_version == names


def test_a_trigger_added_by_hand_never_runs_on_import(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Before: the trigger ran on the import's insert and 50 items became 1."""
    bank = _bank(tmp_path / "school.qbank")
    _sql(bank, EVIL_DELETE)
    source = _one_item_file(tmp_path)
    capsys.readouterr()
    assert main(["import", str(source), "--bank", str(bank)]) == 0
    err = capsys.readouterr().err
    assert 'the trigger "evil" on items' in err and "removed without running it" in err, err
    assert _count(bank) == 51
    assert "evil" not in _objects(bank, "trigger")


def test_a_trigger_on_status_cannot_make_every_option_a_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Before: `review --accept` fired it and the GIFT export marked three right answers."""
    bank = _bank(tmp_path / "school.qbank", items=3)
    _sql(bank, EVIL_KEYS)
    assert main(["review", "1", "2", "3", "--accept", "--bank", str(bank)]) == 0
    assert "keys" in capsys.readouterr().err
    out = tmp_path / "quiz.gift"
    assert main(["export", "--bank", str(bank), "--format", "gift", "--out", str(out)]) == 0
    text = out.read_text(encoding="utf-8")
    assert text.count("=") == 3, text  # one right answer per question
    with closing(sqlite3.connect(bank)) as conn:
        keys = conn.execute("SELECT item_id, sum(is_key) FROM options GROUP BY item_id")
        assert {n for _, n in keys} == {1}


def test_our_own_trigger_with_another_body_is_replaced_by_ours(tmp_path: Path) -> None:
    bank = _bank(tmp_path / "school.qbank", items=2)
    ours = next(sql for kind, name, sql in foreign.latest().code if name == "scores_latest")
    _sql(
        bank,
        "DROP TRIGGER scores_latest",
        "CREATE TRIGGER scores_latest AFTER INSERT ON scores BEGIN DELETE FROM items; END",
    )
    with ItemBank(bank) as opened:
        assert len(opened.notices) == 1 and "scores_latest" in opened.notices[0]
    with closing(sqlite3.connect(bank)) as conn:
        now = conn.execute("SELECT sql FROM sqlite_master WHERE name = 'scores_latest'")
        assert now.fetchone()[0] == ours


def test_a_read_only_open_runs_nothing_changes_nothing_and_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bank = _bank(tmp_path / "school.qbank", items=3)
    _sql(bank, EVIL_DELETE, "CREATE VIEW extra AS SELECT 1")
    before = hashlib.sha256(bank.read_bytes()).hexdigest()
    capsys.readouterr()
    out = tmp_path / "all.jsonl"
    assert main(["export", "--bank", str(bank), "--out", str(out)]) == 0
    err = capsys.readouterr().err
    assert "is not run" in err and "evil" in err and '"extra"' in err, err
    assert hashlib.sha256(bank.read_bytes()).hexdigest() == before
    assert len(out.read_text(encoding="utf-8").splitlines()) == 3


def test_a_foreign_view_or_index_is_dropped_when_opened_for_writing(tmp_path: Path) -> None:
    bank = _bank(tmp_path / "school.qbank", items=2)
    # An index whose expression fails on every insert is code too.
    _sql(
        bank,
        "CREATE VIEW extra AS SELECT 1",
        "CREATE INDEX broken ON items(abs(-9223372036854775807 - 1 - id))",
    )
    with ItemBank(bank) as opened:
        assert "extra" in opened.notices[0] and "broken" in opened.notices[0]
        opened.add_item(Item(type="short", stem="What does the river carry?", key="silt"))
    assert _objects(bank, "view") == set() and "broken" not in _objects(bank, "index")
    assert _count(bank) == 3


def test_a_view_in_place_of_the_items_table_is_refused_before_any_query(tmp_path: Path) -> None:
    """Before: `export` never ended (the view's recursive CTE) and `recover` exited 1."""
    bank = _bank(tmp_path / "school.qbank", items=5)
    _sql(bank, "ALTER TABLE items RENAME TO items_kept", ENDLESS_VIEW)
    with pytest.raises(BankError, match=r"items \(a view\)") as caught:
        ItemBank(bank, read_only=True)
    assert "recover" in caught.value.fix
    done = _cli("export", "--bank", str(bank), "--out", str(tmp_path / "all.jsonl"))
    assert done.returncode == 2 and "items (a view)" in done.stderr, done.stderr
    assert not (tmp_path / "all.jsonl").exists()
    done = _cli("recover", str(bank))
    assert done.returncode == 4, done.stdout + done.stderr
    assert "items: 0 rows; part could not be read (the file holds a view instead)" in done.stdout
    rescued = tmp_path / "school-rescued.qbank"
    assert _objects(rescued, "view") == set() and _count(rescued) == 0


def test_recover_builds_no_sql_from_table_names_in_the_file(tmp_path: Path) -> None:
    """Before: rc 1, "near FROM: syntax error" (the name was pasted into a query)."""
    bank = _bank(tmp_path / "school.qbank", items=4)
    _sql(bank, 'CREATE TABLE "a"" FROM items; --" (x)', EVIL_DELETE)
    report = recover_bank(bank)
    assert report.complete and report.problems == []
    assert report.table("items").kept == 4 and report.table("options").kept == 12
    assert 'a" FROM items; --' not in {t.name for t in report.tables}
    with closing(sqlite3.connect(report.target)) as conn:
        assert foreign.foreign_objects(conn) == []  # the trigger was not copied
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
    assert 'a" FROM items; --' not in tables
    with ItemBank(report.target) as rescued:
        assert rescued.count() == 4 and len(rescued.search("river", limit=None)) == 4


def test_recover_of_an_intact_bank_after_many_deletions_is_complete(tmp_path: Path) -> None:
    """Before: rc 4, "options: part could not be read": the row counts ANALYZE had left in
    sqlite_stat1 predated the deletions, and were taken for rows on damaged pages."""
    bank = _bank(tmp_path / "school.qbank", items=300)
    _sql(bank, "ANALYZE")
    with ItemBank(bank) as opened:
        assert opened.delete_items(list(range(1, 251))) == 250
    with closing(sqlite3.connect(bank)) as conn:
        counted = conn.execute("SELECT stat FROM sqlite_stat1 WHERE tbl = 'options'").fetchone()
    assert counted is not None and int(counted[0].split()[0]) == 900  # stale, as reported
    report = recover_bank(bank)
    assert report.complete, [(t.name, t.unreadable) for t in report.tables]
    assert report.table("options").kept == 150


@needs_posix
def test_a_named_pipe_as_the_bank_is_refused_without_waiting(tmp_path: Path) -> None:
    """Before: `export --bank f.qbank` and `import --bank f.qbank` waited forever."""
    fifo = tmp_path / "f.qbank"
    os.mkfifo(fifo)
    source = _one_item_file(tmp_path)
    for args in (
        ["export", "--bank", str(fifo), "--out", str(tmp_path / "all.jsonl")],
        ["import", str(source), "--bank", str(fifo)],
        ["recover", str(fifo)],
    ):
        done = _cli(*args, timeout=30)
        assert done.returncode == 2, done.stderr
        assert "named pipe (FIFO), not a regular file" in done.stderr and "fix:" in done.stderr
    assert not (tmp_path / "all.jsonl").exists() and fifo.is_fifo()


def test_a_device_as_the_bank_is_refused(tmp_path: Path) -> None:
    if not Path("/dev/null").exists():
        pytest.skip("no /dev/null here")
    link = tmp_path / "school.qbank"
    link.symlink_to("/dev/null")
    with pytest.raises(BankError, match="is a device, not a regular file"):
        ItemBank(link)


def test_the_moodle_export_still_has_one_key_per_question(tmp_path: Path) -> None:
    """The Moodle XML of a bank that held a key-flipping trigger: one 100% answer each."""
    bank = _bank(tmp_path / "school.qbank", items=2)
    _sql(bank, EVIL_KEYS)
    assert main(["review", "1", "2", "--accept", "--bank", str(bank)]) == 0
    out = tmp_path / "quiz.xml"
    assert main(["export", "--bank", str(bank), "--format", "moodle", "--out", str(out)]) == 0
    root = ET.parse(out).getroot()
    for question in root.iter("question"):
        if question.get("type") == "multichoice":
            right = [a for a in question.iter("answer") if a.get("fraction") == "100"]
            assert len(right) == 1
