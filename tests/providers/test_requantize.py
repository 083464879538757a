"""A faster copy of a packaged GGUF file (issue 16, item 3): how a catalog `copy` table is
served. SmolLM2's catalog entry has none today (measured, not adopted: models/catalog.toml);
these tests give a catalog entry one."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from quizsmith.modelreport import _which_file
from quizsmith.providers import catalog, requantize

SPEC = {"tensor_type": "Q8_0", "file": "copy-under-test.Q8_0.gguf"}

# llama.cpp's general.file_type numbers (LLAMA_FTYPE_MOSTLY_*).
Q4_1, Q8_0 = 3, 7


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("QUIZSMITH_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


def _file_type(path: Path) -> int:
    """general.file_type as llama.cpp reads it (the vocabulary only: quick)."""
    from llama_cpp import Llama

    llm = Llama(model_path=str(path), vocab_only=True, verbose=False)
    try:
        return int(llm.metadata["general.file_type"])
    finally:
        llm.close()


def _smollm2() -> catalog.CatalogModel:
    return catalog.find("smollm2-135m-instruct", catalog.load_catalog())


def _packaged(tmp_path: Path) -> Path:
    """A private copy of the packaged file, so its time stamp can be changed."""
    model = _smollm2()
    source = catalog.locate(model)
    private = tmp_path / source.name
    private.write_bytes(source.read_bytes())
    return private


def _with_copy() -> catalog.CatalogModel:
    return catalog.CatalogModel(**{**_smollm2().__dict__, "copy": dict(SPEC)})


def test_the_packaged_smollm2_file_is_q4_1_and_used_as_it_is() -> None:
    model = _smollm2()
    assert model.copy == {}
    packaged = catalog.locate(model)
    assert packaged.name == "SmolLM2-135M-Instruct.Q4_1.gguf"
    assert _file_type(packaged) == Q4_1


@pytest.mark.slow
def test_a_catalog_copy_table_makes_and_serves_the_copy(cache: Path) -> None:
    model = _with_copy()
    assert catalog.locate(model, assemble=False).name == "SmolLM2-135M-Instruct.Q4_1.gguf"
    copy = catalog.locate(model)  # made on first use
    assert copy == cache / "models" / SPEC["file"] and _file_type(copy) == Q8_0
    assert catalog.locate(model, assemble=False) == copy


@pytest.mark.slow
def test_copy_is_made_once_is_q8_0_and_remade_when_the_source_changes(
    cache: Path, tmp_path: Path
) -> None:
    source = _packaged(tmp_path)
    assert requantize.faster_copy(source, SPEC, make=False) is None  # not made yet
    copy = requantize.faster_copy(source, SPEC, make=True)
    assert copy == cache / "models" / SPEC["file"]
    assert _file_type(copy) == Q8_0
    assert 1.3 < copy.stat().st_size / source.stat().st_size < 1.8  # 8-bit vs 4-bit blocks
    stamp = json.loads(copy.with_name(copy.name + ".json").read_text())
    assert stamp["source_size"] == source.stat().st_size and stamp["tensor_type"] == "Q8_0"
    made = copy.stat().st_mtime_ns
    assert requantize.faster_copy(source, SPEC, make=True) == copy
    assert copy.stat().st_mtime_ns == made  # used again, not made again
    # A new packaged file (another package version): the old copy is not used.
    os.utime(source, ns=(made, made + 10**9))
    assert requantize.faster_copy(source, SPEC, make=False) is None
    assert requantize.faster_copy(source, SPEC, make=True) == copy
    assert not list(copy.parent.glob("*.partial"))


def test_a_failing_quantizer_falls_back_to_the_packaged_file(
    cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    import llama_cpp

    monkeypatch.setattr(llama_cpp, "llama_model_quantize", lambda *a: 1)
    source = _packaged(tmp_path)
    assert requantize.faster_copy(source, SPEC, make=True) is None
    assert "using the packaged file" in caplog.text
    assert not (cache / "models" / SPEC["file"]).exists()
    assert not list((cache / "models").glob("*.partial"))
    assert catalog.locate(_with_copy()).name == "SmolLM2-135M-Instruct.Q4_1.gguf"


def test_a_copy_without_its_stamp_or_with_a_damaged_stamp_is_not_used(
    cache: Path, tmp_path: Path
) -> None:
    source = _packaged(tmp_path)
    copy = cache / "models" / SPEC["file"]
    copy.parent.mkdir(parents=True)
    copy.write_bytes(b"half a file")
    assert requantize.current_copy(source, SPEC["file"], "Q8_0") is None
    copy.with_name(copy.name + ".json").write_text("{not json")
    assert requantize.current_copy(source, SPEC["file"], "Q8_0") is None


def test_unknown_tensor_type_is_refused(cache: Path, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="unknown tensor type 'Q2_K'"):
        requantize.make_copy(tmp_path / "x.gguf", "x.gguf", "Q2_K")


def test_the_model_report_says_which_file_is_in_use() -> None:
    model = _with_copy()
    assert "the Q8_0 copy" in _which_file(model, Path(f"/c/{SPEC['file']}"))
    missing = _which_file(model, Path("/p/SmolLM2-135M-Instruct.Q4_1.gguf"))
    assert "the packaged file" in missing and "--prepare" in missing
    assert _which_file(catalog.find("gemma3-270m", catalog.load_catalog()), Path("/g")) == ""
