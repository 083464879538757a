"""Where each finished item of a generation run goes, so that no finished item is lost.

A generated item costs model time, so it is written the moment it is ready: to the output
file first (nobody else writes that file), then to the bank. The bank may be busy with
another program; the write is tried again a few times (each try waits the bank's busy
timeout), and an item that still cannot be saved is written to a rescue file beside the bank,
which `quizsmith import` adds later. The run goes on either way.
"""

from __future__ import annotations

import json
import logging
import os
import time
from collections.abc import Sequence
from pathlib import Path

from quizsmith.bank import BankBusyError, BankError, BankReplacedError, ItemBank
from quizsmith.domain import Item

log = logging.getLogger(__name__)

#: Tries of one bank write while another program holds the bank; each waits the busy
#: timeout (5 s), so a writer holding the bank for up to about 15 s costs no item.
BANK_TRIES = 3


def write_items_jsonl(path: Path, items: Sequence[Item]) -> None:
    """Write `items` as JSONL, replacing `path` in one step (a crash leaves the old file)."""
    tmp = path.with_name(path.name + ".tmp")
    with tmp.open("w", encoding="utf-8") as out:
        for item in items:
            out.write(json.dumps(item.to_dict(), ensure_ascii=False) + "\n")
    os.replace(tmp, path)


class ItemKeeper:
    """Keeps every finished item: in `out` (all of them), and in `bank` or, when the bank
    refuses the write, in `rescue_path` (only those).

    With `rescue=False` a refused write raises instead, after one try: the desktop app
    shows the error and stops the run, since it has no place to point a teacher at a
    rescue file."""

    def __init__(self, bank: ItemBank | None, out: Path | None, *, rescue: bool = True) -> None:
        self.bank = bank
        self.out = out
        self.rescue = rescue
        self.items: list[Item] = []
        #: Items the bank would not take, with the last reason; they are in `rescue_path`.
        self.unsaved: list[Item] = []
        self.reason = ""
        self._rescue: Path | None = None

    @property
    def rescue_path(self) -> Path | None:
        return self._rescue if self.unsaved else None

    def keep(self, item: Item) -> None:
        self.items.append(item)
        if self.out is not None:
            write_items_jsonl(self.out, self.items)
        if self.bank is None:
            return
        if not self.rescue:
            item.id = self.bank.add_item(item)
            return
        try:
            item.id = self._save(self.bank, item)
        except BankReplacedError as exc:
            # Not a moment's lock: the bank is gone from under the run, so the run stops;
            # the item just made is kept in the rescue file like a refused one.
            self.unsaved.append(item)
            self._write_rescue(self.bank)
            raise BankReplacedError(
                exc.message, f"{exc.fix} The item made just now is in {self._rescue}."
            ) from None
        except BankError as exc:
            self.unsaved.append(item)
            self.reason = exc.message
            self._write_rescue(self.bank)
            log.warning("item not saved in %s (%s); kept in %s", self.bank.path, exc, self._rescue)

    @staticmethod
    def _save(bank: ItemBank, item: Item) -> int:
        for attempt in range(1, BANK_TRIES + 1):
            try:
                return bank.add_item(item)
            except BankBusyError:
                if attempt == BANK_TRIES:
                    raise
                log.info("%s is busy; trying again (%d of %d)", bank.path, attempt, BANK_TRIES)
                time.sleep(0.1)
        raise AssertionError("unreachable")

    def _write_rescue(self, bank: ItemBank) -> None:
        if self._rescue is not None:
            write_items_jsonl(self._rescue, self.unsaved)
            return
        # A new name per run: an earlier run's rescue file may not be imported yet. Beside
        # the bank first, where the teacher looks; the log folder if that cannot be written.
        name = f"{bank.path.stem}-unsaved-{time.strftime('%Y%m%d-%H%M%S')}.jsonl"
        try:
            write_items_jsonl(bank.path.with_name(name), self.unsaved)
            self._rescue = bank.path.with_name(name)
        except OSError:
            from quizsmith import paths

            write_items_jsonl(paths.log_dir() / name, self.unsaved)
            self._rescue = paths.log_dir() / name
