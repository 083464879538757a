"""A real file-backed keyring (keyrings.alt) kept in a test's temp folder, so tests store and
read API keys through the keyring API without touching the developer's own keyring."""

from __future__ import annotations

from pathlib import Path

from keyrings.alt.file import PlaintextKeyring


class TmpKeyring(PlaintextKeyring):  # type: ignore[misc]
    def __init__(self, folder: Path) -> None:
        super().__init__()
        self._folder = folder

    @property
    def file_path(self) -> str:  # type: ignore[override]
        return str(self._folder / "keyring_pass.cfg")
