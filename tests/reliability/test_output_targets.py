"""Round four (issue 48): where an export may write. A name or path longer than the file
system takes is a clear error (it was "Unexpected error (OSError)"); a device or a named pipe
is never replaced by a file (as root, `--out /dev/full` became a plain file and "Exported"
was printed); and the temporary files of an export killed mid-write are cleaned up by the
next export beside them."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from quizsmith.bank import BankError, ItemBank
from quizsmith.cli import main
from quizsmith.domain import Item
from quizsmith.paths_guard import STALE_AFTER_S, remove_stale_temps, temp_sibling

needs_posix = pytest.mark.skipif(os.name != "posix", reason="named pipes and /dev are POSIX")
FORMATS = ("jsonl", "gift", "docx")


def _bank(path: Path) -> Path:
    with ItemBank(path) as bank:
        bank.add_items(
            [
                Item(type="short", status="accepted", stem=f"What is {n}?", key=f"k{n}")
                for n in range(3)
            ]
        )
    return path


def _export(bank: Path, out: Path | str, fmt: str) -> list[str]:
    return ["export", "--bank", str(bank), "--format", fmt, "--out", str(out)]


def _refused(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "fix:" in err and "Unexpected error" not in err, err
    return err


def _listing(folder: Path) -> set[str]:
    return {p.name for p in folder.iterdir()}


@pytest.fixture
def work(tmp_path: Path) -> Path:
    """A folder of the test's own (tmp_path also holds the log and config folders)."""
    folder = tmp_path / "work"
    folder.mkdir()
    return folder


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_file_name_too_long_is_a_clear_error(
    fmt: str, work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bank = _bank(work / "school.qbank")
    before = _listing(work)
    err = _refused(_export(bank, work / ("a" * 300 + f".{fmt}"), fmt), capsys)
    assert (
        f"file name is {301 + len(fmt)} bytes long" in err and "Choose a shorter file name" in err
    )
    assert _listing(work) == before


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_path_too_long_is_a_clear_error(
    fmt: str, work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bank = _bank(work / "school.qbank")
    before = _listing(work)
    deep = work.joinpath(*["d" * 200] * 25, f"quiz.{fmt}")
    err = _refused(_export(bank, deep, fmt), capsys)
    assert "the path is" in err and "shorter path" in err
    assert _listing(work) == before


def test_a_bank_name_too_long_is_a_clear_error(
    work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    long_bank = work / ("b" * 300 + ".qbank")
    out = work / "all.jsonl"
    err = _refused(["export", "--bank", str(long_bank), "--out", str(out)], capsys)
    assert "file name is 306 bytes long" in err
    source = out.with_name("one.jsonl")
    source.write_text('{"type": "short", "question": "Q?", "answer": "a"}\n', encoding="utf-8")
    _refused(["import", str(source), "--bank", str(long_bank)], capsys)
    _refused(["import", str(source), "--bank", str(work.joinpath(*["d" * 200] * 25))], capsys)
    _refused(["recover", str(long_bank)], capsys)
    _refused(["recover", str(_bank(work / "s.qbank")), "--out", str(long_bank)], capsys)
    with pytest.raises(BankError, match="bytes long"):
        ItemBank(long_bank)
    assert _listing(work) == {"one.jsonl", "s.qbank"}


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_name_near_the_limit_still_exports(fmt: str, work: Path) -> None:
    """The temporary name beside it is longer than the target: it is cut to fit."""
    bank = _bank(work / "school.qbank")
    out = work / ("q" * (250 - len(fmt)) + f".{fmt}")
    assert main([*_export(bank, out, fmt), "--status", "all"]) == 0
    assert out.is_file() and not [p for p in work.iterdir() if p.name.endswith(".tmp")]


@needs_posix
@pytest.mark.parametrize("fmt", FORMATS)
def test_a_device_is_never_replaced_by_an_export(
    fmt: str, work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Through a link in work: were the check ever lost, the link is what gets replaced,
    never the machine's /dev/full."""
    if not Path("/dev/full").exists():
        pytest.skip("no /dev/full here")
    bank = _bank(work / "school.qbank")
    link = work / f"full.{fmt}"
    link.symlink_to("/dev/full")
    err = _refused(_export(bank, link, fmt), capsys)
    assert "is a device, not a regular file" in err
    assert link.is_symlink() and Path("/dev/full").is_char_device()


@needs_posix
@pytest.mark.parametrize("fmt", FORMATS)
def test_a_named_pipe_is_never_replaced_by_an_export(fmt: str, work: Path) -> None:
    bank = _bank(work / "school.qbank")
    fifo = work / f"pipe.{fmt}"
    os.mkfifo(fifo)
    done = subprocess.run(
        [sys.executable, "-m", "quizsmith.cli", *_export(bank, fifo, fmt)],
        capture_output=True,
        text=True,
        timeout=60,
        env=os.environ.copy(),
    )
    assert done.returncode == 2, done.stderr
    assert "named pipe (FIFO), not a regular file" in done.stderr
    assert fifo.is_fifo()


def test_a_folder_as_out_is_a_clear_error(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bank = _bank(work / "school.qbank")
    folder = work / "quiz.gift"
    folder.mkdir()
    assert "is a folder, not a regular file" in _refused(_export(bank, folder, "gift"), capsys)


def _dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


@needs_posix
@pytest.mark.parametrize("fmt", FORMATS)
def test_temporary_files_of_a_killed_export_are_removed_by_the_next(fmt: str, work: Path) -> None:
    """kill -9 during an export left `.out.jsonl.PID.tmp` behind for good."""
    bank = _bank(work / "school.qbank")
    out = work / f"out.{fmt}"
    dead = _dead_pid()
    old = time.time() - STALE_AFTER_S - 60
    left = [
        out.with_name(f".out.{fmt}.{dead}.tmp"),
        out.with_name(f".out.{fmt}.{dead}.0123456789ab.tmp"),
    ]
    # Kept: a live process's (this test's parent), a recent one, and files not of our pattern.
    kept = [
        out.with_name(f".out.{fmt}.{os.getppid()}.tmp"),
        out.with_name(f".out.{fmt}.{dead}.fedcba987654.tmp"),
        out.with_name(f".out.{fmt}.notes.tmp"),
        out.with_name(f".out.{fmt}.{dead}.tmp.bak"),
        out.with_name(f".other.{fmt}.{dead}.tmp"),
    ]
    for path in [*left, *kept]:
        path.write_text("partial", encoding="utf-8")
        if path != kept[1]:
            os.utime(path, (old, old))
    assert main([*_export(bank, out, fmt), "--status", "all"]) == 0
    assert out.is_file()
    assert [p for p in left if p.exists()] == []
    assert [p for p in kept if not p.exists()] == []


def test_the_temporary_name_follows_the_pattern_the_cleanup_reads(work: Path) -> None:
    target = work / ("x" * 254)
    for tmp in (temp_sibling(target), temp_sibling(target, "0123456789ab")):
        assert len(os.fsencode(tmp.name)) <= 255 and tmp.name.endswith(".tmp")
        tmp.write_text("partial", encoding="utf-8")
    assert remove_stale_temps(target) == []  # ours, alive
    with pytest.raises(ValueError, match="12 hex digits"):
        temp_sibling(target, "../../etc")
