"""Refuse an output path that is one of the command's input paths, or that is no place for a
file (a device, a named pipe, a name too long), before anything is written.

`quizsmith export --bank b.db --out b.db` once replaced the bank with a GIFT file, and
`generate --bank x.db --out x.db` with JSONL. Every command that writes a file hands all its
outputs and all its inputs here first. A bank counts with its SQLite side files (-wal holds
committed changes not yet copied into the main file; -shm and -journal are SQLite's own), and
two names of one file (a symlink, a hard link, "./b.db" and "b.db") are the same path.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import stat
import time
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
    """Raise SamePathError when an output names the same file as an input or another output,
    and PathError when an output is no regular file (a device, a pipe) or too long a name.

    `outputs` and `inputs` are (label, path) pairs; the label is how the user gave the path
    (e.g. "--out", "the bank"), so the message can say which two collide. None is skipped.
    """
    outs = [(label, Path(p)) for label, p in outputs if p]
    ins = [(label, Path(p)) for label, p in inputs if p]
    for label, out in outs:
        # Before comparing: a name too long to stat would fail there as an OSError.
        regular_or_absent(out, label)
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


class PathError(QuizsmithError):
    """A path Quizsmith may not open or write as a file: a device, a named pipe, a folder, or a
    name longer than the file system takes."""


#: Used where the system cannot say (os.pathconf is POSIX only): Linux, macOS and NTFS all
#: take 255 for one name; 4096 is Linux's limit for a whole path.
DEFAULT_NAME_MAX = 255
DEFAULT_PATH_MAX = 4096
#: A temporary file whose process has gone is left alone this long: on a shared drive the
#: process id may belong to another computer's export, which is still writing.
STALE_AFTER_S = 600


def _limit(path: Path, name: str, default: int) -> int:
    pathconf = getattr(os, "pathconf", None)
    folder = path.parent
    while pathconf is not None:
        try:
            return int(pathconf(folder, name))
        except (OSError, ValueError):
            if folder == folder.parent:
                break
            folder = folder.parent  # the limit of the nearest folder that exists
    return default


def check_length(path: Path, label: str) -> None:
    """Refuse a path whose name, or whole length, the file system cannot take. The system
    counts bytes (a name of 100 Greek letters is 200), so the message does too."""
    name = len(os.fsencode(path.name))
    most = _limit(path, "PC_NAME_MAX", DEFAULT_NAME_MAX)
    if name > most:
        raise PathError(
            f"{label}: the file name is {name:,} bytes long ({len(path.name):,} characters); "
            f"this drive takes at most {most}. Nothing was written.",
            "Choose a shorter file name.",
        )
    whole = len(os.fsencode(os.path.abspath(path)))
    most = _limit(path, "PC_PATH_MAX", DEFAULT_PATH_MAX)
    if whole >= most:
        raise PathError(
            f"{label}: the path is {whole:,} bytes long; this system takes at most {most - 1:,}. "
            "Nothing was written.",
            "Choose a file in a folder with a shorter path.",
        )


def _not_regular(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a named pipe (FIFO)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def regular_or_absent(path: str | os.PathLike[str], label: str, fix: str = "") -> bool:
    """True when `path` is a regular file (a link to one counts), False when nothing is
    there; PathError for anything else: a device, a named pipe, a socket or a folder, which
    Quizsmith never opens as a bank nor writes over (writing to a pipe waits for a reader
    that may never come; replacing /dev/full as root made it a plain file), and a name too
    long for the file system. os.stat opens nothing, so this never waits on a pipe."""
    path = Path(path)
    check_length(path, label)
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return False
    except OSError as exc:
        if exc.errno == errno.ENAMETOOLONG:
            raise PathError(
                f"{label}: a folder name in {path} is longer than the file system takes. "
                "Nothing was written.",
                "Choose a file in a folder with shorter names.",
            ) from None
        raise PathError(
            f"{label}: {path} cannot be reached ({exc.strerror or exc}).",
            "Check the folder exists and that you may open it.",
        ) from None
    if stat.S_ISREG(mode):
        return True
    raise PathError(
        f"{label} {path} is {_not_regular(mode)}, not a regular file; Quizsmith reads banks "
        "from and writes files to regular files only. Nothing was written.",
        fix or "Choose a file name (a new one, or a file you mean to replace).",
    )


def temp_sibling(target: Path, tag: str = "") -> Path:
    """The temporary name beside `target` that a write goes to before it is renamed into
    place: `.NAME.PID.tmp`, or `.NAME.PID.TAG.tmp` with a tag (12 hex digits, for writers
    that may run twice in one process). The process id lets a later write tell a file left by
    a killed process (`remove_stale_temps`) from one being written. NAME is cut short when
    the whole would be longer than a file name may be, so a target near the limit can still
    be written; the cut leaves the same room whatever the tag, so both kinds share NAME."""
    if tag and not _TAG.fullmatch(tag):
        raise ValueError(f"a temporary file's tag is 12 hex digits, not {tag!r}")
    suffix = f".{os.getpid()}{'.' + tag if tag else ''}.tmp"
    most = _limit(target, "PC_NAME_MAX", DEFAULT_NAME_MAX) - 1 - _SUFFIX_ROOM
    raw = os.fsencode(target.name)
    name = target.name if len(raw) <= most else raw[:most].decode("utf-8", "ignore")
    return target.with_name(f".{name}{suffix}")


_TAG = re.compile(r"[0-9a-f]{12}")
#: What follows NAME in a temporary file's name, at most: ".PID.TAG.tmp".
_SUFFIX_ROOM = 40
_OURS = re.compile(r"(\d{1,10})(\.[0-9a-f]{12})?\.tmp")


def remove_stale_temps(target: Path) -> list[Path]:
    """Remove the temporary files `temp_sibling` names for `target` whose process has ended
    (killed during a write: nothing else removes them) and that have not changed for
    STALE_AFTER_S; returns what was removed. Only on POSIX, where signal 0 asks whether a
    process lives (on Windows os.kill would send it Ctrl-C)."""
    if os.name != "posix":
        return []
    prefix = temp_sibling(target).name.rsplit(".", 2)[0] + "."
    try:
        candidates = [p for p in target.parent.iterdir() if p.name.startswith(prefix)]
    except OSError:
        return []
    removed = []
    for path in candidates:
        ours = _OURS.fullmatch(path.name[len(prefix) :])
        if ours is None:
            continue
        try:
            info = path.lstat()
        except OSError:
            continue
        if not stat.S_ISREG(info.st_mode) or time.time() - info.st_mtime < STALE_AFTER_S:
            continue
        if _alive(int(ours.group(1))):
            continue
        with contextlib.suppress(OSError):
            path.unlink()
            removed.append(path)
    return removed


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError, OSError):
        return True  # another user's process, or no way to tell: leave its file alone
    return True
