"""Banks that are damaged, or whose last changes cannot be read where they lie: refused with a
message and a fix, never written into and never exported in part (issue 18)."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import stat
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from quizsmith.bank import BankError, ItemBank
from quizsmith.cli import main
from quizsmith.domain import Item, Passage

PAGE = 4096  # the bank's page size (SQLite's default; schema.py does not change it)


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _short(n: int) -> Item:
    return Item(type="short", stem=f"Question number {n} about the river?", key=f"silt {n}")


def _make_bank(path: Path, items: int) -> None:
    with ItemBank(path) as bank:
        pid = bank.add_passage(Passage(text="The river carries silt to the delta.", title="r"))
        batch = [_short(n) for n in range(items)]
        for item in batch:
            item.passage_id = pid
        bank.add_items(batch)


def _damage_page_of(path: Path, text: bytes) -> bytes:
    """Overwrite the cell pointers of the page holding `text`, as a torn write or a bad
    sector would; returns the damaged file's bytes."""
    data = bytearray(path.read_bytes())
    page = data.find(text) // PAGE
    assert page > 0
    data[page * PAGE + 8 : page * PAGE + 60] = b"\xff" * 52
    path.write_bytes(bytes(data))
    return bytes(data)


def test_a_bank_with_a_damaged_page_is_refused_before_any_write(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "school.qbank"
    _make_bank(path, items=300)
    damaged = _damage_page_of(path, b"Question number 150 about")
    with pytest.raises(BankError, match="damaged") as info:
        ItemBank(path)
    assert "quizsmith recover school.qbank" in info.value.fix and "backup" in info.value.fix
    with pytest.raises(BankError, match="damaged"):
        ItemBank(path, read_only=True)
    # Before: `generate --bank` wrote into it and an export held the readable rows only.
    out = tmp_path / "all.jsonl"
    assert main(["export", "--bank", str(path), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "is damaged" in err and "fix:" in err and "quizsmith recover" in err
    assert not out.exists()
    assert path.read_bytes() == damaged
    # (A read-only look at a WAL bank leaves SQLite's empty -wal and its -shm index.)
    wal = path.with_name("school.qbank-wal")
    assert not wal.exists() or wal.stat().st_size == 0


def test_unreadable_text_in_a_damaged_page_says_damaged_with_the_fix(tmp_path: Path) -> None:
    """Bytes that are not UTF-8 inside a row pass SQLite's structural check; reading them
    used to end in "Could not decode to UTF-8" with no fix."""
    path = tmp_path / "school.qbank"
    _make_bank(path, items=30)
    with ItemBank(path) as bank:
        item = _short(30)
        item.target_fact = "The river carries silt to the delta."  # not in the search index
        bank.add_item(item)
    data = path.read_bytes()
    assert data.count(b"carries silt") == 2  # the passage and this item's fact
    path.write_bytes(data.replace(b"carries silt", b"\xff\xfe" * 6))
    with ItemBank(path) as bank, pytest.raises(BankError, match="damaged") as info:
        bank.search(limit=None)
    assert "quizsmith recover" in info.value.fix


@pytest.mark.slow
def test_quick_check_on_a_bank_of_5000_items(tmp_path: Path) -> None:
    """Opening runs PRAGMA quick_check, which reads every page: it must stay a small part of
    opening a big bank (timing is measured in docs/reliability.md, not asserted here)."""
    path = tmp_path / "big.qbank"
    _make_bank(path, items=5000)
    with ItemBank(path) as bank:
        assert bank.count() == 5000


# -- committed changes still in the -wal, in a read-only folder -------------------------------


@contextmanager
def _read_only_folder(folder: Path) -> Iterator[None]:
    """Make `folder` read-only for this process. Root ignores permission bits, so as root
    the folder is marked immutable (chattr +i: not even root may create a file in it)."""
    if os.geteuid() != 0:
        folder.chmod(stat.S_IRUSR | stat.S_IXUSR)
        try:
            yield
        finally:
            folder.chmod(stat.S_IRWXU)
        return
    if shutil.which("chattr") is None:
        pytest.skip("running as root without chattr: no way to make a folder read-only")
    made = subprocess.run(["chattr", "+i", str(folder)], capture_output=True, text=True)
    if made.returncode != 0:
        pytest.skip(f"running as root and chattr +i failed: {made.stderr.strip()}")
    try:
        yield
    finally:
        subprocess.run(["chattr", "-i", str(folder)], check=True)


def _bank_with_changes_in_its_wal(folder: Path) -> tuple[Path, int]:
    """A copy of a bank taken while it was open: 3 items in the main file, 4 more committed
    but only in the -wal (as after a crash, or a copy made while Quizsmith ran)."""
    work = folder.parent / "work.qbank"
    _make_bank(work, items=3)
    bank = ItemBank(work)
    try:
        bank.add_items([_short(n) for n in range(3, 7)])
        wal = work.with_name(work.name + "-wal")
        assert wal.stat().st_size > 0
        folder.mkdir()
        shutil.copyfile(work, folder / "school.qbank")
        shutil.copyfile(wal, folder / "school.qbank-wal")
    finally:
        bank.close()
    return folder / "school.qbank", 7


def test_changes_left_in_the_wal_in_a_read_only_folder_are_not_exported_in_part(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, total = _bank_with_changes_in_its_wal(tmp_path / "shared")
    out = tmp_path / "all.jsonl"
    before = {p.name: _digest(p) for p in path.parent.iterdir()}
    with _read_only_folder(path.parent):
        # Before: rc 0, "Exported 3 items" (the main file only), no warning.
        assert main(["export", "--bank", str(path), "--out", str(out)]) == 2
        err = capsys.readouterr().err
        assert "school.qbank-wal" in err and "read-only" in err
        assert "fix: Copy school.qbank together with school.qbank-wal" in err
        assert not out.exists()
        with pytest.raises(BankError, match="saved changes"):
            ItemBank(path, read_only=True)
    assert {p.name: _digest(p) for p in path.parent.iterdir()} == before
    # Following the fix gives the whole bank.
    copy = tmp_path / "copy"
    copy.mkdir()
    for name in before:
        shutil.copyfile(path.parent / name, copy / name)
    assert main(["export", "--bank", str(copy / "school.qbank"), "--out", str(out)]) == 0
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert sum(1 for r in rows if r.get("question", "").startswith("Question number")) == total


def test_a_read_only_folder_without_pending_changes_still_opens(tmp_path: Path) -> None:
    folder = tmp_path / "shared"
    folder.mkdir()
    path = folder / "school.qbank"
    _make_bank(path, items=3)
    with _read_only_folder(folder), ItemBank(path, read_only=True) as bank:
        assert bank.count() == 3
