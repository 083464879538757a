"""Crash safety of the two long batch commands: `quizsmith generate --bank` and
`quizsmith score --bank` are killed with SIGKILL part-way (no handler runs, as with a power
cut or the OOM killer), then run again with the same arguments. The re-run must resume: the
end state is exactly what one uninterrupted run gives, every row committed before the kill
is still there, nothing is done twice, and the bank passes its integrity checks.

Runs the real CLI in a subprocess on the bundled models with one llama.cpp thread."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from quizsmith.bank import ItemBank
from quizsmith.settings import Settings

pytestmark = pytest.mark.slow

PASSAGE = (
    "The Hesburgh Library at the University of Notre Dame was completed in 1963. It is the "
    "third building to house the main collection of books. The front of the library is "
    "adorned with the Word of Life mural, designed by the artist Millard Sheets. The mural is "
    "popularly known as Touchdown Jesus because of its proximity to Notre Dame Stadium.\n\n"
    "The university library system holds more than 3 million volumes in ten libraries. The "
    "Snite Museum of Art was founded in 1980 and holds about 30,000 works of art. The Morris "
    "Inn, opened in 1952, is the hotel on the campus.\n\n"
    # Room to spare: how many items are committed before the kill depends on the machine's
    # speed (3 of 4 on a fast one), and the resumed run must still find facts to ask about
    # after the generator's checks drop some of them.
    "Father Edward Sorin founded the university in 1842 with seven brothers of the Holy "
    "Cross. The Basilica of the Sacred Heart was consecrated in 1888. The Golden Dome tops the "
    "Main Building, which was rebuilt in 1879 after a fire destroyed the first one. The "
    "campus covers 1,261 acres near South Bend, Indiana."
)
N = 8
RUN_LIMIT_S = 900


def _cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "quizsmith.cli", *args]


def _read_bank(path: Path) -> ItemBank | None:
    if not path.exists():
        return None
    try:
        return ItemBank(path, create=False, read_only=True)
    except Exception:
        return None


def _run_until(cmd: list[str], ready: Callable[[], bool], log: Path) -> int | None:
    """Start `cmd`, SIGKILL it once `ready()` holds; its return code if it ended first."""
    with log.open("w") as out:
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, env=os.environ.copy())
    deadline = time.monotonic() + RUN_LIMIT_S
    try:
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                return proc.returncode
            if ready():
                proc.send_signal(signal.SIGKILL)
                proc.wait(30)
                return None
            time.sleep(0.2)
        raise AssertionError(f"{cmd} did not get far enough in {RUN_LIMIT_S} s:\n{log.read_text()}")
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(30)


def _finish(cmd: list[str], log: Path) -> str:
    done = subprocess.run(
        cmd, capture_output=True, text=True, timeout=RUN_LIMIT_S, env=os.environ.copy()
    )
    log.write_text(done.stdout + done.stderr)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def test_generate_killed_after_the_first_item_resumes(one_thread: Settings, tmp_path: Path) -> None:
    passage = tmp_path / "library.txt"
    passage.write_text(PASSAGE, encoding="utf-8")
    bank_path = tmp_path / "quiz.qbank"
    # Scored (no --no-rank): each item then takes the light models' reading, so items are
    # committed one by one over seconds. Unscored, the light profile's rule-made questions
    # and cloze items need no model call, and on a fast machine all 8 were committed within
    # one 0.2 s poll, before the kill could come (2026-11-30).
    cmd = _cli(
        "generate", str(passage), "-n", str(N), "--bank", str(bank_path),
        "--candidates", "1", "--types", "short,cloze",
    )  # fmt: skip
    seen: list[tuple[int | None, str, str]] = []

    def one_item_committed() -> bool:
        bank = _read_bank(bank_path)
        if bank is None:
            return False
        with bank:
            items = bank.search(limit=None)
            if len(items) >= 1:
                seen[:] = [(i.id, i.stem, i.key) for i in items]
                return True
        return False

    code = _run_until(cmd, one_item_committed, tmp_path / "first.log")
    assert code is None, f"the first run ended by itself ({code}) before the kill"
    assert 1 <= len(seen) < N

    with ItemBank(bank_path, create=False) as bank:  # the writer's check, after the kill
        assert bank.integrity_problems() == []
        survivors = {(i.id, i.stem, i.key) for i in bank.search(limit=None)}
    assert set(seen) <= survivors  # what was committed before the kill is all there

    out = _finish(cmd, tmp_path / "second.log")
    assert f"Continuing: {len(survivors)} items" in out
    with ItemBank(bank_path, create=False) as bank:
        assert bank.integrity_problems() == []
        (stored_passage,) = bank.passages()
        items = bank.items_of_passage(stored_passage.id)  # type: ignore[arg-type]
        assert len(items) == N
        assert len(bank.search(limit=None)) == N
        assert len({i.key.casefold() for i in items}) == N  # no target asked about twice
        assert len({i.stem for i in items}) == N
        assert survivors <= {(i.id, i.stem, i.key) for i in items}

    # A third run has nothing left to do.
    assert f"already holds {N} items" in _finish(cmd, tmp_path / "third.log")


def test_score_killed_part_way_resumes_without_scoring_twice(
    one_thread: Settings, tmp_path: Path
) -> None:
    from support.squad import squad_mcqs

    try:
        items = squad_mcqs([0, 3, 7, 11, 15])
    except FileNotFoundError:
        pytest.skip("the shared SQuAD data (../shared/data/naco) is not on this machine")
    bank_path = tmp_path / "score.qbank"
    with ItemBank(bank_path) as bank:
        for item in items:
            assert item.passage is not None
            item.passage_id = bank.add_passage(item.passage)
            item.id = bank.add_item(item)
        ids = [i.id for i in items]
    cmd = _cli("score", "--bank", str(bank_path), "--metrics", "naco")

    def history() -> dict[int, int]:
        bank = _read_bank(bank_path)
        if bank is None:
            return {}
        with bank:
            return {i: len(bank.score_history(i, "naco")) for i in ids}  # type: ignore[misc]

    before: dict[int, int] = {}

    def some_scored() -> bool:
        counts = history()
        if sum(counts.values()) >= 1:
            before.update(counts)
            return True
        return False

    code = _run_until(cmd, some_scored, tmp_path / "first.log")
    assert code is None, f"the first run ended by itself ({code}) before the kill"
    assert 1 <= sum(before.values()) < len(ids)
    with ItemBank(bank_path, create=False) as bank:
        assert bank.integrity_problems() == []
        kept = {i: [s.to_dict() for s in bank.score_history(i, "naco")] for i in ids}  # type: ignore[arg-type]
    assert all(len(kept[i]) >= before[i] for i in ids)  # committed scores survived the kill

    _finish(cmd, tmp_path / "second.log")
    with ItemBank(bank_path, create=False) as bank:
        assert bank.integrity_problems() == []
        for item_id in ids:
            history_now = bank.score_history(item_id, "naco")  # type: ignore[arg-type]
            assert len(history_now) == 1, f"item {item_id} scored {len(history_now)} times"
            if kept[item_id]:  # scored before the kill: that very score was kept, not redone
                assert history_now[0].to_dict() == kept[item_id][0]
            result = history_now[0]
            assert result.scored or result.not_scored_reason
            if result.scored:
                assert result.value is not None and 0.0 <= result.value <= 1.0
