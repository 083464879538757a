"""What every format shares: the plug-in base classes, options and results, the error type,
atomic writing, reading text in the encodings teachers' files come in, and the export seed
(the option order it gives lives in `option_order`).

A format is a class registered under the entry-point group `quizsmith.formats`. Its
capabilities are class attributes (`can_export`, `can_import`), as for providers and metrics.
Exporters get items and a path and return an `ExportResult`; importers parse a whole file into
items (`read`) before anything touches the bank. A file that cannot be read at all (not
well-formed XML, not text) imports nothing; inside a readable file, each question that cannot
be carried is skipped with its number, name and reason and the others are imported, and what
was kept in a simpler form is listed as `simplified` (both on imports and on exports).
"""

from __future__ import annotations

import errno
import hashlib
import os
import re
import secrets
import unicodedata
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar

from quizsmith.domain import Item, Option, Review
from quizsmith.errors import CapabilityError, QuizsmithError
from quizsmith.paths_guard import PathError, regular_or_absent, remove_stale_temps, temp_sibling

#: How a blank is shown in cloze stems on paper and in formats without a gap type.
BLANK = "_____"
#: Three or more underscores mark the blank of a cloze stem.
BLANK_RE = re.compile(r"_{3,}")
LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
#: Characters XML 1.0 cannot hold at all (not even escaped): C0 controls except tab and
#: newline, lone surrogates and the two non-characters. Dropped rather than failing an export.
_XML_INVALID = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


class FormatError(QuizsmithError):
    """A file cannot be read or written in a format; the message names the file and where."""

    def __init__(
        self,
        message: str,
        fix: str = "",
        *,
        file: str | os.PathLike[str] | None = None,
        line: int | None = None,
        element: str | None = None,
    ) -> None:
        where = []
        if file is not None:
            where.append(Path(file).name)
        if line is not None:
            where.append(f"line {line}")
        if element:
            where.append(element)
        prefix = ", ".join(where)
        super().__init__(f"{prefix}: {message}" if prefix else message, fix)
        self.file = str(file) if file is not None else None
        self.line = line
        self.element = element


@dataclass
class Skipped:
    """An item an exporter (or a question an importer) left out, with the reason; also used
    for what was kept in a simpler form (`simplified`), the reason then saying what changed."""

    reason: str
    item_id: int | None = None
    stem: str = ""

    def __str__(self) -> str:
        label = f"item {self.item_id}" if self.item_id is not None else repr(self.stem[:60])
        return f"{label}: {self.reason}"


@dataclass
class ExportOptions:
    """What an export may be told besides the items. Every field is optional."""

    #: The quiz name, shown as the title and in page headers.
    title: str = "Quiz"
    #: Seed of the option shuffle; None picks one, which the result records.
    seed: int | None = None
    #: A .docx whose styles, headers and page set-up the Word exports use.
    template: Path | None = None
    instructions: str = (
        "Answer every question. For multiple choice, circle the letter of the one best answer."
    )
    #: Latest review per item id, for the teacher report.
    reviews: dict[int, Review] = field(default_factory=dict)
    #: Print each passage before its questions on the student sheet; None: when every item
    #: comes from one passage (a reading-comprehension sheet).
    passages: bool | None = None


@dataclass
class ExportResult:
    path: Path
    format: str
    count: int = 0
    skipped: list[Skipped] = field(default_factory=list)
    #: Items exported with something the format cannot carry left out (partial credit ...).
    simplified: list[Skipped] = field(default_factory=list)
    #: The shuffle seed used: give it again to reproduce the same option order.
    seed: int | None = None


@dataclass
class ParsedFile:
    """What an importer found: the items, and the questions it could not carry, with why."""

    items: list[Item] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    #: Questions imported with something left out or changed (an image dropped ...).
    simplified: list[Skipped] = field(default_factory=list)


class Format:
    """Base of every format plug-in; see `Exporter` and `Importer`."""

    name: ClassVar[str] = ""
    title: ClassVar[str] = ""
    #: The usual file extension, with the dot.
    extension: ClassVar[str] = ""
    can_export: ClassVar[bool] = False
    can_import: ClassVar[bool] = False
    #: One line for --help and the export dialog.
    description: ClassVar[str] = ""
    #: Where the export dialog lists it among the formats; lower first.
    order: ClassVar[int] = 100
    #: File extensions (lower case, with the dot) that import as this format without a look
    #: inside; plain text (.txt) is told apart by `sniff` instead.
    suffixes: ClassVar[tuple[str, ...]] = ()
    #: The export reads each item's latest review (`ExportOptions.reviews`).
    needs_reviews: ClassVar[bool] = False

    @classmethod
    def sniff(cls, text: str) -> int:
        """How surely a plain-text file (.txt, or no extension) is in this format: 0 for
        not at all, higher for surer; the importer with the highest answer reads it."""
        return 0

    def export(
        self, items: Sequence[Item], path: str | os.PathLike[str], options: ExportOptions | None
    ) -> ExportResult:
        raise CapabilityError(f"{self.title or self.name} cannot export.", "Choose another format.")

    def read(self, path: str | os.PathLike[str]) -> ParsedFile:
        raise CapabilityError(f"{self.title or self.name} cannot import.", "Choose another format.")

    def import_(self, path: str | os.PathLike[str]) -> list[Item]:
        """The items of the file (status "needs-review"); questions that cannot be carried
        are left out (`read` says which and why)."""
        return self.read(path).items


