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


def read_text_file(path: Path) -> str:
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise PassageError(f"{path} does not exist.", "Check the file name.") from None
    except OSError as exc:
        raise PassageError(
            f"{path} cannot be read: {exc.strerror}.", "Check its permissions."
        ) from None
    if b"\x00" in raw[:4096]:
        raise PassageError(
            f"{path.name} is a binary file, not text.", "Save it as plain text (.txt)."
        )
    for encoding in (
        ("utf-8-sig", "utf-16") if raw[:2] in (b"\xff\xfe", b"\xfe\xff") else ("utf-8-sig",)
    ):
        try:
            return normalise(raw.decode(encoding))
        except UnicodeDecodeError:
            continue
    try:
        # Windows-1252 is what most legacy teaching material on disk is in.
        return normalise(raw.decode("cp1252"))
    except UnicodeDecodeError:
        raise PassageError(
            f"{path.name} is not in a text encoding Quizsmith can read.", "Save it as UTF-8."
        ) from None


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
