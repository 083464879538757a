"""Question names for the formats that have them (Moodle XML `<name>`, GIFT `::name::`).

Moodle lists a question bank by name, so "Q8", "Q6" told a teacher nothing (issue 19): a
question is named by the start of its stem instead, and the bank id travels in Moodle's
`<idnumber>`. A name an imported question came with is the teacher's own and is kept. Names
are unique within a file (Moodle does not insist, but a teacher picking from the list
cannot tell two equal names apart). Escaping is the writer's business: GIFT escapes its
special characters in the name as in the text.
"""

from __future__ import annotations

from quizsmith.domain import Item

#: A name shows the first words of the stem, at most this many, and at most `MAX_CHARS`.
MAX_WORDS = 8
MAX_CHARS = 60
ELLIPSIS = "…"


def short_stem(stem: str) -> str:
    """The stem's first words on one line, cut at a word boundary with an ellipsis when the
    stem is longer than `MAX_WORDS` words or `MAX_CHARS` characters ("" for a blank stem)."""
    words = stem.split()
    kept = words[:MAX_WORDS]
    while len(kept) > 1 and len(" ".join(kept)) + len(ELLIPSIS) > MAX_CHARS:
        kept.pop()
    text = " ".join(kept)
    if kept == words and len(text) <= MAX_CHARS:
        return text
    if len(text) + len(ELLIPSIS) > MAX_CHARS:  # one word longer than a whole name
        text = text[: MAX_CHARS - len(ELLIPSIS)]
    # "Which of these, …" reads worse than "Which of these…".
    return text.rstrip(",;:-–—") + ELLIPSIS


class QuestionNames:
    """Hands out the names of one file's questions, each unique (case-insensitively)."""

    def __init__(self) -> None:
        self._taken: set[str] = set()

    def name(self, item: Item, number: int) -> str:
        """The imported name if the item came with one, else the start of its stem, else
        "Q<id>" (or "Q<number>" for an item not in a bank); " (2)", " (3)"... when taken."""
        source = item.provenance.get("source_id")
        base = str(source).strip() if source not in (None, "") else short_stem(item.stem)
        if not base:
            base = f"Q{item.id}" if item.id is not None else f"Q{number}"
        name, copy = base, 1
        while name.casefold() in self._taken:
            copy += 1
            name = f"{base} ({copy})"
        self._taken.add(name.casefold())
        return name
