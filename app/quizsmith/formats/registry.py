"""The format registry (entry-point group `quizsmith.formats`) and the choice of an importer
for a file: by an explicit name, else by extension, else by looking at the text."""

from __future__ import annotations

import re
from pathlib import Path

from quizsmith.formats.base import Format, FormatError, decode_text, read_bytes
from quizsmith.plugins import PluginRegistry

GROUP = "quizsmith.formats"
formats: PluginRegistry[Format] = PluginRegistry(GROUP, Format, "format")

register = formats.register
names = formats.names
get = formats.get

_GIFT_HEADS = re.compile(r"^\s*(::.+?::|\$CATEGORY:)", re.MULTILINE)
_GIFT_BLOCKS = re.compile(r"(?<!\\)\{\s*(=|~|T\s*}|F\s*}|TRUE|FALSE|#)")
_AIKEN_ANSWER = re.compile(r"^\s*ANSWER\s*:\s*[A-Z]\s*$", re.MULTILINE)
_AIKEN_OPTION = re.compile(r"^[A-Z][.)]\s*\S", re.MULTILINE)


def exporter_names() -> list[str]:
    return [n for n in names() if get(n).can_export]


def importer_names() -> list[str]:
    return [n for n in names() if get(n).can_import]


def sniff_text(text: str) -> str | None:
    """The format ("gift" or "aiken") the text looks like, else None."""
    # Question names and categories are GIFT's own; an Aiken option may well contain "{=".
    if _GIFT_HEADS.search(text):
        return "gift"
    if _AIKEN_ANSWER.search(text):
        return "aiken"
    if _GIFT_BLOCKS.search(text):
        return "gift"
    # Lettered options without an ANSWER: line are still Aiken (the importer then says what
    # is missing, with its line).
    if len(_AIKEN_OPTION.findall(text)) >= 2:
        return "aiken"
    return None


def importer_for(path: Path, explicit: str | None = None) -> Format:
    """The importer for `path`: the named one, or the one its extension (and, for .txt, its
    text) points to. Raises FormatError saying how to name the format when it is unclear."""
    if explicit:
        fmt = get(explicit)()
        if not fmt.can_import:
            raise FormatError(
                f"{fmt.title} files cannot be imported.",
                f"Importable formats: {', '.join(importer_names())}.",
                file=path,
            )
        return fmt
    suffix = path.suffix.lower()
    by_suffix = {".xml": "moodle", ".gift": "gift", ".aiken": "aiken"}
    if suffix in by_suffix:
        return get(by_suffix[suffix])()
    if suffix in (".txt", ".text", ""):
        found = sniff_text(decode_text(read_bytes(path), path))
        if found:
            return get(found)()
        raise FormatError(
            "Cannot tell whether this is a GIFT or an Aiken file: it has no question in "
            "either format.",
            "Check the file, or name the format with --format gift or --format aiken.",
            file=path,
        )
    raise FormatError(
        f"Cannot import {suffix} files.",
        "Import Moodle XML (.xml), GIFT (.gift/.txt), Aiken (.txt) or Quizsmith JSONL "
        "(.jsonl), or name the format with --format.",
        file=path,
    )
