"""Odd things where a file is expected, and a disk that fills during an export: one message
and its fix each, never a hang, a wrong description or a traceback (issue 18)."""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from quizsmith.bank import ItemBank
from quizsmith.cli import main
from quizsmith.domain import Item
from quizsmith.formats.docx_export import default_template
from quizsmith.generation.passages import load_passage
from quizsmith.text import PassageError, read_text_file

needs_posix = pytest.mark.skipif(os.name != "posix", reason="FIFOs and /dev/zero are POSIX")


@needs_posix
def test_a_fifo_or_a_device_as_a_passage_is_not_a_regular_file(tmp_path: Path) -> None:
    """Before: "... is a folder, not a file" for both (and `exam --text` read /dev/zero
    until memory ran out)."""
    fifo = tmp_path / "pipe.txt"
    os.mkfifo(fifo)
    zero = tmp_path / "zero.txt"
    zero.symlink_to("/dev/zero")
    for path in (fifo, zero):
        for read in (load_passage, read_text_file):
            with pytest.raises(PassageError, match="not a regular file") as info:
                read(path)
            assert "folder" not in info.value.message and info.value.fix
    folder = tmp_path / "notes.txt"
    folder.mkdir()
    with pytest.raises(PassageError, match="is a folder"):
        load_passage(folder)


@needs_posix
def test_cli_generate_with_a_fifo_passage_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fifo = tmp_path / "pipe.md"
    os.mkfifo(fifo)
    assert main(["generate", str(fifo), "--out", str(tmp_path / "items.jsonl")]) == 2
    assert "is not a regular file" in capsys.readouterr().err


def _bank(path: Path, items: int = 3, words: int = 8) -> Path:
    import random

    rng = random.Random(1)
    vocabulary = ["".join(rng.choices("abcdefghijklmnopqrstuvwxyz", k=7)) for _ in range(4000)]
    with ItemBank(path) as bank:
        bank.add_items(
            [
                Item(
                    type="short",
                    status="accepted",
                    stem=" ".join(rng.choices(vocabulary, k=words)) + "?",
                    key=f"key {n}",
                )
                for n in range(items)
            ]
        )
    return path


def _rezipped(changes: dict[str, bytes]) -> bytes:
    source = default_template().read_bytes()
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(source)) as zin, zipfile.ZipFile(out, "w") as zout:
        for info in zin.infolist():
            zout.writestr(info, changes.get(info.filename, zin.read(info.filename)))
    return out.getvalue()


def _bad_crc() -> bytes:
    data = bytearray(default_template().read_bytes())
    at = len(data) // 3
    data[at : at + 40] = bytes(40)
    return bytes(data)


DAMAGED_TEMPLATES = {
    "damaged document.xml": lambda: _rezipped({"word/document.xml": b"<w:document><cut"}),
    "damaged styles.xml": lambda: _rezipped({"word/styles.xml": b"<<<not xml"}),
    "damaged [Content_Types].xml": lambda: _rezipped({"[Content_Types].xml": b"garbage"}),
    "a member's bytes damaged (bad CRC)": _bad_crc,
    "cut in half": lambda: default_template().read_bytes()[:5000],
}


@pytest.mark.parametrize("case", list(DAMAGED_TEMPLATES))
def test_a_damaged_template_is_a_clear_error(
    case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Before: XMLSyntaxError / BadZipFile tracebacks into a crash log (rc 1)."""
    bank = _bank(tmp_path / "school.qbank")
    template = tmp_path / "school-template.docx"
    template.write_bytes(DAMAGED_TEMPLATES[case]())
    out = tmp_path / "quiz.docx"
    args = ["export", "--bank", str(bank), "--format", "docx", "--out", str(out)]
    assert main([*args, "--template", str(template)]) == 2
    err = capsys.readouterr().err
    assert "school-template.docx" in err and "fix:" in err
    assert "Traceback" not in err and "Unexpected error" not in err
    assert not out.exists()


def _in_a_tiny_filesystem(size_kb: int, folder: Path, command: list[str]) -> str:
    """Run `command` with a tmpfs of `size_kb` KiB mounted on `folder`, in a private mount
    namespace (unshare: no root needed where user namespaces are allowed)."""
    script = f'mount -t tmpfs -o size={size_kb}k none "$1" && shift && exec "$@"'
    done = subprocess.run(
        ["unshare", "-rm", "sh", "-c", script, "sh", str(folder), *command],
        capture_output=True,
        text=True,
        timeout=120,
        env=os.environ.copy(),
    )
    return f"rc={done.returncode}\n{done.stdout}{done.stderr}"


def test_a_docx_export_to_a_full_disk_fails_once_cleanly(tmp_path: Path) -> None:
    """A real full disk (a small tmpfs), filled at several points of the write. Before:
    after "error: ... No space left on device" came "Exception ignored in: ZipFile.__del__"
    and an OSError traceback."""
    if shutil.which("unshare") is None or shutil.which("mount") is None:
        pytest.skip("needs unshare and mount to make a small filesystem")
    probe = subprocess.run(["unshare", "-rm", "true"], capture_output=True, text=True, check=False)
    if probe.returncode != 0:
        pytest.skip(f"user namespaces are not allowed here: {probe.stderr.strip()}")
    bank = _bank(tmp_path / "school.qbank", items=200, words=150)
    whole = tmp_path / "whole.docx"
    assert main(["export", "--bank", str(bank), "--format", "docx", "--out", str(whole)]) == 0
    size_kb = whole.stat().st_size // 1024
    disk = tmp_path / "usb"
    disk.mkdir()
    cli = [sys.executable, "-m", "quizsmith.cli", "export", "--bank", str(bank)]
    for fraction in (0.2, 0.5, 0.8, 0.95):
        out = disk / "quiz.docx"
        shown = _in_a_tiny_filesystem(
            max(8, int(size_kb * fraction)), disk, [*cli, "--format", "docx", "--out", str(out)]
        )
        assert shown.startswith("rc=2\n"), shown
        assert "No space left on device" in shown and "Free some space" in shown, shown
        assert "Exception ignored" not in shown and "Traceback" not in shown, shown
