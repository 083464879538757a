"""What an installed package's RECORD says about one of its files: the size and SHA-256 pip
wrote it with (issue 48), and the command that reinstalls the package.

The catalog's size check of a packaged model file (catalog.locate, one `stat`), the content
check of a model file (model_files.py) and the assembly of a model from part packages
(parts.py, naming a damaged chunk's package) all read it here.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, distribution
from pathlib import Path

from quizsmith.errors import DamagedModelError


@dataclass(frozen=True)
class Expected:
    """A model file's expected size and SHA-256, where they come from, and the fix."""

    size: int
    sha256: str
    source: str
    fix: str


def record_entry(package: str, inner: str) -> tuple[int, str] | None:
    """(size, SHA-256 as hex) that `package`'s RECORD gives for its file `inner`."""
    try:
        files = distribution(package).files or []
    except PackageNotFoundError:
        return None
    for entry in files:
        if entry.as_posix() != inner:
            continue
        digest = entry.hash
        if digest is None or digest.mode != "sha256" or entry.size is None:
            return None
        raw = base64.urlsafe_b64decode(digest.value + "=" * (-len(digest.value) % 4))
        return int(entry.size), raw.hex()
    return None


def reinstall_command(package: str) -> str:
    try:
        version = distribution(package).version
    except PackageNotFoundError:
        return f"pip install --force-reinstall {package}"
    return f"pip install --force-reinstall {package}=={version}"


def expected_in_record(package: str, inner: str) -> Expected | None:
    """What the file `inner` of `package` should hold, by its RECORD; None when it says not."""
    entry = record_entry(package, inner)
    if entry is None:
        return None
    return Expected(
        entry[0],
        entry[1],
        f"the RECORD of the package {package}",
        f"Reinstall its package: {reinstall_command(package)}",
    )


def check_packaged_size(package: str, inner: str, path: Path) -> None:
    """A packaged file at `path` must have the size its package's RECORD gives (one `stat`)."""
    expected = expected_in_record(package, inner)
    if expected is None:
        return
    size = path.stat().st_size
    if size != expected.size:
        raise DamagedModelError(
            f"The model file {path} has {size:,} bytes; {expected.source} says "
            f"{expected.size:,} (damaged or cut short).",
            expected.fix,
        )
