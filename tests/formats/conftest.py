from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from quizsmith.bank import ItemBank

from .helpers import sample_items, stored


@pytest.fixture
def bank(tmp_path: Path) -> Iterator[ItemBank]:
    with ItemBank(tmp_path / "b.qbank") as b:
        yield b


@pytest.fixture
def items(bank: ItemBank) -> list:
    return stored(bank, sample_items())
