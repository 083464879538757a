"""The desktop app's jobs and metric lists live in `quizsmith.operations.jobs` (Qt-free,
so they run in workers and the CLI can share them); the GUI's modules import them from
here, under the names they always had."""

from __future__ import annotations

from quizsmith.operations import jobs as _jobs
from quizsmith.operations.jobs import *  # noqa: F403 - the same names, listed in its __all__

__all__ = list(_jobs.__all__)
