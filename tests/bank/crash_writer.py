"""Helper process for test_crash.py (not a test): writes to a bank until it is killed.

    python crash_writer.py BANK items BATCH [PAUSE]   a transaction per batch of BATCH items,
                                              PAUSE seconds apart (default 0)
    python crash_writer.py BANK import JSONL  one JSONL import (a single transaction)

It prints "mid N" halfway through each batch (N items written, not committed) and
"committed N" after each commit, flushing each line so the test knows what was committed.
"""

from __future__ import annotations

import sys
import time

from quizsmith.bank import ItemBank
from quizsmith.domain import Item


def write_batches(bank: ItemBank, batch: int, pause: float) -> None:
    written = bank.count()
    while True:
        with bank.transaction():
            for k in range(batch):
                written += 1
                key = f"Answer {written}"
                bank.add_item(
                    Item(
                        type="mcq",
                        stem=f"Crash test question number {written}?",
                        key=key,
                        options=Item.make_options(key, [f"Wrong {written}.{d}" for d in range(3)]),
                        tags=["crash"],
                    )
                )
                if k == batch // 2:
                    print(f"mid {written}", flush=True)
        print(f"committed {written}", flush=True)
        time.sleep(pause)


def import_file(bank: ItemBank, path: str) -> None:
    for event in bank.import_jsonl_job(path):
        print(f"mid {event.done}", flush=True)
    print("committed import", flush=True)


if __name__ == "__main__":
    target = ItemBank(sys.argv[1])
    if sys.argv[2] == "items":
        write_batches(target, int(sys.argv[3]), float(sys.argv[4]) if len(sys.argv) > 4 else 0.0)
    else:
        import_file(target, sys.argv[3])
