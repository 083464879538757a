"""Dataset adapters: one module per format, each with `load(path) -> list[EvalRecord]` and
`GROUP_FORMAT` (whose records come in groups of candidate questions with valid and flawed
roles: VALID_ROLES / FLAWED_ROLES)."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

from quizsmith.errors import QuizsmithError
from quizsmith.evaluation.adapters import (
    jsonl,
    naco_groups,
    naco_squad,
    naco_variants,
    qgeval,
    quizdesign,
)
from quizsmith.evaluation.records import EvalRecord

ADAPTERS: dict[str, ModuleType] = {
    "jsonl": jsonl,
    "qgeval": qgeval,
    "naco-squad": naco_squad,
    "naco-groups": naco_groups,
    "naco-variants": naco_variants,
    "quizdesign": quizdesign,
}
FORMATS = tuple(ADAPTERS)


def adapter(fmt: str) -> ModuleType:
    try:
        return ADAPTERS[fmt]
    except KeyError:
        raise QuizsmithError(
            f"Unknown dataset format {fmt!r}.", f"Use one of: {', '.join(FORMATS)}."
        ) from None


def load_records(path: str | Path, fmt: str) -> list[EvalRecord]:
    records: list[EvalRecord] = adapter(fmt).load(Path(path))
    return records


def is_group_format(fmt: str) -> bool:
    return bool(adapter(fmt).GROUP_FORMAT)


def roles(fmt: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(valid roles, flawed roles) of a format."""
    module = adapter(fmt)
    return tuple(module.VALID_ROLES), tuple(module.FLAWED_ROLES)
