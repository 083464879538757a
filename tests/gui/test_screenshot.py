"""The screenshot tool writes its four pictures (without model scores: those take minutes;
docs/screenshots/make_screenshots.sh takes the real ones)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from quizsmith.gui import screenshot


def test_screenshots_are_written(qtbot: Any, tmp_path: Path) -> None:
    from PySide6.QtGui import QImage

    written = screenshot.take_screenshots(tmp_path / "shots", score=False)
    assert [p.name for p in written] == list(screenshot.SHOTS)
    sizes = {p.name: QImage(str(p)).size() for p in written}
    assert sizes["main-window.png"].width() == 1440
    assert sizes["review-queue.png"].height() == 900
    # The editor alone, taken tall enough for NACo's reasoning and KDA's table.
    editor = sizes["item-editor-evidence.png"]
    assert editor.width() < 1440 and editor.height() > 900
    assert sizes["help-guide.png"].width() == 760
