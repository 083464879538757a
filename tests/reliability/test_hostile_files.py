"""Round three (issue 28): files built to exhaust their reader. A crafted .gguf in a model
folder, .docx zip bombs as a passage and as an export template, and a .docx of empty
paragraphs. Each is refused or skipped with a message naming the file, in bounded time and
memory, and the other models and files still work."""

from __future__ import annotations

import io
import re
import struct
import time
import tracemalloc
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from quizsmith import settings as settings_mod
from quizsmith.bank import ItemBank
from quizsmith.cli import main
from quizsmith.domain import Item
from quizsmith.errors import ModelNotFoundError
from quizsmith.generation.passages import load_passage
from quizsmith.providers import catalog, manager
from quizsmith.providers.gguf_header import read_general_metadata
from quizsmith.text import PassageError

MB = 1024 * 1024


# -- GGUF headers ----------------------------------------------------------------------------
def _gguf(kv: bytes, n_kv: int = 1) -> bytes:
    return b"GGUF" + struct.pack("<IQQ", 3, 0, n_kv) + kv


def _string(text: str) -> bytes:
    raw = text.encode()
    return struct.pack("<Q", len(raw)) + raw


def _nested_name(depth: int) -> bytes:
    """`general.name` = [[[ ... ["x"] ... ]]], `depth` arrays deep (60 KB for 5,000)."""
    body = _string("general.name") + struct.pack("<I", 9)
    body += struct.pack("<IQ", 9, 1) * (depth - 1) + struct.pack("<IQ", 8, 1) + _string("x")
    return _gguf(body)


def _wide_arrays() -> bytes:
    """An array of 65,536 arrays of 65,536 floats: 4 billion values declared in 1 MB."""
    inner = struct.pack("<IQ", 6, 1 << 16)
    body = _string("general.tags") + struct.pack("<I", 9) + struct.pack("<IQ", 9, 1 << 16)
    return _gguf(body + inner + b"\x00" * (1 << 20))


def _many_strings() -> bytes:
    """4,096 keys of 16 KB strings each: 64 MB of text declared before any tokenizer key."""
    one = _string("general.x") + struct.pack("<I", 8) + _string("y" * 16384)
    return _gguf(one * 4096, n_kv=4096)


HOSTILE_GGUF = {
    "nested 5,000 deep": lambda: _nested_name(5000),
    "4 billion values": _wide_arrays,
    "64 MB of strings": _many_strings,
    "unknown value type": lambda: _gguf(_string("general.name") + struct.pack("<I", 77)),
}


def raised_with_peak(error: type[Exception], call: Callable[[], object]) -> tuple[Any, int]:
    """The error `call` raises (pytest's ExceptionInfo) and the peak of memory Python
    allocated meanwhile (tracemalloc), so a test can say a hostile file was refused cheaply."""
    tracemalloc.start()
    try:
        with pytest.raises(error) as caught:
            call()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return caught, peak


@pytest.mark.parametrize("case", HOSTILE_GGUF)
def test_a_hostile_gguf_header_is_unreadable_not_a_crash(case: str, tmp_path: Path) -> None:
    path = tmp_path / "evil.gguf"
    path.write_bytes(HOSTILE_GGUF[case]())
    started = time.monotonic()
    caught, peak = raised_with_peak(ModelNotFoundError, lambda: read_general_metadata(path))
    assert "evil.gguf" in caught.value.message and caught.value.fix
    assert time.monotonic() - started < 5
    assert peak < 16 * MB, peak


def _bundled_gguf() -> Path:
    models = {m.id: m for m in catalog.load_catalog()}
    return catalog.locate(models["smollm2-135m-instruct"])


def test_a_crafted_gguf_in_the_model_folder_is_listed_unusable_and_skipped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Before: `quizsmith models`, `score` and `generate` all ended in "Unexpected error
    (RecursionError)" and nothing named the file."""
    folder = tmp_path / "models"
    folder.mkdir()
    (folder / "evil.gguf").write_bytes(_nested_name(5000))
    (folder / "gone.gguf").symlink_to(tmp_path / "nowhere.gguf")
    (folder / "mine.gguf").symlink_to(_bundled_gguf())
    settings_mod.save(settings_mod.Settings(model_dirs=[str(folder)], n_threads=1))
    assert main(["models"]) == 0
    out = capsys.readouterr().out
    evil = out[out.index("gguf:evil") :].splitlines()
    assert "unusable" in evil[2] and "evil.gguf" in evil[2] and "nested" in evil[2]
    assert "unusable" in out[out.index("gguf:gone") :].splitlines()[2]
    assert "ok (" in out[out.index("gguf:mine") :].splitlines()[2]
    try:
        # Every model command builds its models here: the good ones still come (not loaded
        # until first used), the bad one is refused by name.
        assert manager.provider_for("gguf:mine").info.model
        assert manager.provider_for("smollm2-135m-instruct").info.model
        with pytest.raises(ModelNotFoundError, match=r"evil\.gguf"):
            manager.provider_for("gguf:evil")
    finally:
        manager.close_all()


