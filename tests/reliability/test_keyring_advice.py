"""Keyring problems a teacher can run into (issue 18): the advice the app gives must work
when followed, the null backend must not claim a key was stored, and a misspelt or unusable
PYTHON_KEYRING_BACKEND is a message with a fix, not a crash. Each case runs the real CLI in
a subprocess, since keyring reads PYTHON_KEYRING_BACKEND once per process."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

APP = str(Path(__file__).resolve().parents[2] / "app")
KEY = "sk-test-KEYRING-5678"


def _cli(tmp_path: Path, backend: str | None, *args: str, stdin: str = "") -> tuple[int, str]:
    env = {**os.environ, "PYTHONPATH": APP, "XDG_DATA_HOME": str(tmp_path / "data")}
    env.pop("PYTHON_KEYRING_BACKEND", None)
    if backend is not None:
        env["PYTHON_KEYRING_BACKEND"] = backend
    done = subprocess.run(
        [sys.executable, "-m", "quizsmith.cli", *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    return done.returncode, done.stdout + done.stderr


@pytest.mark.parametrize(
    "backend",
    [
        "keyring.backends.null.Keyring",
        "keyrings.alt.file.EncryptdKeyring",  # misspelt
        "no_such_module.Keyring",
        "keyrings.alt.file.EncryptedKeyring",  # needs pycryptodome, not installed here
    ],
)
def test_an_unusable_backend_is_refused_with_advice_that_works(
    tmp_path: Path, backend: str
) -> None:
    try:
        import Cryptodome  # noqa: F401

        if backend.endswith("EncryptedKeyring"):
            pytest.skip("pycryptodome is installed: EncryptedKeyring works here")
    except ImportError:
        pass
    code, out = _cli(tmp_path, backend, "key", "set", "school", "--stdin", stdin=KEY + "\n")
    assert code == 2, out
    assert "Traceback" not in out and "Unexpected error" not in out
    assert "Stored the key" not in out
    assert "fix:" in out and "QUIZSMITH_API_KEY_SCHOOL" in out
    # The advice names a backend; following it stores the key for real.
    named = re.search(r"PYTHON_KEYRING_BACKEND=(keyrings\.alt\.file\.\w+)", out)
    assert named, out
    assert named.group(1) != "keyrings.alt.file.EncryptedKeyring" or _has_crypto()
    code, out = _cli(tmp_path, named.group(1), "key", "set", "school", "--stdin", stdin=KEY)
    assert code == 0, out
    code, out = _cli(tmp_path, named.group(1), "key", "status", "school")
    assert code == 0 and "stored in keyring" in out, out


def _has_crypto() -> bool:
    import importlib.util

    return bool(importlib.util.find_spec("Cryptodome") or importlib.util.find_spec("Crypto"))


def test_status_with_a_misspelt_backend_says_so(tmp_path: Path) -> None:
    code, out = _cli(tmp_path, "keyrings.alt.file.Plaintext", "key", "status", "school")
    assert code == 0 and "Traceback" not in out
    assert "cannot be loaded" in out and "not usable" in out
