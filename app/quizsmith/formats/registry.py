"""The format registry (entry-point group `quizsmith.formats`) and the choice of an importer
for a file: by an explicit name, else by extension, else by looking at the text."""

from __future__ import annotations

from pathlib import Path

from quizsmith.formats.base import Format, FormatError, decode_text, read_bytes
from quizsmith.plugins import PluginRegistry

GROUP = "quizsmith.formats"
formats: PluginRegistry[Format] = PluginRegistry(GROUP, Format, "format")

register = formats.register
names = formats.names
unregister = formats.unregister
get = formats.get

#: Extensions of plain text, which could hold any text format: the importers' `sniff` decide.
TEXT_SUFFIXES = (".txt", ".text", "")


def _ordered(found: list[str]) -> list[str]:
    return sorted(found, key=lambda n: (get(n).order, n))


def exporter_names() -> list[str]:
    return [n for n in names() if get(n).can_export]


def importer_names() -> list[str]:
    return [n for n in names() if get(n).can_import]


def exporters_in_order() -> list[str]:
    """The export formats as the export dialog lists them (`Format.order`)."""
    return _ordered(exporter_names())


def _sniffers() -> list[type[Format]]:
    """The importers that can recognise a plain-text file (they override `sniff`)."""
    found = [get(n) for n in _ordered(importer_names())]
    return [c for c in found if any("sniff" in vars(k) for k in c.__mro__ if k is not Format)]


def sniff_text(text: str) -> str | None:
    """The importer the text looks most like (the highest `sniff`), else None."""
    best, found = 0, None
    for cls in (get(n) for n in _ordered(importer_names())):
        sureness = cls.sniff(text)
        if sureness > best:
            best, found = sureness, cls.name
    return found


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
    for name in _ordered(importer_names()):
        if suffix in get(name).suffixes:
            return get(name)()
    sniffers = _sniffers()
    if suffix in TEXT_SUFFIXES:
        found = sniff_text(decode_text(read_bytes(path), path))
        if found:
            return get(found)()
        titles = " or ".join(
            f"{'an' if c.title[:1] in 'AEIO' else 'a'} {c.title}" for c in sniffers
        )
        either = "either format" if len(sniffers) == 2 else "any of these formats"
        raise FormatError(
            f"Cannot tell whether this is {titles} file: it has no question in {either}.",
            "Check the file, or name the format with "
            + " or ".join(f"--format {c.name}" for c in sniffers)
            + ".",
            file=path,
        )
    listed = []
    for name in _ordered(importer_names()):
        cls = get(name)
        shown = list(dict.fromkeys([cls.extension, *((".txt",) if cls in sniffers else ())]))
        listed.append(f"{cls.title} ({'/'.join(e for e in shown if e)})")
    raise FormatError(
        f"Cannot import {suffix} files.",
        f"Import {', '.join(listed)} or Quizsmith JSONL (.jsonl), or name the format with "
        "--format.",
        file=path,
    )