class Exporter(Format):
    can_export = True

    def export(
        self,
        items: Sequence[Item],
        path: str | os.PathLike[str],
        options: ExportOptions | None = None,
    ) -> ExportResult:
        opts = options or ExportOptions()
        seed = opts.seed if opts.seed is not None else selection_seed(items)
        result = ExportResult(Path(path), self.name, seed=seed)
        with atomic_path(Path(path)) as tmp:
            self.write(list(items), tmp, opts, result)
            if items and not result.count:
                # Every item was left out (Aiken with only short answers, letters past Z):
                # an empty file with "done" would be handed out unawares. Raised inside the
                # block, so the file is not written at all.
                reasons = "; ".join(str(s).rstrip(".") for s in result.skipped[:3])
                more = f" (and {len(result.skipped) - 3} more)" if len(result.skipped) > 3 else ""
                raise FormatError(
                    f"Nothing to export as {self.title or self.name}: every item was left out "
                    f"({reasons}{more}).",
                    "Choose a format that carries these items, or other items.",
                    file=Path(path),
                )
        return result

    def write(
        self, items: list[Item], path: Path, options: ExportOptions, result: ExportResult
    ) -> None:
        """Write the file at `path` (a temporary name) and fill in `result`."""
        raise NotImplementedError


class Importer(Format):
    can_import = True

    def read(self, path: str | os.PathLike[str]) -> ParsedFile:
        source = Path(path)
        parsed = self.parse(source)
        for item in parsed.items:
            item.status = "needs-review"
            item.provenance.setdefault("imported_from", source.name)
            item.provenance.setdefault("import_format", self.name)
        return parsed

    def parse(self, path: Path) -> ParsedFile:
        raise NotImplementedError