# -- .docx bombs -----------------------------------------------------------------------------
def _docx_with(tmp_path: Path, name: str, part: str, size: int, piece: bytes) -> Path:
    """A real .docx (python-docx) whose `part` is replaced by `piece` repeated to `size`
    bytes, compressed (the bomb is small on disk)."""
    import docx

    base = io.BytesIO()
    document = docx.Document()
    document.add_paragraph("The Eiffel Tower was built for the 1889 World's Fair.")
    document.save(base)
    path = tmp_path / name
    with zipfile.ZipFile(base) as src, zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            if info.filename != part:
                dst.writestr(info, src.read(info))
                continue
            member = zipfile.ZipInfo(part)
            member.compress_type = zipfile.ZIP_DEFLATED
            with dst.open(member, "w", force_zip64=True) as out:
                head = b'<?xml version="1.0"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>'
                out.write(head)
                block = piece * (MB // len(piece))
                written = len(head)
                while written + len(block) < size:
                    out.write(block)
                    written += len(block)
                out.write(b"</w:body></w:document>")
    return path


def test_a_docx_bomb_as_a_passage_is_refused_before_it_is_unpacked(tmp_path: Path) -> None:
    """Before: a 1.5 MB file unpacking to 1.5 GiB took 47.6 s and 3.1 GB, then "damaged".
    Here 512 MiB of paragraphs in well under 1 MB on disk."""
    bomb = _docx_with(tmp_path, "bomb.docx", "word/document.xml", 512 * MB, b"<w:p/>")
    assert bomb.stat().st_size < 2 * MB
    started = time.monotonic()
    caught, peak = raised_with_peak(PassageError, lambda: load_passage(bomb))
    assert "bomb.docx" in caught.value.message
    assert "word/document.xml expands to 512 MB of text" in caught.value.message
    assert caught.value.fix
    assert time.monotonic() - started < 5 and peak < 16 * MB


def test_a_docx_of_empty_paragraphs_is_refused_quickly(tmp_path: Path) -> None:
    """Before: 3.3 KB of empty paragraphs took 76 s to read (10 KB: 211 s)."""
    path = _docx_with(tmp_path, "empty.docx", "word/document.xml", 3 * MB, b"<w:p/>")
    assert path.stat().st_size < 64 * 1024
    started = time.monotonic()
    with pytest.raises(PassageError, match=r"holds 349,\d\d\d paragraphs; a passage may have"):
        load_passage(path)
    assert time.monotonic() - started < 10
    # Just under the cap, every paragraph is walked: still seconds, not minutes.
    path = _docx_with(tmp_path, "almost.docx", "word/document.xml", 19_990 * 6 + 160, b"<w:p/>")
    started = time.monotonic()
    with pytest.raises(PassageError, match="empty"):
        load_passage(path)
    assert time.monotonic() - started < 10


def test_a_long_docx_below_the_caps_still_reads(tmp_path: Path) -> None:
    import docx

    path = tmp_path / "long.docx"
    document = docx.Document()
    document.add_heading("Towers", level=1)
    for i in range(900):
        document.add_paragraph("")  # blank lines between paragraphs, as teachers type them
        document.add_paragraph(f"Fact {i}: the tower is {i} metres from the river.")
    document.save(path)
    passage = load_passage(path)
    assert passage.title == "Towers" and passage.text.startswith("Towers")
    assert "Fact 899: the tower is 899 metres" in passage.text


def test_a_template_bomb_is_refused_before_it_is_unpacked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Before: a 0.5 MB template reached 1.08 GB of memory."""
    bank = tmp_path / "school.qbank"
    with ItemBank(bank) as opened:
        opened.add_item(
            Item(
                type="short",
                stem="In what year was the tower built?",
                key="1889",
                status="accepted",
            )
        )
    template = _docx_with(tmp_path, "bomb-template.docx", "word/styles.xml", 256 * MB, b" " * 64)
    out = tmp_path / "quiz.docx"
    args = ["export", "--bank", str(bank), "--format", "docx", "--out", str(out)]
    started = time.monotonic()
    assert main([*args, "--template", str(template)]) == 2
    err = capsys.readouterr().err
    assert "bomb-template.docx" in err
    assert re.search(r"word/styles.xml expands to 25\d MB of text", err)
    assert "fix:" in err and not out.exists()
    assert time.monotonic() - started < 10
