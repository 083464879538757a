"""Checking a table of options from the settings file against the defaults that define it.

A misspelt key (`weak_bellow`) or a value of the wrong type (`weak_below = "0.3"`) would
otherwise load silently and leave the default in force. The defaults are the schema: every
key a table may hold is a key of its defaults, and a value must have its default's type
(an int is accepted where the default is a float; TOML writes `1` for `1.0`). A default of
None says nothing about the type, so its owner names the types in `types`.

Numbers are range-checked here too, at the boundary (issue 28): a value that is not finite
(nan, inf) is refused everywhere, and a table's owner gives each number its valid range in
`ranges` (`timeout_s = -1` or `n_ctx = 1000000000` used to load, and crashed or blamed the
model file much later). The message names the key, the table and the range.

Base layer (standard library and `errors` only): `settings.py` checks its own tables with it,
the metrics theirs.
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from quizsmith.errors import ConfigError

_TYPE_NAMES = {
    bool: "true or false",
    int: "a whole number",
    float: "a number",
    str: "a string",
    list: "a list",
    dict: "a table",
}
_PLURAL_NAMES = {
    bool: "true/false values",
    int: "whole numbers",
    float: "numbers",
    str: "strings",
    list: "lists",
    dict: "tables",
}


def closest(key: str, valid: list[str]) -> str | None:
    """The valid key most like `key`, if any is close enough to be a likely misspelling."""
    match = difflib.get_close_matches(key, valid, n=1, cutoff=0.6)
    return match[0] if match else None


def check_keys(
    given: Mapping[str, Any], valid: list[str], where: str, path: Path | str | None = None
) -> None:
    """Every key of `given` must be one of `valid`; `where` names the table ("[metrics.kda]")."""
    for key in given:
        if key in valid:
            continue
        near = closest(str(key), valid)
        hint = f"Did you mean {near!r}? " if near else ""
        in_file = f" in {path}" if path else ""
        raise ConfigError(
            f"Unknown option {key!r} in {where}{in_file}.",
            f"{hint}Valid options: {', '.join(valid) or '(none)'}.",
        )


def check_options(
    given: Mapping[str, Any],
    defaults: Mapping[str, Any],
    where: str,
    *,
    types: Mapping[str, type | tuple[type, ...]] | None = None,
    ranges: Mapping[str, tuple[float, float]] | None = None,
    path: Path | str | None = None,
) -> None:
    """Unknown keys, values whose type differs from the default's, numbers that are not
    finite and numbers outside their range in `ranges` (inclusive) are a ConfigError."""
    check_keys(given, sorted(defaults), where, path)
    for key, value in given.items():
        expected = (types or {}).get(key)
        problem = _type_problem(value, defaults[key], expected) or _range_problem(
            value, (ranges or {}).get(key)
        )
        if problem:
            in_file = f" in {path}" if path else ""
            raise ConfigError(
                f"Option {key!r} in {where}{in_file} must be {problem}, not {value!r}.",
                f"Write {key} = {_example(defaults[key], expected)}, or remove the line to use "
                "the default.",
            )


def _type_problem(value: Any, default: Any, expected: type | tuple[type, ...] | None) -> str | None:
    if expected is None:
        if default is None:
            return None
        expected = type(default)
    wanted = expected if isinstance(expected, tuple) else (expected,)
    if not _is_a(value, wanted):
        return " or ".join(_TYPE_NAMES.get(t, t.__name__) for t in wanted)
    if isinstance(value, list) and isinstance(default, list) and default:
        element_types = {type(v) for v in default}
        if len(element_types) == 1:
            (element,) = element_types
            if not all(_is_a(v, (element,)) for v in value):
                return f"a list of {_PLURAL_NAMES.get(element, element.__name__)}"
    return None


def _range_problem(value: Any, valid: tuple[float, float] | None) -> str | None:
    if isinstance(value, list):
        numbers = [v for v in value if isinstance(v, float)]
        return None if all(map(math.isfinite, numbers)) else "a list of finite numbers"
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if valid is None:
        return None if math.isfinite(value) else "a finite number"
    low, high = valid
    if not (math.isfinite(value) and low <= value <= high):
        return f"a number from {_number(low)} to {_number(high)}"
    return None


def _number(value: float) -> str:
    return f"{int(value):,}" if float(value).is_integer() else f"{value:g}"


def _is_a(value: Any, wanted: tuple[type, ...]) -> bool:
    # bool is an int to Python, but `true` where a number belongs is a mistake.
    if isinstance(value, bool):
        return bool in wanted
    if isinstance(value, int) and float in wanted:
        return True
    return isinstance(value, wanted)


def _example(default: Any, expected: type | tuple[type, ...] | None) -> str:
    if default is None:
        wanted = expected if isinstance(expected, tuple) else (expected,)
        samples: dict[Any, str] = {float: "0.5", int: "1", str: '"text"', bool: "true"}
        return samples.get(wanted[0], "...")
    return _toml(default)


def _toml(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, float):
        return f"{value:g}" if "." in f"{value:g}" or "e" in f"{value:g}" else f"{value:.1f}"
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    return str(value)
