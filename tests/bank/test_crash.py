"""A writer killed with SIGKILL in the middle of a transaction leaves a consistent bank that
holds every committed item, complete, and nothing of the batch it was writing."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from quizsmith.bank import ItemBank

from .helpers import mcq

WRITER = Path(__file__).with_name("crash_writer.py")

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL is POSIX")


def _run_and_kill(args: list[str], kill_at_mid: int) -> tuple[int, list[str]]:
    """Start the writer, SIGKILL it right after its `kill_at_mid`-th "mid" line; returns the
    last committed count it reported and every line it printed."""
    proc = subprocess.Popen(
        [sys.executable, str(WRITER), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    lines: list[str] = []
    mids = 0
    try:
        for line in proc.stdout:
            lines.append(line.strip())
            if line.startswith("mid"):
                mids += 1
                if mids == kill_at_mid:
                    proc.send_signal(signal.SIGKILL)
                    break
        lines += [line.strip() for line in proc.stdout]
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == -signal.SIGKILL, proc.stderr.read() if proc.stderr else ""
    committed = [
        int(x.split()[1]) for x in lines if x.startswith("committed") and x.split()[1].isdigit()
    ]
    return (committed[-1] if committed else 0), lines


def _check_consistent(path: Path) -> int:
    with ItemBank(path) as bank:
        assert bank.integrity_problems() == []
        with bank.reading() as conn:
            incomplete = conn.execute(
                "SELECT i.id, count(o.position), sum(o.is_key) FROM items i "
                "LEFT JOIN options o ON o.item_id = i.id GROUP BY i.id "
                "HAVING count(o.position) != 4 OR sum(o.is_key) != 1"
            ).fetchall()
            assert incomplete == []
            untagged = conn.execute(
                "SELECT count(*) FROM items WHERE id NOT IN (SELECT item_id FROM item_tags)"
            ).fetchone()[0]
            assert untagged == 0
        count = bank.count()
        # the bank is usable after the crash
        bank.add_item(mcq(stem="Written after the crash?"))
        assert bank.count() == count + 1
        return count


@pytest.mark.parametrize("kill_at_mid", [1, 3])
def test_killed_mid_batch_keeps_every_committed_item_and_nothing_else(
    bank_path: Path, kill_at_mid: int
) -> None:
    ItemBank(bank_path).close()
    committed, lines = _run_and_kill([str(bank_path), "items", "1000"], kill_at_mid)
    assert committed == 1000 * (kill_at_mid - 1)
    # the kill landed inside a batch: nothing was committed after the last "mid"
    assert lines[-1].startswith("mid"), lines[-3:]
    assert _check_consistent(bank_path) == committed


def test_killed_during_an_import_imports_nothing(bank_path: Path, tmp_path: Path) -> None:
    with ItemBank(bank_path) as bank:
        bank.add_items([mcq(stem=f"Before {n}?", tags=["old"]) for n in range(10)])
    source = tmp_path / "big.jsonl"
    items = [mcq(stem=f"Imported {n}?", tags=["new"]).to_dict() for n in range(3000)]
    source.write_text("\n".join(json.dumps(i) for i in items), encoding="utf-8")
    _, lines = _run_and_kill([str(bank_path), "import", str(source)], kill_at_mid=2)
    assert "committed import" not in lines
    assert _check_consistent(bank_path) == 10
