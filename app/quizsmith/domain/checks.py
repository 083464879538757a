"""Checks shared by the dataclasses' constructors and `from_dict` readers: each raises a
ValueError naming the bad field (the JSONL reader reports it with the line number)."""

from __future__ import annotations

import math
from typing import Any


def check_choice(name: str, value: str | None, allowed: tuple[str, ...], optional: bool) -> None:
    if value is None and optional:
        return
    if value not in allowed:
        raise ValueError(f"{name} must be one of {', '.join(allowed)}; got {value!r}.")


def as_number(raw: Any, what: str) -> float:
    if isinstance(raw, bool) or not isinstance(raw, int | float | str):
        raise ValueError(f"{what} must be a number.")
    try:
        value = float(raw)
    except ValueError:
        raise ValueError(f"{what} must be a number; got {raw!r}.") from None
    except OverflowError:  # an integer of 400 digits
        raise ValueError(f"{what} must be a finite number.") from None
    if not math.isfinite(value):
        raise ValueError(f"{what} must be a finite number.")
    return value


def optional_text(data: dict[str, Any], name: str) -> str | None:
    """A field that holds text or nothing: a list or an object there (`"subject": ["a"]`)
    used to reach the bank and fail there, past the file's line numbers."""
    value = data.get(name)
    if value is not None and not isinstance(value, str):
        raise ValueError(f"{name!r} must be text.")
    return value


def str_list(data: dict[str, Any], name: str) -> list[str]:
    value = data.get(name) or []
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ValueError(f"{name!r} must be a list of strings.")
    return list(value)
