"""The model catalog: bundled models from models/catalog.toml plus user GGUF files.

A model reference, as used in settings, is one of:
  <catalog id>          a bundled model, e.g. "smollm2-135m-instruct"
  gguf:<stem>           a user *.gguf found in models/ or a configured folder
  endpoint:<name>       a server configured under [endpoints.<name>] in settings
  /path/to/file.gguf    any GGUF file on disk
"""

from __future__ import annotations

import logging
import tomllib
from dataclasses import dataclass, field
from importlib.metadata import PackageNotFoundError, distribution
from pathlib import Path
from typing import Any

from quizsmith import paths
from quizsmith.errors import ConfigError, ModelNotFoundError
from quizsmith.providers.package_record import check_packaged_size

CATALOG_FILE = paths.CATALOG_FILE

log = logging.getLogger(__name__)


@dataclass
class CatalogModel:
    id: str
    name: str
    backend: str
    roles: list[str] = field(default_factory=list)
    family: str = ""
    chat: bool | None = None  # None: decided from the model's own chat template when loaded
    license: str = ""
    size_mb: float = 0.0
    #: How to find the weights; values are strings except a "parts" model's counts and sizes.
    locate: dict[str, Any] = field(default_factory=dict)
    #: A faster copy of a packaged GGUF file: {"tensor_type": "Q8_0", "file": name}
    #: (providers/requantize.py).
    copy: dict[str, str] = field(default_factory=dict)
    install: str = ""
    #: The model these weights are a packaging of, and where it comes from (recorded when the
    #: packages that carry it state no licence of their own).
    upstream: str = ""
    source: str = ""
    bundled: bool = True
    #: Installed only on request (an extra such as `.[small]`): its absence is no fault.
    optional: bool = False
    path: Path | None = None  # known up front for user GGUF files
    metadata: dict[str, Any] = field(default_factory=dict)


