"""Files that are not usable banks: a clear BankError, never a traceback, never a write."""

from __future__ import annotations

import hashlib
import os
import sqlite3
import stat
from pathlib import Path

import pytest

from quizsmith.bank import BankError, ItemBank, schema
from quizsmith.errors import QuizsmithError

from .helpers import mcq


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _make_bank(path: Path, items: int = 3) -> None:
    with ItemBank(path) as bank:
        for n in range(items):
            bank.add_item(mcq(stem=f"Question number {n}?", key=f"Answer {n}"))


def test_bank_error_is_a_quizsmith_error_with_a_fix(tmp_path: Path) -> None:
    with pytest.raises(BankError) as info:
        ItemBank(tmp_path / "absent.qbank", create=False)
    assert isinstance(info.value, QuizsmithError)
    assert info.value.fix


@pytest.mark.parametrize(
    "content",
    [b"%PDF-1.7 not a database at all", b"x" * 5000, "Notes: élève 😀".encode()],
)
def test_a_file_that_is_not_sqlite_is_refused_untouched(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "notes.qbank"
    path.write_bytes(content)
    with pytest.raises(BankError, match="not a Quizsmith item bank"):
        ItemBank(path)
    assert path.read_bytes() == content
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.qbank"]


def test_another_sqlite_database_is_refused_untouched(tmp_path: Path) -> None:
    path = tmp_path / "grades.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE grades (student TEXT, mark REAL)")
    conn.execute("INSERT INTO grades VALUES ('Ana', 9.5)")
    conn.commit()
    conn.close()
    before = _digest(path)
    with pytest.raises(BankError, match="not a Quizsmith item bank"):
        ItemBank(path)
    assert _digest(path) == before


def test_a_bank_from_a_newer_quizsmith_is_refused_untouched(bank_path: Path) -> None:
    _make_bank(bank_path)
    conn = sqlite3.connect(bank_path)
    conn.execute(
        f"INSERT INTO {schema.MIGRATIONS_TABLE} (migration_set, name, applied_at) "
        "VALUES (?, '0099_from_the_future', '2030-01-01')",
        (schema.MIGRATION_SET,),
    )
    conn.commit()
    conn.close()
    before = _digest(bank_path)
    with pytest.raises(BankError, match="newer version") as info:
        ItemBank(bank_path)
    assert "Update Quizsmith" in info.value.fix
    assert _digest(bank_path) == before


def test_a_damaged_catalog_is_refused_untouched(bank_path: Path) -> None:
    _make_bank(bank_path)
    data = bytearray(bank_path.read_bytes())
    data[100:4096] = b"\xa5" * (4096 - 100)  # page 1 after the header: the schema table
    bank_path.write_bytes(bytes(data))
    with pytest.raises(BankError, match="damaged"):
        ItemBank(bank_path)
    assert bank_path.read_bytes() == bytes(data)


def test_damage_found_later_is_a_bank_error_too(bank_path: Path) -> None:
    with ItemBank(bank_path) as bank:
        bank.add_items(
            [mcq(stem=f"Question {n} " + "padding " * 40, key=f"A{n}") for n in range(300)]
        )
    data = bytearray(bank_path.read_bytes())
    page = 4096
    assert len(data) > 20 * page
    for start in range(8 * page, len(data) - page, 2 * page):
        data[start + 8 : start + page] = os.urandom(page - 8)
    bank_path.write_bytes(bytes(data))
    with pytest.raises(BankError, match="damaged"), ItemBank(bank_path) as damaged:
        damaged.search("question")
        damaged.search("padding", sort_by="id", limit=None)
        assert damaged.integrity_problems() == []


def test_a_truncated_bank_is_refused(bank_path: Path) -> None:
    _make_bank(bank_path, items=200)
    data = bank_path.read_bytes()
    bank_path.write_bytes(data[: len(data) // 3])
    with pytest.raises(BankError), ItemBank(bank_path) as bank:
        assert bank.integrity_problems() == []


def test_a_read_only_bank_opens_for_reading_and_refuses_writes(bank_path: Path) -> None:
    """Documented choice: a file without write permission opens read-only; reading,
    searching and exporting work, and a change raises a BankError saying why."""
    _make_bank(bank_path)
    bank_path.chmod(stat.S_IRUSR | stat.S_IRGRP)
    before = _digest(bank_path)
    try:
        with ItemBank(bank_path) as bank:
            assert bank.read_only
            assert len(bank.search("question")) == 3
            with pytest.raises(BankError, match="read-only"):
                bank.add_item(mcq())
            with pytest.raises(BankError, match="read-only"):
                bank.review(1, "accept")
        assert _digest(bank_path) == before
    finally:
        bank_path.chmod(stat.S_IRUSR | stat.S_IWUSR)


def test_a_read_only_bank_in_a_read_only_folder_can_still_be_read(tmp_path: Path) -> None:
    folder = tmp_path / "shared"
    folder.mkdir()
    path = folder / "school.qbank"
    _make_bank(path)
    path.chmod(stat.S_IRUSR)
    folder.chmod(stat.S_IRUSR | stat.S_IXUSR)
    try:
        with ItemBank(path) as bank:
            assert bank.read_only and bank.count() == 3
    finally:
        folder.chmod(stat.S_IRWXU)
        path.chmod(stat.S_IRUSR | stat.S_IWUSR)


def test_explicit_read_only_never_creates_or_writes(tmp_path: Path, bank_path: Path) -> None:
    with pytest.raises(BankError, match="no item bank"):
        ItemBank(tmp_path / "new.qbank", read_only=True)
    assert not (tmp_path / "new.qbank").exists()
    _make_bank(bank_path)
    with ItemBank(bank_path, read_only=True) as bank, pytest.raises(BankError, match="read-only"):
        bank.create_quiz("Week 1")


def test_missing_file_and_folder_cases(tmp_path: Path) -> None:
    with pytest.raises(BankError, match="no item bank"):
        ItemBank(tmp_path / "absent.qbank", create=False)
    with pytest.raises(BankError, match="does not exist"):
        ItemBank(tmp_path / "no-such-folder" / "a.qbank")
    with pytest.raises(BankError, match="folder"):
        ItemBank(tmp_path)


def test_an_empty_file_becomes_a_bank_only_when_creating(tmp_path: Path) -> None:
    path = tmp_path / "empty.qbank"
    path.touch()
    with pytest.raises(BankError, match="empty"):
        ItemBank(path, create=False)
    with ItemBank(path) as bank:
        bank.add_item(mcq())
    with ItemBank(path, create=False) as bank:
        assert bank.count() == 1


def test_a_closed_bank_says_so(bank_path: Path) -> None:
    bank = ItemBank(bank_path)
    bank.close()
    with pytest.raises(BankError, match="closed"):
        bank.search("x")
    with pytest.raises(BankError, match="closed"):
        bank.add_item(mcq())
