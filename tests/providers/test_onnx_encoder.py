"""The embedding model run by onnxruntime from its checked export (providers/onnx_encoder.py)."""

from __future__ import annotations

import logging
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from quizsmith.providers import hf, onnx_encoder

pytestmark = pytest.mark.slow

TEXTS = [
    "The heart pumps blood through the body.",
    "",
    "1920s",
    "Ångström, naïve café: “quoted” words and x² — 東京",
    "Who wrote Romeo and Juliet? " * 60,  # past 256 word pieces: cut as transformers cuts
]


@pytest.fixture
def fresh(monkeypatch: pytest.MonkeyPatch) -> None:
    """Encoders loaded by this test only."""
    monkeypatch.setattr(hf, "_loaded", {})


def _fake_folder(parent: Path) -> Path:
    """A folder that looks like a transformers model (a config) and holds none."""
    folder = parent / "model"
    folder.mkdir()
    (folder / "config.json").write_text("{}")
    return folder


def _bundled_folder() -> Path:
    from quizsmith.providers import catalog

    return catalog.locate(catalog.find("all-minilm-l6-v2", catalog.load_catalog()))


def test_onnxruntime_gives_torchs_vectors_and_word_pieces(fresh: None) -> None:
    folder = _bundled_folder()
    onnx = hf.HFEmbeddingProvider(folder)
    assert onnx.runtime == "onnxruntime"
    got, got_pieces = np.array(onnx.embed(TEXTS)), onnx.token_embeddings(TEXTS)
    hf._loaded[(str(folder.resolve()), 256)] = (
        hf.TorchEncoder(folder, 256),
        hf.threading.Lock(),
        "torch",
    )
    want, want_pieces = np.array(onnx.embed(TEXTS)), onnx.token_embeddings(TEXTS)
    assert got.shape == (len(TEXTS), 384)
    assert np.abs(got - want).max() < 1e-5
    assert [p.shape for p in got_pieces] == [p.shape for p in want_pieces]
    assert got_pieces[1].shape[0] == 0 and got_pieces[4].shape[0] == 254  # 256 less CLS, SEP
    pairs = zip(got_pieces, want_pieces, strict=True)
    assert max(np.abs(a - b).max() for a, b in pairs if a.size) < 1e-4


def test_embedding_through_the_export_imports_no_torch() -> None:
    code = (
        "import sys; from quizsmith.providers import provider_for; "
        "from quizsmith.settings import Settings; "
        "p = provider_for('all-minilm-l6-v2', Settings()); v = p.embed(['a river']); "
        "print(len(v[0]), p.runtime, 'torch' in sys.modules, 'transformers' in sys.modules)"
    )
    env = {**__import__("os").environ, "QUIZSMITH_MODEL_HOST": "0"}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
    )
    assert done.stdout.split() == ["384", "onnxruntime", "False", "False"]


def test_a_damaged_export_is_made_again(
    fresh: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("QUIZSMITH_CACHE_DIR", str(tmp_path))
    folder = _bundled_folder()
    damaged = onnx_encoder.export_path(folder)
    damaged.parent.mkdir(parents=True)
    damaged.write_bytes(b"not an onnx file")
    provider = hf.HFEmbeddingProvider(folder)
    assert provider.runtime == "onnxruntime"
    assert damaged.stat().st_size > 1_000_000  # exported again, and checked
    assert len(provider.embed(["still works"])[0]) == 384


def test_a_failed_export_leaves_no_file_and_says_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("QUIZSMITH_CACHE_DIR", str(tmp_path / "cache"))
    not_a_model = _fake_folder(tmp_path)
    export, why = onnx_encoder.ensure_export(not_a_model)
    assert export is None and why.startswith("the export failed")
    assert not list((tmp_path / "cache").rglob("*.onnx*"))
    # The next start does not spend a child process on it again; --prepare does.
    children: list[list[str]] = []
    real_run = subprocess.run

    def counted(command: list[str], **kwargs: object) -> object:
        children.append(command)
        return real_run(command, **kwargs)  # type: ignore[call-overload]

    monkeypatch.setattr(onnx_encoder.subprocess, "run", counted)
    export, again = onnx_encoder.ensure_export(not_a_model)
    assert export is None and again.startswith(why) and "--prepare" in again
    assert children == []
    onnx_encoder.ensure_export(not_a_model, retry=True)
    assert len(children) == 1


def test_without_onnxruntime_the_model_runs_with_torch(
    fresh: None, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(onnx_encoder, "available", lambda: False)
    with caplog.at_level(logging.WARNING, logger="quizsmith.providers.hf"):
        provider = hf.HFEmbeddingProvider(_bundled_folder())
        assert provider.runtime == "torch"
    assert "onnxruntime or tokenizers is not installed" in caplog.text
    a, b = provider.embed(["A river flows north.", "A river runs northwards."])
    assert 0.7 < float(np.dot(a, b)) <= 1.0 + 1e-6


def test_the_export_path_follows_the_model_files(tmp_path: Path) -> None:
    folder = _fake_folder(tmp_path)
    (folder / "model.safetensors").write_bytes(b"1234")
    first = onnx_encoder.export_path(folder)
    assert first == onnx_encoder.export_path(folder)
    (folder / "README.md").write_text("not a model file")
    assert onnx_encoder.export_path(folder) == first
    (folder / "model.safetensors").write_bytes(b"123456")
    assert onnx_encoder.export_path(folder) != first


def test_the_frozen_app_exports_through_its_own_entry(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    assert onnx_encoder.export_command() == [sys.executable, "--onnx-export"]
    monkeypatch.setattr(sys, "frozen", False)
    assert onnx_encoder.export_command()[1:] == ["-m", "quizsmith.providers.onnx_encoder"]


def test_quizsmith_models_says_which_runtime_the_embedding_model_takes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from quizsmith.modelreport import _embedding_runtime

    monkeypatch.setenv("QUIZSMITH_CACHE_DIR", str(tmp_path / "cache"))
    folder = _fake_folder(tmp_path)
    assert "once exported" in _embedding_runtime(folder)
    made = onnx_encoder.export_path(folder)
    made.parent.mkdir(parents=True)
    onnx_encoder.failure_path(made).write_text("the export failed (no network)")
    assert "export failed" in _embedding_runtime(folder)
    made.write_bytes(b"onnx")
    assert "export is made" in _embedding_runtime(folder)
    monkeypatch.setattr(onnx_encoder, "available", lambda: False)
    assert _embedding_runtime(folder).startswith("runs with torch")


def test_prepare_makes_a_damaged_export_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from quizsmith.providers import catalog, model_files

    monkeypatch.setenv("QUIZSMITH_CACHE_DIR", str(tmp_path))
    model = catalog.find("all-minilm-l6-v2", catalog.load_catalog())
    damaged = onnx_encoder.export_path(catalog.locate(model))
    damaged.parent.mkdir(parents=True)
    damaged.write_bytes(b"\x08\x07 truncated")
    _, note = model_files.prepare(model)
    assert note.startswith("runs with onnxruntime: exported and checked against torch")
    assert damaged.stat().st_size > 1_000_000


def test_a_cache_folder_that_cannot_be_written_leaves_torch_in_use(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocked = tmp_path / "cache"
    blocked.write_text("a file where the cache folder should be")
    monkeypatch.setenv("QUIZSMITH_CACHE_DIR", str(blocked))
    export, why = onnx_encoder.ensure_export(_fake_folder(tmp_path))
    assert export is None and why.startswith("no place for the export")
