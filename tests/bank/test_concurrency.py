"""The GUI reads while a background job writes: no "database is locked", no torn reads."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from pathlib import Path

from quizsmith.bank import BankError, ItemBank
from quizsmith.domain import ScoreResult

from .helpers import mcq

BATCHES, PER_BATCH = 40, 25


def test_readers_run_while_a_writer_thread_commits(bank: ItemBank) -> None:
    errors: list[BaseException] = []
    done = threading.Event()
    seen: dict[str, list[int]] = {}

    def writer() -> None:
        try:
            for b in range(BATCHES):
                with bank.transaction():
                    ids = bank.add_items(
                        [
                            mcq(
                                stem=f"Batch {b} question {n} photosynthesis?",
                                key=f"K{b}-{n}",
                                subject="Biology",
                                tags=["bulk"],
                            )
                            for n in range(PER_BATCH)
                        ]
                    )
                    for item_id in ids:
                        bank.add_score(
                            item_id, ScoreResult(metric="naco", value=(item_id % 10) / 10)
                        )
                    bank.review(ids[0], "accept")
        except BaseException as exc:
            errors.append(exc)
        finally:
            done.set()

    def reader(name: str) -> None:
        counts: list[int] = []
        try:
            while not done.is_set():
                with bank.reading():
                    total = bank.count()
                    listed = bank.search(limit=None, sort_by="id")
                    # one snapshot: the listing agrees with the count, items are whole
                    assert len(listed) == total
                    assert all(len(i.options) == 4 and "naco" in i.scores for i in listed)
                counts.append(total)
                bank.search("photosynthesis", status="accepted", sort_by="naco", limit=50)
                bank.search(subject="Biology", min_scores={"naco": 0.5}, tag="bulk", limit=200)
                if total:
                    bank.get_item(total)
            seen[name] = counts
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=writer)] + [
        threading.Thread(target=reader, args=(f"r{n}",)) for n in range(3)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert errors == []
    assert bank.count() == BATCHES * PER_BATCH
    for counts in seen.values():
        assert counts == sorted(counts)  # never goes back in time
        assert all(c % PER_BATCH == 0 for c in counts)  # never sees half a batch
        assert len(set(counts)) > 1  # the readers really ran during the writes


def test_two_processes_writing_the_same_bank_wait_instead_of_failing(bank_path: Path) -> None:
    """Another process (the CLI generating items, a second window) holding SQLite's write
    lock is waited for (busy timeout), not reported as "database is locked". The other
    process writes like a generator does: a batch, then model time, then the next batch."""
    ItemBank(bank_path).close()
    writer = Path(__file__).with_name("crash_writer.py")
    proc = subprocess.Popen(
        [sys.executable, str(writer), str(bank_path), "items", "100", "0.05"],
        stdout=subprocess.PIPE,
        text=True,
    )
    written = 0
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline().startswith("mid")
        with ItemBank(bank_path) as bank:
            started = time.monotonic()
            while time.monotonic() - started < 1.5:
                bank.add_item(mcq(stem=f"From the test {written}?"))
                written += 1
                bank.review(written, "accept")
            assert bank.count() > written
    finally:
        proc.kill()
        proc.wait()
    with ItemBank(bank_path) as bank:
        assert bank.count("from the test") == written
        assert bank.integrity_problems() == []


def test_a_write_during_a_long_import_waits_then_says_busy(bank: ItemBank, tmp_path: Path) -> None:
    """Within one process the bank's lock makes writers queue; a caller that cannot wait
    (the GUI thread) gets a clear BankError after its timeout instead of a freeze."""
    source = tmp_path / "items.jsonl"
    lines = [json.dumps(mcq(stem=f"Imported {n}?").to_dict()) for n in range(2000)]
    source.write_text("\n".join(lines), encoding="utf-8")
    job = bank.import_jsonl_job(source)
    next(job)  # the import now holds the write lock (this thread)
    outcome: list[object] = []

    def gui_click() -> None:
        try:
            with bank.transaction(timeout=0.2):
                outcome.append("wrote")
        except BankError as exc:
            outcome.append(exc)
        try:
            outcome.append(bank.count())  # reading never waits
        except BankError as exc:
            outcome.append(exc)

    t = threading.Thread(target=gui_click)
    t.start()
    t.join(timeout=10)
    assert isinstance(outcome[0], BankError) and "busy" in str(outcome[0])
    assert outcome[1] == 0  # the import is not committed yet
    for _ in job:
        pass
    assert bank.count() == 2000
