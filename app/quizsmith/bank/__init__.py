"""The item bank: every passage, item, score, review and quiz in one SQLite file.

`ItemBank(path)` is the single entry point to stored data; see `store.ItemBank` for the API
and `jsonl` for the interchange file it reads and writes.
"""

from __future__ import annotations

from quizsmith.bank.dedupe import DEFAULT_THRESHOLD, DuplicateMatch, EmbedFn
from quizsmith.bank.errors import BankBusyError, BankError, BankReplacedError
from quizsmith.bank.jsonl import ImportResult
from quizsmith.bank.stats import DEFAULT_EXPECTED_STEPS, NACO_METRIC, STEPS_KEY
from quizsmith.bank.store import ItemBank

__all__ = [
    "DEFAULT_EXPECTED_STEPS",
    "DEFAULT_THRESHOLD",
    "NACO_METRIC",
    "STEPS_KEY",
    "BankBusyError",
    "BankError",
    "BankReplacedError",
    "DuplicateMatch",
    "EmbedFn",
    "ImportResult",
    "ItemBank",
]
