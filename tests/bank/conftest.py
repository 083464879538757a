from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from quizsmith.bank import ItemBank

from .helpers import fake_embed


@pytest.fixture
def bank_path(tmp_path: Path) -> Path:
    return tmp_path / "test.qbank"


@pytest.fixture
def bank(bank_path: Path) -> Iterator[ItemBank]:
    """A real bank file; after the test, SQLite's integrity check and the bank's own
    invariants (foreign keys, search index in step, options present) must be clean."""
    b = ItemBank(bank_path, embed=fake_embed, embed_model="fake-bow")
    yield b
    if not b._closed:
        assert b.integrity_problems() == []
        b.close()
    if bank_path.exists():
        with ItemBank(bank_path, read_only=True) as check:
            assert check.integrity_problems() == []
