"""The order in which an export writes each item's options, decided for the whole export at
once (issue 19).

Item-writing guides ask for two things a per-item shuffle cannot give:

- options that are all numbers ("1898", "1903", "1911", or "3.5 kg", "12 kg") are listed in
  ascending order, so a student looks the answer up instead of hunting for it;
- across a quiz the key sits at every letter about equally often. Independent shuffles put
  three keys of four at "A" often enough for a teacher to notice, and students learn to guess
  the favourite letter.

So the key's position is assigned over the exported set: the most constrained items (fewest
options) first, each taking a position the fewest keys have used so far, ties broken by the
seeded generator; the distractors are then shuffled around the key with the item's own
generator. Numerically sorted items, true/false (True before False) and items with one
option keep their fixed order and are left out of the balance. The plan depends on the seed
and on which items are exported, not on their order, so a student sheet and an answer key of
the same selection agree even when the quiz was reordered in between.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence

from quizsmith.domain import Item, Option

#: A number as written on an option: sign, digits (thousands grouped by "," or a space when
#: there are groups of three), decimals after "." or ",". A currency sign may come first and
#: a unit after; anything else (ranges, fractions, "about 5") is not a plain number. Each
#: space run belongs to the sign or currency before it: three optional parts with a `\s*`
#: each between them split one run of spaces every possible way before giving up ("$",
#: 2,000 spaces and "x" took 58 s, issue 48). The text is stripped, so no run leads.
_CURRENCY = "$\u00a2-\u00a5\u20a0-\u20cf"
_NUMBER = re.compile(
    rf"""
    (?:(?P<currency>[{_CURRENCY}])\s*)?
    (?:(?P<sign>[-+\u2212])\s*)?
    (?:(?P<currency2>[{_CURRENCY}])\s*)?
    (?P<whole>\d{{1,3}}(?:[,\ ]\d{{3}})+|\d+)
    (?:[.,](?P<fraction>\d+))?
    \s*(?P<unit>[^\d\s][^\d]*)?
    """,
    re.VERBOSE,
)
#: Longer than this is a phrase that happens to start with a number, not a unit.
_MAX_UNIT = 16


def numeric_value(text: str) -> tuple[float, str] | None:
    """(value, unit) of an option that is a plain number, with an optional unit or currency
    ("1911" -> (1911, ""), "-3.5 kg" -> (-3.5, "kg"), "$1,200" -> (1200, "$")), else None."""
    # No-break and thin spaces group thousands as a space does ("12\u202f000").
    cleaned = text.replace("\u00a0", " ").replace("\u202f", " ").strip()
    match = _NUMBER.fullmatch(cleaned)
    if match is None:
        return None
    unit = (match["unit"] or "").strip()
    currency = match["currency"] or match["currency2"] or ""
    if len(unit) > _MAX_UNIT or (currency and unit):
        return None
    whole = re.sub(r"\D", "", match["whole"])
    value = float(f"{whole}.{match['fraction'] or 0}")
    if match["sign"] in ("-", "\u2212"):
        value = -value
    return value, currency or unit


def numeric_order(options: Sequence[Option]) -> list[Option] | None:
    """The options in ascending numeric order when every one is a number in the same unit
    (or none), else None. Equal values keep the bank's order."""
    values = [numeric_value(o.text) for o in options]
    if len(options) < 2 or any(v is None for v in values):
        return None
    if len({v[1] for v in values if v is not None}) != 1:
        return None  # "5 kg" beside "500 g": not comparable by the number alone
    ranked = sorted((value[0], index) for index, value in enumerate(values) if value is not None)
    return [options[index] for _, index in ranked]


def _identity(item: Item) -> str:
    return str(item.id) if item.id is not None else item.stem


class OptionOrders:
    """The option order of every item of one export: `of(item)`.

    Build it from all the items the export writes; an item it was not built with gets the
    order it would have alone."""

    def __init__(self, items: Sequence[Item], seed: int) -> None:
        self.seed = seed
        self._orders: dict[str, list[Option]] = {}
        self._numeric: set[str] = set()
        balanced: list[Item] = []
        for item in items:
            identity = _identity(item)
            if identity in self._orders:
                continue
            ordered = sorted(item.options, key=lambda o: o.position)
            by_number = numeric_order(ordered) if item.type != "tf" else None
            if by_number is not None:
                self._orders[identity] = by_number
                self._numeric.add(identity)
            elif item.type == "tf" or len(ordered) < 2:
                self._orders[identity] = ordered
            elif sum(o.is_key for o in ordered) != 1:
                self._orders[identity] = self._shuffled(identity, ordered)
            else:
                self._orders[identity] = ordered
                balanced.append(item)
        self._balance(balanced)

    def of(self, item: Item) -> list[Option]:
        identity = _identity(item)
        if identity not in self._orders:
            return OptionOrders([item], self.seed).of(item)
        return list(self._orders[identity])

    def is_numeric(self, item: Item) -> bool:
        """True when the item's options are in ascending numeric order, which a format that
        lets the quiz shuffle answers should then keep."""
        return _identity(item) in self._numeric

    def _shuffled(self, identity: str, options: list[Option]) -> list[Option]:
        # Each item's own generator: its distractors' order does not depend on the others.
        shuffled = list(options)
        random.Random(f"{self.seed}:{identity}").shuffle(shuffled)
        return shuffled

    def _balance(self, items: list[Item]) -> None:
        rng = random.Random(f"{self.seed}:key positions")
        # Sorted by identity before the seeded shuffle: the plan depends on which items are
        # exported, never on the order the quiz lists them in.
        items = sorted(items, key=_identity)
        rng.shuffle(items)
        items.sort(key=lambda i: len(i.options))  # stable: the fewest options choose first
        used: list[int] = []
        for item in items:
            identity = _identity(item)
            count = len(item.options)
            used += [0] * (count - len(used))
            fewest = min(used[:count])
            position = rng.choice([p for p in range(count) if used[p] == fewest])
            used[position] += 1
            options = self._orders[identity]
            key = next(o for o in options if o.is_key)
            others = self._shuffled(identity, [o for o in options if not o.is_key])
            self._orders[identity] = [*others[:position], key, *others[position:]]


def option_orders(items: Sequence[Item], seed: int) -> OptionOrders:
    """The option order of each of `items` for `seed` (see the module's docstring)."""
    return OptionOrders(items, seed)
