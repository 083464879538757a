"""JSON values a bank can store, and JSON a bank can write.

JSON allows more than SQLite and JSON writers take: an escape for half of a surrogate pair,
integers of any size, numbers beyond a float (read as infinity), and Python's reader takes
NaN and Infinity as well. `jsonl.read_file` refuses such a line by number before the bank is
opened; `finite` keeps an export valid JSON whatever a bank already holds.
"""

from __future__ import annotations

import math
import re
from typing import Any


def no_constant(name: str) -> Any:
    """json.loads' `parse_constant`: NaN, Infinity and -Infinity are refused."""
    raise ValueError(f"{name} is not a number JSON allows")


#: What SQLite can store as an integer (8 bytes, signed).
INT_MIN, INT_MAX = -(2**63), 2**63 - 1
_SURROGATE = re.compile("[\ud800-\udfff]")


def unstorable(value: Any) -> str:
    """Why a parsed JSON value holds something a bank cannot store ("" when not): a lone
    surrogate (`"\\ud800"` is valid JSON but no character, so encoding it for SQLite failed),
    an integer beyond 8 bytes (`"id": 2**70`), or a number too large for a float (`1e999`
    reads as infinity). Each used to end in "Unexpected error" after the bank was opened."""
    stack = [value]
    while stack:
        current = stack.pop()
        if isinstance(current, str):
            if _SURROGATE.search(current):
                return (
                    "it holds a lone surrogate (an escape \\ud800 to \\udfff without its "
                    "pair), which is not a character."
                )
        elif isinstance(current, bool):
            continue
        elif isinstance(current, int):
            if not INT_MIN <= current <= INT_MAX:
                return "it holds a whole number too large to store (beyond 9.2e18)."
        elif isinstance(current, float):
            if not math.isfinite(current):
                return "it holds a number too large to store (beyond 1.8e308)."
        elif isinstance(current, dict):
            stack.extend(current.keys())
            stack.extend(current.values())
        elif isinstance(current, list):
            stack.extend(current)
    return ""


def finite(value: Any) -> Any:
    """`value` with every number that JSON cannot hold (inf, nan) replaced by null."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [finite(v) for v in value]
    return value
