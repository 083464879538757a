"""The desktop app (PySide6). The only package that imports Qt; it uses the core, never the
reverse. Entry point: `quizsmith.gui.app:main` (`quizsmith gui`, `quizsmith-gui`)."""

from __future__ import annotations

from quizsmith.gui import qtfix

# Before anything emits a signal: see qtfix for the PySide6 bug this works around.
qtfix.apply()