def selection_seed(items: Sequence[Item]) -> int:
    """The default shuffle seed: fixed by which items are exported, so a teacher who exports
    the student sheet and then the answer key of the same selection gets letters that match
    without having to pass --seed. A different --seed makes another form of the same quiz."""
    identities = sorted(str(it.id if it.id is not None else it.stem) for it in items)
    digest = hashlib.sha256("\x1f".join(identities).encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") % 1_000_000


def letter(index: int) -> str:
    """The label of the option at `index`: A..Z, then AA, AB ... as spreadsheet columns, so
    an item with more than 26 options is still lettered unambiguously."""
    label = ""
    index += 1
    while index:
        index, rest = divmod(index - 1, len(LETTERS))
        label = LETTERS[rest] + label
    return label


def key_letter(options: Sequence[Option]) -> str:
    for index, option in enumerate(options):
        if option.is_key:
            return letter(index)
    return "?"


def answer_details(item: Item, *, numeric: bool = True) -> str:
    """What marks an answer besides the key: a numerical tolerance and unit, other accepted
    answers with their credit, and options worth partial credit ("" when none)."""
    parts = []
    if numeric and item.numeric is not None and (item.numeric.tolerance or item.numeric.unit):
        parts.append(f"numerical: {item.numeric.describe()}")
    if item.accepted:
        others = [a.text + ("" if a.credit >= 100 else f" ({a.credit:g}%)") for a in item.accepted]
        parts.append("also accepted: " + "; ".join(others))
    partial = [
        o for o in sorted(item.options, key=lambda o: o.position) if o.credit and not o.is_key
    ]
    if partial:
        parts.append("partial credit: " + "; ".join(f"{o.text} ({o.credit:g}%)" for o in partial))
    return "; ".join(parts)


def cloze_stem(stem: str) -> str:
    """The stem with its blank shown as `BLANK` (appended when the stem marks none)."""
    if BLANK_RE.search(stem):
        return BLANK_RE.sub(BLANK, stem)
    return f"{stem.rstrip()} {BLANK}"


def xml_safe(text: str | None) -> str:
    """Text that can be written into XML (and read back): invalid characters dropped,
    line ends normalised."""
    if not text:
        return ""
    return _XML_INVALID.sub("", text.replace("\r\n", "\n").replace("\r", "\n"))


def is_rtl(text: str) -> bool:
    """True when the first strongly directional character is right-to-left (Hebrew, Arabic)."""
    for char in text:
        direction = unicodedata.bidirectional(char)
        if direction in ("R", "AL"):
            return True
        if direction == "L":
            return False
    return False


@contextmanager
def atomic_path(target: Path) -> Iterator[Path]:
    """A temporary path beside `target`, moved over it only when the block succeeds, so a
    failed or interrupted export never leaves a half-written file under the real name."""
    folder = target.parent if str(target.parent) else Path(".")
    try:  # only a regular file is replaced: as root, `--out /dev/full` became a plain file
        regular_or_absent(target, "The export file")
    except PathError as exc:
        raise FormatError(exc.message, exc.fix, file=target) from None
    if not folder.is_dir():
        raise FormatError(
            f"The folder {folder} does not exist.", "Choose an existing folder.", file=target
        )
    remove_stale_temps(target)  # left by an export killed mid-write (kill -9, a power cut)
    tmp = temp_sibling(target, secrets.token_hex(6))
    try:
        # Mode 0666 filtered by the umask, as any program's new file (mkstemp's 0600 would
        # hide the export from colleagues on a shared drive); O_EXCL as mkstemp.
        os.close(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
    except OSError as exc:
        raise FormatError(
            f"Cannot write in {folder}: {exc.strerror or exc}.",
            "Choose a folder you can write to.",
            file=target,
        ) from None
    try:
        yield tmp
        os.replace(tmp, target)
    except OSError as exc:
        fix = "Close it in other programs and check the folder is writable."
        if exc.errno in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG):
            fix = "Free some space on that drive, or export to another drive or folder."
        raise FormatError(
            f"Cannot write the file: {exc.strerror or exc}.", fix, file=target
        ) from None
    finally:
        if tmp.exists():
            tmp.unlink()


_BOMS = (
    (b"\xef\xbb\xbf", "utf-8"),
    (b"\xff\xfe", "utf-16-le"),
    (b"\xfe\xff", "utf-16-be"),
)
_BINARY_SIGNATURES = {
    b"PK\x03\x04": "a zip archive (a .docx, .xlsx or QTI package?)",
    b"%PDF": "a PDF document",
    b"\xd0\xcf\x11\xe0": "an old Office document (.doc, .xls)",
    b"SQLite format 3": "an SQLite database (an item bank?)",
    b"\x89PNG": "a PNG image",
    b"\xff\xd8\xff": "a JPEG image",
}


def read_bytes(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        raise FormatError("The file does not exist.", "Check the file name.", file=path) from None
    except IsADirectoryError:
        raise FormatError("This is a folder, not a file.", "Choose a file.", file=path) from None
    except OSError as exc:
        raise FormatError(
            f"Cannot read the file: {exc.strerror or exc}.", "Check its permissions.", file=path
        ) from None


def check_text(data: bytes, path: Path) -> str | None:
    """The encoding given by a byte-order mark (None if there is none); raises FormatError
    when the bytes are plainly not a text file."""
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            return encoding
    for signature, what in _BINARY_SIGNATURES.items():
        if data.startswith(signature):
            raise FormatError(
                f"This is {what}, not a text file.",
                "Choose a Moodle XML, GIFT or Aiken question file.",
                file=path,
            )
    if b"\x00" in data[:4096]:
        raise FormatError(
            "This is not a text file (it holds binary data).",
            "Choose a Moodle XML, GIFT or Aiken question file saved as text "
            "(UTF-16 files need a byte-order mark).",
            file=path,
        )
    return None


def decode_text(data: bytes, path: Path) -> str:
    """Text of a question file: UTF-8 with or without BOM, or UTF-16 with BOM. Line ends are
    normalised to "\\n"."""
    encoding = check_text(data, path)
    body = data
    if encoding is not None:
        for bom, enc in _BOMS:
            if enc == encoding:
                body = data[len(bom) :]
                break
    try:
        text = body.decode(encoding or "utf-8")
    except UnicodeDecodeError as exc:
        line = body[: exc.start].count(b"\n") + 1
        raise FormatError(
            f"The file is not UTF-8 text (byte {exc.start + 1} cannot be decoded).",
            "Save it as UTF-8 (in Notepad: Save As, Encoding UTF-8) and import again.",
            file=path,
            line=line,
        ) from None
    return text.replace("\r\n", "\n").replace("\r", "\n")


def read_text(path: Path) -> str:
    return decode_text(read_bytes(path), path)
