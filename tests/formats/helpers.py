"""Items for the format tests: every type, and text that breaks naive writers."""

from __future__ import annotations

from quizsmith.domain import TF_ANSWERS, Flag, Item, Option, Passage, ScoreResult

SPECIAL = "Braces {a} = b, ~x, #1, a:b, back\\slash, <tag> & \"quotes\" 'apos'"
LONG = ("A very long option that goes on and on " * 12).strip()


def mcq(stem: str, key: str, distractors: list[str], **fields: object) -> Item:
    return Item(
        type="mcq",
        stem=stem,
        key=key,
        options=Item.make_options(key, distractors),
        **fields,  # type: ignore[arg-type]
    )


def tf(stem: str, key: str, **fields: object) -> Item:
    options = [Option(t, t == key, i) for i, t in enumerate(TF_ANSWERS)]
    return Item(type="tf", stem=stem, key=key, options=options, **fields)  # type: ignore[arg-type]


def short(stem: str, key: str, **fields: object) -> Item:
    return Item(type="short", stem=stem, key=key, **fields)  # type: ignore[arg-type]


def cloze(stem: str, key: str, **fields: object) -> Item:
    return Item(type="cloze", stem=stem, key=key, **fields)  # type: ignore[arg-type]


def sample_items() -> list[Item]:
    """One of each type, with accents, CJK, RTL, emoji, markup characters and a long option."""
    return [
        mcq(
            "Into which sea does the Nile empty?",
            "the Mediterranean Sea",
            ["the Red Sea", "the Black Sea", "Lake Victoria"],
            subject="Geography",
            tags=["rivers", "africa"],
            target_fact="The Nile empties into the Mediterranean Sea.",
            passage=Passage(text="The Nile empties into the Mediterranean Sea."),
            scores={
                "naco": ScoreResult(metric="naco", value=0.8125),
                "kda": ScoreResult.not_scored("kda", "answerable without the fact"),
            },
            flags=[
                Flag(
                    "distractor-never-chosen", "Distractor 'Lake Victoria' is never chosen.", "kda"
                )
            ],
        ),
        mcq(
            f"Which line is quoted exactly? {SPECIAL}",
            "a < b && c > d",
            ["{=not this}", "~tilde~ and #hash", LONG],
            subject="Syntax: tricky / characters",
        ),
        tf("Le Nil coule vers le nord — n'est-ce pas ? 🙂", "True", subject="Geography"),
        short("日本の首都はどこですか？", "東京"),
        short("ما هي عاصمة مصر؟", "القاهرة"),
        cloze("The Aswan High Dam was completed in _____.", "1970", subject="History"),
        mcq("Line one\nline two of the stem?", "right", ["wrong", "also wrong"]),
    ]


def stored(bank: object, items: list[Item], status: str = "accepted") -> list[Item]:
    """Add items with `status` to the bank and return them as the bank loads them."""
    for item in items:
        item.status = status
    ids = bank.add_items(items)  # type: ignore[attr-defined]
    return bank.get_items(ids)  # type: ignore[attr-defined,no-any-return]


def essentials(item: Item) -> tuple[object, ...]:
    """What every question format must keep: type, stem, key and the distractors (as a set:
    exporters write options in the shuffled order of the seed)."""
    return item.type, item.stem, item.key, sorted(item.distractors)