def load_catalog(models_dir: Path | None = None) -> list[CatalogModel]:
    file = models_dir / CATALOG_FILE if models_dir is not None else paths.catalog_file()
    try:
        data = tomllib.loads(file.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(
            f"The model catalog {file} is missing.", "Reinstall Quizsmith or restore the file."
        ) from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(
            f"The model catalog {file} is invalid: {exc}.", "Restore the file."
        ) from exc
    models = []
    for raw in data.get("model", []):
        try:
            models.append(CatalogModel(**raw))
        except TypeError as exc:
            raise ConfigError(f"Bad entry in {file}: {exc}.", "Restore the file.") from exc
    return models


def discover_user_models(folders: list[Path]) -> list[CatalogModel]:
    """Every *.gguf in the given folders, listed with what its header says. Only regular
    files are models: anything else of that name (a named pipe, a folder, a device) is
    listed as unusable with what it is, and never opened (reading a pipe with no writer
    waits forever: `quizsmith models` and `score` hung on one, issue 48)."""
    from quizsmith.providers.gguf_header import not_a_regular_file, read_general_metadata

    found: dict[str, CatalogModel] = {}
    for folder in folders:
        if not folder.is_dir():
            continue
        for path in sorted(folder.glob("*.gguf")):
            model_id = f"gguf:{path.stem}"
            if model_id in found:
                continue
            meta: dict[str, Any] = {}
            problem = not_a_regular_file(path)
            if problem:
                log.info("Skipped %s: %s", path, problem)
            else:
                try:
                    meta = read_general_metadata(path)
                except ModelNotFoundError as exc:
                    problem = str(exc)
            found[model_id] = CatalogModel(
                id=model_id,
                name=str(meta.get("general.name") or path.stem),
                backend="llamacpp",
                roles=["generator", "qa", "solvers", "judges", "paraphraser"],
                family=str(meta.get("general.architecture", "")),
                size_mb=_size_mb(path),
                bundled=False,
                path=path,
                metadata={**meta, **({"problem": problem} if problem else {})},
            )
    return list(found.values())


def _size_mb(path: Path) -> float:
    try:
        return round(path.stat().st_size / 2**20, 1)
    except OSError:  # a link to a file that is gone: listed as unreadable, not a crash
        return 0.0


def all_models(
    extra_dirs: list[str] | None = None, models_dir: Path | None = None
) -> list[CatalogModel]:
    folder = models_dir or paths.models_dir()
    dirs = [folder] + [Path(d).expanduser() for d in (extra_dirs or [])]
    return load_catalog(models_dir) + discover_user_models(dirs)


def assembled_path(model: CatalogModel) -> Path:
    return paths.cache_dir() / "models" / model.locate["file"]


def is_installed(model: CatalogModel) -> bool:
    """True when the weights can be found without building anything."""
    if model.path is not None:
        return model.path.exists()
    if model.locate.get("kind") == "parts":
        from quizsmith.providers.parts import missing_packages

        # The packaged app ships the assembled file (linked into the cache), not the parts;
        # locate() checks it before it is used.
        return assembled_path(model).exists() or not missing_packages(model.locate)
    try:
        distribution(model.locate["package"])
    except PackageNotFoundError:
        return False
    return True


def locate(model: CatalogModel, *, assemble: bool = True) -> Path:
    """The weights on disk, checked as far as a `stat` can: chunked models are assembled
    (offline, from installed packages) into Quizsmith's cache on first use (a "parts"
    model is checked by size and SHA-256, then vouched for by its sidecar, and rebuilt when
    damaged: providers/parts.py); a packaged file must have the size its package's RECORD
    gives (a truncated file is refused here; its content is hashed only by
    `quizsmith models --prepare` and when its answers look damaged: providers/model_files.py);
    a model with a `copy` table is used from its faster copy, made on first use too
    (`quizsmith models --prepare` makes both at install), and from the packaged file when
    the copy cannot be made."""
    if model.path is not None:
        if not model.path.exists():
            raise ModelNotFoundError(f"{model.path} no longer exists.", "Put the file back.")
        return model.path
    spec = model.locate
    kind = spec.get("kind")
    if kind == "parts":
        from quizsmith.providers.parts import locate_parts

        return locate_parts(assembled_path(model), spec, model.install, build=assemble)
    try:
        dist = distribution(spec["package"])
    except PackageNotFoundError:
        raise ModelNotFoundError(
            f"The bundled model {model.id!r} is not installed (package {spec['package']} missing).",
            f"Install it with: {model.install}",
        ) from None
    if kind in ("file", "folder"):
        path = Path(str(dist.locate_file(spec["path"])))
        if not path.exists():
            raise ModelNotFoundError(
                f"The package {spec['package']} is installed but {spec['path']} is missing.",
                f"Reinstall it: {model.install}",
            )
        if kind == "file":
            check_packaged_size(str(spec["package"]), str(spec["path"]), path)
        if model.copy and kind == "file":
            from quizsmith.providers.requantize import faster_copy

            return faster_copy(path, model.copy, make=assemble) or path
        return path
    raise ConfigError(f"Unknown locate kind {kind!r} for {model.id}.", "Fix models/catalog.toml.")


def find(ref: str, models: list[CatalogModel]) -> CatalogModel:
    """Resolve a catalog id, `gguf:<stem>` or a .gguf path to a model entry."""
    for m in models:
        if m.id == ref:
            return m
    path = Path(ref).expanduser()
    if ref.endswith(".gguf"):
        if not path.exists():
            raise ModelNotFoundError(f"The model file {path} does not exist.", "Check the path.")
        from quizsmith.providers.gguf_header import not_a_regular_file

        problem = not_a_regular_file(path)
        if problem:
            raise ModelNotFoundError(problem, "Name a regular .gguf file.")
        return CatalogModel(
            id=f"gguf:{path.stem}", name=path.stem, backend="llamacpp", bundled=False, path=path
        )
    known = ", ".join(m.id for m in models)
    raise ModelNotFoundError(
        f"No model {ref!r}.",
        f"Known models: {known}. Put .gguf files in {paths.models_dir()} to add your own.",
    )
