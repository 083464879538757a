"""Exporters and importers: Word (student sheet, answer key, teacher report), Moodle XML,
GIFT, Aiken, QTI 1.2 for Canvas, CSV. Each is a plug-in of the `quizsmith.formats` registry;
this module is the headless API the CLI and the GUI call.

Nothing heavy is imported here: python-docx loads only when a Word file is written.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from quizsmith.formats.base import (
    Exporter,
    ExportOptions,
    ExportResult,
    Format,
    FormatError,
    Importer,
    ParsedFile,
    Skipped,
)
from quizsmith.formats.registry import exporter_names, get, importer_for, importer_names, names

if TYPE_CHECKING:
    from collections.abc import Sequence

    from quizsmith.bank import ItemBank
    from quizsmith.domain import Item

__all__ = [
    "ExportOptions",
    "ExportResult",
    "Exporter",
    "Format",
    "FormatError",
    "ImportReport",
    "Importer",
    "ParsedFile",
    "Skipped",
    "export_from_bank",
    "export_items",
    "exporter_names",
    "get",
    "import_file",
    "importer_for",
    "importer_names",
    "names",
]


def export_items(
    items: Sequence[Item],
    format_name: str,
    path: str | os.PathLike[str],
    options: ExportOptions | None = None,
) -> ExportResult:
    fmt = get(format_name)()
    if not fmt.can_export:
        raise FormatError(
            f"{fmt.title} is an import-only format.",
            f"Export formats: {', '.join(exporter_names())}.",
        )
    return fmt.export(items, path, options)


def export_from_bank(
    bank: ItemBank,
    format_name: str,
    path: str | os.PathLike[str],
    *,
    quiz: str | None = None,
    status: str | None = None,
    seed: int | None = None,
    template: str | os.PathLike[str] | None = None,
    title: str | None = None,
    passages: bool | None = None,
) -> ExportResult:
    """Export a quiz, or the items with `status` (default accepted; "all" for every item).
    An empty selection is an error, so a teacher never hands out an empty sheet unawares."""
    from quizsmith.formats.selection import latest_reviews, select_items

    fmt = get(format_name)  # an unknown name fails before the bank is read
    items = select_items(bank, quiz=quiz, status=status)
    if not items:
        what = f"quiz {quiz!r}" if quiz else f"status {status or 'accepted'!r}"
        raise FormatError(
            f"No items to export: {bank.path.name} has none with {what}.",
            "Accept some items in the review queue, or choose --status all or a quiz.",
        )
    options = ExportOptions(
        # The name a teacher gave beats the quiz's, which beats the file's.
        title=title or quiz or Path(path).stem,
        passages=passages,
        seed=seed,
        template=Path(template) if template else None,
        reviews=latest_reviews(bank, items) if fmt.needs_reviews else {},
    )
    return export_items(items, format_name, path, options)


@dataclass
class ImportReport:
    path: Path
    format: str
    item_ids: list[int] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    #: Questions imported with something left out or changed, each saying what.
    simplified: list[Skipped] = field(default_factory=list)
    #: Imported items that are weak as they stand (`Item.warnings`), by their new bank id.
    warnings: list[Skipped] = field(default_factory=list)

    @property
    def count(self) -> int:
        return len(self.item_ids)

    @property
    def partial(self) -> bool:
        """Some questions of the file were not imported (the CLI's exit status 4)."""
        return bool(self.skipped)


def import_file(
    bank: ItemBank | str | os.PathLike[str],
    path: str | os.PathLike[str],
    format_name: str | None = None,
) -> ImportReport:
    """Parse the whole file, then add the questions it holds in one transaction.

    A file that cannot be read (not well-formed, not a question file) changes nothing and
    names the line or element; inside a readable file each question that cannot be carried
    is skipped with its number and reason and the others are imported. A question already in
    the bank (same type, question and answer: the same file imported twice) is skipped too.
    A file of which nothing can be imported is an error, and the bank is then not touched
    (given a bank path, not even created)."""
    source = Path(path)
    fmt = importer_for(source, format_name)
    parsed = fmt.read(source)
    if isinstance(bank, str | os.PathLike):
        from quizsmith.bank import ItemBank

        if not parsed.items:
            _nothing_to_import(source, parsed)
        with ItemBank(bank) as opened:
            return _add_parsed(opened, source, fmt.name, parsed)
    return _add_parsed(bank, source, fmt.name, parsed)


def _add_parsed(bank: ItemBank, source: Path, fmt: str, parsed: ParsedFile) -> ImportReport:
    fresh: list[Item] = []
    skipped = list(parsed.skipped)
    for item, same in zip(parsed.items, bank.same_items(parsed.items), strict=True):
        if same is None:
            fresh.append(item)
        else:
            skipped.append(Skipped(f"already in the bank as item {same}.", stem=item.stem[:60]))
    parsed = ParsedFile(fresh, skipped, parsed.simplified)
    if not fresh:
        _nothing_to_import(source, parsed)
    ids = bank.add_items(fresh)
    warnings = [
        Skipped(warning, item_id, item.stem)
        for item_id, item in zip(ids, fresh, strict=True)
        for warning in item.warnings()
    ]
    return ImportReport(source, fmt, ids, skipped, parsed.simplified, warnings)


def _nothing_to_import(source: Path, parsed: ParsedFile) -> None:
    reasons = "; ".join(s.reason.rstrip(".") for s in parsed.skipped[:5])
    more = f" (and {len(parsed.skipped) - 5} more)" if len(parsed.skipped) > 5 else ""
    raise FormatError(
        f"No question could be imported: {reasons}{more}.",
        "Correct the questions named, or import a file that holds some Quizsmith can carry.",
        file=source,
    )
