"""An output path that names an input is refused before anything is written (issue 18):
`export --out` onto the bank once replaced the bank with a GIFT file (rc 0), and
`generate --bank x.db --out x.db` with JSONL. Real banks, real files, the real CLI."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from quizsmith.bank import ItemBank
from quizsmith.cli import main
from quizsmith.domain import Item, Passage

PASSAGE = "The Eiffel Tower was built for the 1889 World's Fair in Paris by Gustave Eiffel."


def _bank(path: Path) -> Path:
    with ItemBank(path) as bank:
        passage = Passage(text=PASSAGE)
        passage.id = bank.add_passage(passage)
        item = Item(
            type="mcq",
            stem="Who built the Eiffel Tower?",
            key="Gustave Eiffel",
            options=Item.make_options("Gustave Eiffel", ["Le Corbusier", "Victor Hugo"]),
            passage_id=passage.id,
            passage=passage,
            status="accepted",
        )
        bank.add_item(item)
    return path


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _refused(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "error:" in err and "fix:" in err and "Traceback" not in err
    assert "Nothing was written" in err
    return err


@pytest.mark.parametrize("fmt", ["gift", "jsonl", "csv", "docx"])
def test_export_onto_the_bank_is_refused_and_the_bank_is_untouched(
    tmp_path: Path, fmt: str, capsys: pytest.CaptureFixture[str]
) -> None:
    bank = _bank(tmp_path / "self.db")
    before = _digest(bank)
    err = _refused(["export", "--bank", str(bank), "--format", fmt, "--out", str(bank)], capsys)
    assert "--out" in err and "the bank" in err
    assert _digest(bank) == before
    with ItemBank(bank, create=False, read_only=True) as opened:
        assert len(opened.search(limit=None)) == 1 and opened.integrity_problems() == []


def test_the_same_file_under_other_names_is_caught(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    bank = _bank(tmp_path / "self.db")
    before = _digest(bank)
    os.symlink(bank, tmp_path / "link.gift")
    os.link(bank, tmp_path / "hard.gift")
    monkeypatch.chdir(tmp_path)
    for out in ("link.gift", "hard.gift", "./self.db", str(tmp_path / "sub" / ".." / "self.db")):
        _refused(["export", "--bank", "self.db", "--format", "gift", "--out", out], capsys)
    assert _digest(bank) == before


def test_export_onto_the_banks_wal_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bank = _bank(tmp_path / "b.db")
    wal = tmp_path / "b.db-wal"
    state = wal.read_bytes() if wal.exists() else None
    _refused(["export", "--bank", str(bank), "--format", "gift", "--out", str(wal)], capsys)
    assert (wal.read_bytes() if wal.exists() else None) == state


def test_export_onto_the_template_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bank = _bank(tmp_path / "b.db")
    template = tmp_path / "template.docx"
    template.write_bytes(b"not really a docx, but the user's file")
    argv = ["export", "--bank", str(bank), "--format", "docx", "--out", str(template)]
    err = _refused([*argv, "--template", str(template)], capsys)
    assert "--template" in err
    assert template.read_bytes() == b"not really a docx, but the user's file"


def test_generate_with_out_equal_to_bank_or_passage_is_refused_before_any_model_loads(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bank = _bank(tmp_path / "x.db")
    before = _digest(bank)
    passage = tmp_path / "p.txt"
    passage.write_text(PASSAGE, encoding="utf-8")
    _refused(["generate", str(passage), "--bank", str(bank), "--out", str(bank)], capsys)
    assert _digest(bank) == before
    _refused(["generate", str(passage), "--out", str(passage)], capsys)
    assert passage.read_text(encoding="utf-8") == PASSAGE


def test_score_out_onto_its_input_or_the_bank_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bank = _bank(tmp_path / "x.db")
    before = _digest(bank)
    _refused(["score", "--bank", str(bank), "--metrics", "naco", "--out", str(bank)], capsys)
    assert _digest(bank) == before
    items = tmp_path / "items.jsonl"
    items.write_text('{"type": "short", "stem": "Who?", "key": "Eiffel"}\n', encoding="utf-8")
    text = items.read_text(encoding="utf-8")
    _refused(["score", str(items), "--metrics", "naco", "--out", str(items)], capsys)
    assert items.read_text(encoding="utf-8") == text


def test_import_of_the_bank_into_itself_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bank = _bank(tmp_path / "x.db")
    before = _digest(bank)
    _refused(["import", str(bank), "--bank", str(bank), "--format", "jsonl"], capsys)
    assert _digest(bank) == before


def test_a_different_out_still_exports(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bank = _bank(tmp_path / "x.db")
    out = tmp_path / "quiz.gift"
    assert main(["export", "--bank", str(bank), "--format", "gift", "--out", str(out)]) == 0
    assert "Gustave Eiffel" in out.read_text(encoding="utf-8")
