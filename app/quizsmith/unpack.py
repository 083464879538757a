"""Measuring a zip archive (a Word .docx) before anything unpacks it.

python-docx reads every part of a .docx into memory and parses its XML whole, so a 1.5 MB file
whose `word/document.xml` unpacks to 1.5 GiB took 47.6 s and 3.1 GB of memory before it was
called "damaged" (issue 28). The zip's central directory states each member's unpacked size,
and Python's zipfile never returns more than that size for a member (it stops there, and a
member that claims less than it holds then fails its CRC check), so checking the stated sizes
before python-docx opens the file bounds what it can unpack.

Base layer: the standard library only. Callers turn the problem into their own error
(`PassageError` for a passage, `FormatError` for an export template).
"""

from __future__ import annotations

import zipfile
from pathlib import Path

#: One XML part (the document, its styles ...): a 600-page book's document.xml is about
#: 20 MB; lxml needs about ten times the text in memory.
MAX_XML_PART_BYTES = 32 * 1024 * 1024
#: All XML parts together.
MAX_XML_BYTES = 64 * 1024 * 1024
#: Everything unpacked, pictures included (python-docx keeps every part in memory).
MAX_UNPACKED_BYTES = 256 * 1024 * 1024
#: Members of the archive; a Word file has a few dozen, one with many pictures a few hundred.
MAX_MEMBERS = 10_000


def size_text(size: float) -> str:
    """1.5 GB, 40 MB, 900 KB: a size as a teacher reads it (binary units, as Windows shows)."""
    for unit, scale in (("GB", 2**30), ("MB", 2**20), ("KB", 2**10)):
        if size >= scale:
            return f"{size / scale:.1f} {unit}".replace(".0 ", " ")
    return f"{int(size)} bytes"


def zip_problem(path: Path) -> str | None:
    """Why the archive at `path` must not be unpacked (None when its stated sizes are fine).

    Raises zipfile.BadZipFile (and OSError) as zipfile does for what is not a readable zip.
    """
    with zipfile.ZipFile(path) as archive:
        members = archive.infolist()
    if len(members) > MAX_MEMBERS:
        return f"it holds {len(members):,} files (a Word document holds a few dozen)"
    xml_total = 0
    total = 0
    for info in members:
        total += info.file_size
        if info.filename.lower().endswith((".xml", ".rels")):
            xml_total += info.file_size
            if info.file_size > MAX_XML_PART_BYTES:
                return (
                    f"its part {info.filename[:80]} expands to {size_text(info.file_size)} of "
                    f"text (at most {size_text(MAX_XML_PART_BYTES)} is read)"
                )
    if xml_total > MAX_XML_BYTES:
        return (
            f"it expands to {size_text(xml_total)} of text (at most "
            f"{size_text(MAX_XML_BYTES)} is read)"
        )
    if total > MAX_UNPACKED_BYTES:
        return (
            f"it expands to {size_text(total)} (at most {size_text(MAX_UNPACKED_BYTES)} "
            "is unpacked)"
        )
    return None
