from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from quizsmith import paths
from quizsmith.errors import ConfigError, ModelNotFoundError
from quizsmith.providers import catalog, registry
from quizsmith.providers.base import Provider
from quizsmith.providers.gguf_header import read_general_metadata


def test_bundled_models_are_described_and_installed() -> None:
    models = {m.id: m for m in catalog.load_catalog()}
    assert set(models) == {
        "smollm2-135m-instruct",
        "gemma3-270m",
        "all-minilm-l6-v2",
        "qwen2.5-coder-1.5b-instruct",
        "qwen2.5-coder-0.5b-instruct",
        # The English parser (generation/analysis.py loads it with spaCy; no provider).
        "en-core-web-sm",
    }
    for m in models.values():
        backends = [*registry.names(), "spacy"]
        assert m.roles and m.backend in backends and m.license and m.size_mb > 0
        if m.id == "qwen2.5-coder-0.5b-instruct" and not catalog.is_installed(m):
            continue  # optional: the `small` extra
        assert catalog.is_installed(m)
        path = catalog.locate(m)
        assert path.exists()
    assert catalog.locate(models["smollm2-135m-instruct"]).name == "SmolLM2-135M-Instruct.Q4_1.gguf"
    assert (catalog.locate(models["all-minilm-l6-v2"]) / "config.json").exists()


def test_gguf_header_reader_on_real_files() -> None:
    for model_id, arch in (("smollm2-135m-instruct", "llama"), ("gemma3-270m", "gemma3")):
        path = catalog.locate(catalog.find(model_id, catalog.load_catalog()))
        meta = read_general_metadata(path)
        assert meta["general.architecture"] == arch
        assert any(k.endswith(".context_length") for k in meta)


def _models_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "models"
    folder.mkdir()
    shutil.copy(paths.models_dir() / "catalog.toml", folder / "catalog.toml")
    return folder


def test_user_gguf_files_are_discovered_and_bad_ones_reported(tmp_path: Path) -> None:
    folder = _models_folder(tmp_path)
    extra = tmp_path / "more"
    extra.mkdir()
    bundled = catalog.locate(catalog.find("smollm2-135m-instruct", catalog.load_catalog()))
    (folder / "mine.gguf").symlink_to(bundled)
    (extra / "other.gguf").symlink_to(bundled)
    (folder / "broken.gguf").write_bytes(b"not a model at all")
    (folder / "truncated.gguf").write_bytes(b"GGUF\x03\x00")
    models = {m.id: m for m in catalog.all_models([str(extra)], models_dir=folder)}
    assert models["gguf:mine"].family == "llama" and not models["gguf:mine"].bundled
    assert models["gguf:other"].path == extra / "other.gguf"
    assert "not a GGUF" in models["gguf:broken"].metadata["problem"]
    assert "truncated" in models["gguf:truncated"].metadata["problem"]


def test_unknown_reference_lists_what_is_known() -> None:
    with pytest.raises(ModelNotFoundError) as err:
        catalog.find("llama-9000", catalog.load_catalog())
    assert "smollm2-135m-instruct" in str(err.value)
    with pytest.raises(ModelNotFoundError, match="does not exist"):
        catalog.find("/nowhere/model.gguf", catalog.load_catalog())


def test_missing_package_says_how_to_install(tmp_path: Path) -> None:
    folder = _models_folder(tmp_path)
    (folder / "catalog.toml").write_text(
        '[[model]]\nid = "ghost"\nname = "Ghost"\nbackend = "llamacpp"\n'
        'install = "pip install ghost-model"\n'
        'locate = { kind = "file", package = "ghost-model-not-installed", path = "g.gguf" }\n'
    )
    (model,) = catalog.load_catalog(folder)
    assert not catalog.is_installed(model)
    with pytest.raises(ModelNotFoundError) as err:
        catalog.locate(model)
    assert "pip install ghost-model" in str(err.value)


def test_broken_catalog_is_a_config_error(tmp_path: Path) -> None:
    folder = _models_folder(tmp_path)
    (folder / "catalog.toml").write_text("[[model]\n")
    with pytest.raises(ConfigError, match="invalid"):
        catalog.load_catalog(folder)
    with pytest.raises(ConfigError, match="missing"):
        catalog.load_catalog(tmp_path)


def test_registry_loads_built_ins_through_entry_points_and_accepts_plugins() -> None:
    assert {"llamacpp", "hf", "openai", "anthropic"} <= set(registry.names())
    assert registry.get("llamacpp").can_logprob and registry.get("hf").can_embed
    assert registry.get("anthropic").needs_key and not registry.get("anthropic").can_logprob

    class EchoProvider(Provider):
        name = "echo"
        can_chat = True

    registry.register("echo", EchoProvider)
    assert registry.get("echo") is EchoProvider
    with pytest.raises(TypeError):
        registry.register("bad", object)  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="Unknown provider"):
        registry.get("nope")
