"""Editor drafts: unsaved edits kept beside an item without changing it."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from sqlite_utils import Database

from quizsmith.bank import BankError, ItemBank, schema
from quizsmith.domain import Item

from .helpers import fake_embed


def mcq(stem: str = "Which gas do plants release?") -> Item:
    return Item(type="mcq", stem=stem, key="Oxygen", options=Item.make_options("Oxygen", ["Neon"]))


def test_a_draft_is_kept_beside_the_item(bank: ItemBank) -> None:
    item_id = bank.add_item(mcq())
    assert bank.get_draft(item_id) is None
    fields = {"stem": "Which gas do green plants rel", "key": "", "distractors": ["Neon"]}
    saved = bank.save_draft(item_id, fields)
    assert bank.get_draft(item_id) == (fields, saved)
    # The item is what was last saved: a half-typed edit need not be a valid item.
    assert bank.get_item(item_id).stem == "Which gas do plants release?"
    bank.save_draft(item_id, {"stem": "Which gas?"})
    assert bank.get_draft(item_id) is not None
    assert bank.get_draft(item_id)[0] == {"stem": "Which gas?"}  # type: ignore[index]
    bank.delete_draft(item_id)
    assert bank.get_draft(item_id) is None
    bank.delete_draft(item_id)  # nothing to forget is fine


def test_a_draft_goes_with_its_item(bank: ItemBank) -> None:
    item_id = bank.add_item(mcq())
    bank.save_draft(item_id, {"stem": "x"})
    bank.delete_item(item_id)
    with bank.reading() as conn:
        assert conn.execute("SELECT count(*) FROM item_drafts").fetchone()[0] == 0
    with pytest.raises(BankError):
        bank.save_draft(item_id, {"stem": "x"})


def test_a_bank_from_before_drafts_is_upgraded(bank_path: Path) -> None:
    conn = sqlite3.connect(bank_path, isolation_level=None)
    schema.migrate(Database(conn), stop_before="0005_drafts")
    conn.close()
    with ItemBank(bank_path, embed=fake_embed) as bank:
        assert "0005_drafts" in bank.schema_version
        item_id = bank.add_item(mcq())
        bank.save_draft(item_id, {"stem": "kept"})
    with ItemBank(bank_path, embed=fake_embed) as again:
        assert again.get_draft(item_id) is not None


def test_an_older_bank_opened_for_reading_is_upgraded_first(bank_path: Path) -> None:
    # `quizsmith export` and `refit` open banks read-only; after an update of Quizsmith
    # they must not fail with "read-only" on a bank the user can write.
    conn = sqlite3.connect(bank_path, isolation_level=None)
    schema.migrate(Database(conn), stop_before="0005_drafts")
    conn.close()
    with ItemBank(bank_path, create=False, read_only=True, embed=fake_embed) as bank:
        assert bank.read_only and "0005_drafts" in bank.schema_version
        assert bank.count() == 0
