"""Refuse an output path that is one of the command's input paths, before anything is written.

`quizsmith export --bank b.db --out b.db` once replaced the bank with a GIFT file, and
`generate --bank x.db --out x.db` with JSONL. Every command that writes a file hands all its
outputs and all its inputs here first. A bank counts with its SQLite side files (-wal holds
committed changes not yet copied into the main file; -shm and -journal are SQLite's own), and
two names of one file (a symlink, a hard link, "./b.db" and "b.db") are the same path.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from quizsmith.errors import QuizsmithError

#: SQLite's files beside a database; overwriting any of them damages the bank.
BANK_SIDE_FILES = ("-wal", "-shm", "-journal")


class SamePathError(QuizsmithError):
    """An output path would overwrite one of the command's inputs."""


def bank_paths(bank: str | os.PathLike[str] | None) -> list[Path]:
    """The bank file and its SQLite side files (none when `bank` is None)."""
    if not bank:
        return []
    path = Path(bank)
    return [path, *(path.with_name(path.name + suffix) for suffix in BANK_SIDE_FILES)]


def _same(a: Path, b: Path) -> bool:
    try:
        if a.exists() and b.exists():
            return os.path.samefile(a, b)
    except OSError:
        pass
    # One of them does not exist yet: compare where they would be, links resolved.
    return os.path.normcase(a.resolve()) == os.path.normcase(b.resolve())


def check_outputs(
    outputs: Iterable[tuple[str, str | os.PathLike[str] | None]],
    inputs: Iterable[tuple[str, str | os.PathLike[str] | None]],
) -> None:
    """Raise SamePathError when an output names the same file as an input or another output.

    `outputs` and `inputs` are (label, path) pairs; the label is how the user gave the path
    (e.g. "--out", "the bank"), so the message can say which two collide. None is skipped.
    """
    outs = [(label, Path(p)) for label, p in outputs if p]
    ins = [(label, Path(p)) for label, p in inputs if p]
    for i, (out_label, out) in enumerate(outs):
        for in_label, source in ins:
            if _same(out, source):
                raise SamePathError(
                    f"{out_label} {out} is {in_label} ({source}); writing it would destroy "
                    f"{in_label}. Nothing was written.",
                    f"Give {out_label} a different file name.",
                )
        for other_label, other in outs[i + 1 :]:
            if _same(out, other):
                raise SamePathError(
                    f"{out_label} and {other_label} are the same file ({out}). Nothing was "
                    "written.",
                    f"Give {out_label} and {other_label} different file names.",
                )
