"""Reading passages from disk with a clear message for every way it can go wrong."""

from __future__ import annotations

import unicodedata
from pathlib import Path

from quizsmith.errors import QuizsmithError

#: Passages above this are refused: the bundled models' context cannot hold them and the
#: metrics would window them into dozens of pieces. A teacher should split such a text.
MAX_PASSAGE_CHARS = 50_000


class PassageError(QuizsmithError):
    """The passage cannot be used as it is."""


def check_regular_file(path: Path) -> None:
    """Refuse what is not a plain file before reading it: a folder, or a device, pipe or
    socket (/dev/zero never ends, a FIFO waits for a writer that may never come)."""
    if path.is_dir():
        raise PassageError(f"{path} is a folder, not a file.", "Choose a file inside it.")
    if path.exists() and not path.is_file():
        raise PassageError(
            f"{path} is not a regular file (it is a device, a pipe or a socket).",
            "Save the passage as a file (.txt, .md, .docx or .pdf) and choose that file.",
        )


def read_text_file(path: Path) -> str:
    check_regular_file(path)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise PassageError(f"{path} does not exist.", "Check the file name.") from None
    except OSError as exc:
        raise PassageError(
            f"{path} cannot be read: {exc.strerror}.", "Check its permissions."
        ) from None
    return normalise(decode_text(raw, path.name))


def decode_text(raw: bytes, name: str) -> str:
    """The text in `raw` (a file called `name`), not yet normalised.

    UTF-8 (with or without BOM) and UTF-16 with a BOM decode as is. Anything else is tried as
    Windows-1252, a superset of Latin-1's printable range and what most legacy teaching
    material on disk is in. Since nearly any bytes "decode" as cp1252, a result is only
    accepted when it reads as text (hardly any control characters); otherwise the teacher is
    told to re-save the file as UTF-8.
    """
    has_bom16 = raw[:2] in (b"\xff\xfe", b"\xfe\xff")
    if b"\x00" in raw[:4096] and not has_bom16:
        raise PassageError(f"{name} is a binary file, not text.", "Save it as plain text (.txt).")
    text: str | None = None
    for encoding in ("utf-16",) if has_bom16 else ("utf-8-sig", "cp1252"):
        try:
            text = raw.decode(encoding)
            break
        except UnicodeDecodeError:
            continue
    if text is None or _control_share(text) > _MAX_CONTROL_SHARE:
        raise PassageError(
            f"{name} is not in a text encoding Quizsmith can read (or is not text at all).",
            'Open it in a text editor and save it as UTF-8 ("Save as" > Encoding: UTF-8).',
        )
    return text


#: Real text has almost no C0 control characters besides tab and line ends; binary data
#: decoded as cp1252 has about one in eight.
_MAX_CONTROL_SHARE = 0.01


def _control_share(text: str) -> float:
    if not text:
        return 0.0
    controls = sum(1 for ch in text if unicodedata.category(ch) == "Cc" and ch not in "\t\n\r\f\v")
    return controls / len(text)


def normalise(text: str) -> str:
    """NFC Unicode, unified line ends, trimmed lines; paragraphs kept."""
    text = unicodedata.normalize("NFC", text).replace("\r\n", "\n").replace("\r", "\n")
    lines = [" ".join(line.split()) for line in text.split("\n")]
    paragraphs, current = [], []
    for line in lines:
        if line:
            current.append(line)
        elif current:
            paragraphs.append(" ".join(current))
            current = []
    if current:
        paragraphs.append(" ".join(current))
    return "\n\n".join(paragraphs)


def check_passage(text: str) -> str:
    if not text.strip():
        raise PassageError("The passage is empty.", "Paste or open a text first.")
    if len(text) > MAX_PASSAGE_CHARS:
        raise PassageError(
            f"The passage has {len(text):,} characters; the limit is {MAX_PASSAGE_CHARS:,}.",
            "Split it into sections (a chapter or a few pages each) and use them one at a time.",
        )
    return text
