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
) -> ExportResult:
    """Export a quiz, or the items with `status` (default accepted; "all" for every item).
    An empty selection is an error, so a teacher never hands out an empty sheet unawares."""
    from quizsmith.formats.selection import latest_reviews, select_items

    get(format_name)  # an unknown name fails before the bank is read
    items = select_items(bank, quiz=quiz, status=status)
    if not items:
        what = f"quiz {quiz!r}" if quiz else f"status {status or 'accepted'!r}"
        raise FormatError(
            f"No items to export: {bank.path.name} has none with {what}.",
            "Accept some items in the review queue, or choose --status all or a quiz.",
        )
    options = ExportOptions(
        title=quiz or Path(path).stem,
        seed=seed,
        template=Path(template) if template else None,
        reviews=latest_reviews(bank, items) if format_name == "docx-report" else {},
    )
    return export_items(items, format_name, path, options)


@dataclass
class ImportReport:
    path: Path
    format: str
    item_ids: list[int] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)

    @property
    def count(self) -> int:
        return len(self.item_ids)


def import_file(
    bank: ItemBank | str | os.PathLike[str],
    path: str | os.PathLike[str],
    format_name: str | None = None,
) -> ImportReport:
    """Parse the whole file, then add every item in one transaction: a malformed file (the
    error names the line or element) changes nothing in the bank. Given a bank path rather
    than an open bank, the bank is opened (created if missing) only after the file parsed."""
    source = Path(path)
    fmt = importer_for(source, format_name)
    parsed = fmt.read(source)
    if isinstance(bank, str | os.PathLike):
        from quizsmith.bank import ItemBank

        with ItemBank(bank) as opened:
            ids = opened.add_items(parsed.items) if parsed.items else []
    else:
        ids = bank.add_items(parsed.items) if parsed.items else []
    return ImportReport(source, fmt.name, ids, parsed.skipped)
