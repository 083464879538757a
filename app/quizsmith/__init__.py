"""Quizsmith: a quiz-authoring assistant.

This package is headless: everything here works without Qt. The desktop app lives in
`quizsmith.gui` and only ever calls into the core, never the reverse.
"""

from __future__ import annotations

__version__ = "0.1.0"

__all__ = ["__version__"]
