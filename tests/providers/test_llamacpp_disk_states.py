"""Fixed heads' states kept on disk (providers/llamacpp_disk_states.py): written once,
restored in a later quiz or process bit for bit, never trusted when damaged, bounded in
size, and never a reason for a call to fail."""

from __future__ import annotations

import pytest

from quizsmith.providers import Message, llamacpp_disk_states
from quizsmith.providers.base import Fixed
from quizsmith.providers.llamacpp_disk_states import DiskStates
from quizsmith.providers.llamacpp_models import forget_kept_state

KEY = ((1, 2, 3, 4), (2, 4))
OTHER = ((1, 2, 3, 5), (2, 4))


def test_a_state_is_read_back_as_written(tmp_path) -> None:
    store = DiskStates("model-a", tmp_path)
    assert store.get(KEY) is None
    store.put(KEY, b"kv cells" * 100)
    assert store.get(KEY) == b"kv cells" * 100
    assert store.get(OTHER) is None  # other tokens: another state
    # Another model, build or setting is another identity: it does not see the state.
    assert DiskStates("model-b", tmp_path).get(KEY) is None


def test_a_damaged_state_is_deleted_unread(tmp_path) -> None:
    store = DiskStates("model-a", tmp_path)
    store.put(KEY, b"kv cells" * 100)
    (path,) = tmp_path.glob("*.state")
    data = bytearray(path.read_bytes())
    data[-1] ^= 0xFF
    path.write_bytes(bytes(data))
    assert store.get(KEY) is None
    assert not path.exists()
    path.write_bytes(b"")  # torn to nothing
    assert store.get(KEY) is None


def test_the_least_recently_used_states_go_past_the_budget(tmp_path, monkeypatch) -> None:
    import os

    monkeypatch.setattr(llamacpp_disk_states, "DISK_BUDGET_BYTES", 2_500)
    store = DiskStates("model-a", tmp_path)
    keys = [((i,), (1,)) for i in range(3)]
    for age, key in enumerate(keys[:2]):
        store.put(key, bytes(1_000))
        os.utime(store._path(key), (1_000 + age, 1_000 + age))
    assert store.get(keys[0]) is not None  # read: now the most recently used
    store.put(keys[2], bytes(1_000))
    assert store.get(keys[1]) is None, "the least recently used went"
    assert store.get(keys[0]) is not None and store.get(keys[2]) is not None


def test_a_write_cut_off_long_ago_is_cleared(tmp_path) -> None:
    import os

    store = DiskStates("model-a", tmp_path)
    old, fresh = tmp_path / "old.part", tmp_path / "fresh.part"
    old.write_bytes(b"half a state")
    fresh.write_bytes(b"being written")
    os.utime(old, (1_000, 1_000))
    store.put(KEY, b"state")
    assert not old.exists() and fresh.exists()  # another process may still be writing it
    assert store.get(KEY) == b"state"


def test_a_folder_that_cannot_be_written_loses_nothing_but_the_state(tmp_path, monkeypatch) -> None:
    blocked = tmp_path / "a file, not a folder"
    blocked.write_text("x")
    store = DiskStates("model-a", blocked)
    store.put(KEY, b"state")  # no error
    assert store.get(KEY) is None
    # The same where the user's cache folder itself cannot be made.
    monkeypatch.setenv("QUIZSMITH_CACHE_DIR", str(blocked / "cache"))
    store = DiskStates("model-a")
    store.put(KEY, b"state")
    assert store.get(KEY) is None


INSTRUCTIONS = (
    "Answer with the shortest phrase from the passage. Examples:\n\n"
    "Passage: The library opened in 1963.\nQuestion: When did the library open?\n"
    "Answer: 1963\n\n"
)
PASSAGE = "Passage: The Nile flows north into the Mediterranean Sea.\n"


@pytest.mark.slow
def test_a_fixed_head_is_restored_from_disk_bit_for_bit(smollm, tmp_path, monkeypatch) -> None:
    messages = [Message("user", f"{INSTRUCTIONS}{PASSAGE}Question: Where does the Nile flow?")]
    loaded = smollm._get()
    monkeypatch.setattr(loaded, "disk", DiskStates(loaded.disk.identity, tmp_path))
    forget_kept_state()
    first = smollm.chat(messages, max_tokens=12, reuse_prefix=Fixed(INSTRUCTIONS))
    assert len(list(tmp_path.glob("*.state"))) == 1, "the fixed head was written"
    # A new quiz (or process): memory is empty, the disk is not.
    forget_kept_state()
    evaluated: list[int] = []
    real_eval = loaded.llm.eval
    # Where each evaluation starts: 0 is the prompt's first token.
    monkeypatch.setattr(
        loaded.llm, "eval", lambda t: evaluated.append(loaded.llm.n_tokens) or real_eval(t)
    )
    again = smollm.chat(messages, max_tokens=12, reuse_prefix=Fixed(INSTRUCTIONS))
    assert evaluated and evaluated[0] >= smollm.count_tokens(INSTRUCTIONS) - 2, (
        "the head was restored, not evaluated"
    )
    assert again.text == first.text
    # A head not marked Fixed is kept in memory only.
    forget_kept_state()
    smollm.chat(messages, max_tokens=12, reuse_prefix=INSTRUCTIONS + PASSAGE)
    assert len(list(tmp_path.glob("*.state"))) == 1
    # A damaged file is evaluated again, with the same answer.
    (path,) = tmp_path.glob("*.state")
    path.write_bytes(path.read_bytes()[:-10])
    forget_kept_state()
    evaluated.clear()
    repaired = smollm.chat(messages, max_tokens=12, reuse_prefix=Fixed(INSTRUCTIONS))
    assert evaluated[0] == 0, "the head was evaluated again"
    assert repaired.text == first.text
