"""Render the screenshots of docs/gui.md from a sample bank:

    python -m quizsmith.gui.screenshot docs/screenshots   # or docs/screenshots/make_screenshots.sh

writes main-window.png (the main window on the sample passage), item-editor-evidence.png
(the item editor with the evidence of NACo and KDA), help-guide.png (Help -> the guide to
the scores and flags) and review-queue.png (the review queue
tab) into the folder. The sample items are hand-written for the bundled sample passage;
their scores are real, computed here with the configured models (one thread; pass
--no-score to skip that). Any Qt platform works; the docs' pictures are taken on X11
(Xvfb), whose fonts and styles are those of a Linux desktop.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from quizsmith.domain import Item, Passage
from quizsmith.jobs import CancelToken

SAMPLE_ITEMS = [
    (
        "Where in the leaf does photosynthesis mainly take place?",
        "In the chloroplasts",
        ["In the stomata", "In the roots", "In the cell wall"],
        "It takes place mainly in the leaves, inside small structures called chloroplasts, "
        "which contain the green pigment chlorophyll.",
    ),
    (
        "Which gas do plants release as a by-product of photosynthesis?",
        "Oxygen",
        ["Carbon dioxide", "Nitrogen", "Hydrogen"],
        "Using the energy of sunlight, they convert these into glucose and release oxygen as a "
        "by-product.",
    ),
    (
        "Where does the Calvin cycle take place?",
        "In the stroma",
        ["In the thylakoid membranes", "In the stomata", "In the roots"],
        "The Calvin cycle, which takes place in the stroma, uses that ATP and NADPH to fix "
        "carbon dioxide into sugar.",
    ),
    (
        "Chlorophyll is what?",
        "A green pigment",
        ["A sugar", "A gas", "A root"],
        "It takes place mainly in the leaves, inside small structures called chloroplasts, "
        "which contain the green pigment chlorophyll.",
    ),
]


def build_sample_bank(path: Path, score: bool) -> None:
    from quizsmith import paths
    from quizsmith.bank.store import ItemBank
    from quizsmith.gui.jobs import score_and_store_job
    from quizsmith.jobs import run_to_end
    from quizsmith.settings import Settings

    text = (paths.resources_dir() / "sample_passage.txt").read_text(encoding="utf-8")
    with ItemBank(path) as bank:
        pid = bank.add_passage(
            Passage(
                text=text,
                title="Photosynthesis",
                subject="Biology",
                source_file="sample_passage.txt",
            )
        )
        items = [
            Item(
                type="mcq",
                stem=stem,
                key=key,
                options=Item.make_options(key, wrong),
                target_fact=fact,
                passage_id=pid,
                subject="Biology",
            )
            for stem, key, wrong, fact in SAMPLE_ITEMS
        ]
        # A better wording kept by generation, for the queue's "Replace with alternative".
        items[-1].alternatives = [
            Item(
                type="mcq",
                stem="What is chlorophyll?",
                key="A green pigment",
                options=Item.make_options("A green pigment", ["A sugar", "A gas", "A root"]),
            )
        ]
        ids = bank.add_items(items)
        if score:
            settings = Settings(n_threads=1)
            run_to_end(
                # Overall last: it reads the others, and its evidence says what moved it.
                score_and_store_job(bank, ids, ("naco", "kda", "exam", "overall"), settings)(
                    CancelToken()
                )
            )
        bank.review(ids[0], "accept")
        bank.create_quiz("Week 3: plants", ids[:3])


SHOTS = ("main-window.png", "item-editor-evidence.png", "review-queue.png", "help-guide.png")


def settle(app: Any, ms: int = 300) -> None:
    """Let layouts, queued signals and repaints run."""
    end = time.monotonic() + ms / 1000
    while time.monotonic() < end:
        app.processEvents()
        time.sleep(0.01)


def wait(app: Any, done: Callable[[], bool], timeout_s: float = 60) -> None:
    end = time.monotonic() + timeout_s
    while not done():
        if time.monotonic() > end:
            raise RuntimeError("the window did not get ready in time")
        app.processEvents()
        time.sleep(0.01)


def take_screenshots(out_dir: Path, score: bool = True) -> list[Path]:
    from PySide6.QtWidgets import QApplication

    from quizsmith.bank.store import ItemBank
    from quizsmith.gui.app import _apply_style
    from quizsmith.gui.main_window import MainWindow
    from quizsmith.settings import Settings

    app = QApplication.instance() or QApplication(sys.argv[:1])
    _apply_style(app)
    out_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        # The picture must not depend on (or change) the user's own layout and last bank.
        os.environ["QUIZSMITH_CONFIG_DIR"] = str(Path(tmp) / "config")
        bank_file = Path(tmp) / "sample.sqlite"
        build_sample_bank(bank_file, score=score)
        with ItemBank(bank_file) as bank:
            window = MainWindow(bank, Settings(n_threads=1))
            window.editor.live_metrics = []  # nothing re-scores while the pictures are taken
            try:
                written = _shoot(app, window, out_dir)
            finally:
                window.close()
                window.runner.wait(60_000)
                # A closed window is only hidden; left alive it would outlive its bank.
                window.deleteLater()
                app.processEvents()
    return written


def _shoot(app: Any, window: Any, out_dir: Path) -> list[Path]:
    written = []
    window.resize(1440, 900)
    window.show()
    settle(app)

    # 1. The main window: the passage, its items with their chips, one in the editor.
    _open(window, SAMPLE_ITEMS[2][0])
    settle(app)
    written.append(_save(window.grab(), out_dir / SHOTS[0]))

    # 2. The item editor on an item with NACo's reasoning and KDA's solver table, tall
    # enough to show both.
    window.resize(1440, 1180)
    _open(window, SAMPLE_ITEMS[0][0])
    settle(app)
    editor = window.editor
    editor.tabs.setCurrentWidget(editor.evidence)
    _scroll_to(editor.evidence, "NACo ")
    settle(app)
    written.append(_save(editor.grab(), out_dir / SHOTS[1]))

    # 3. The review queue, worst first, with the reasons of the selected item (the query
    # runs in a worker when the tab opens).
    window.resize(1440, 900)
    refreshed: list[bool] = []
    window.review.refreshed.connect(lambda: refreshed.append(True))
    window.tabs.setCurrentWidget(window.review)
    wait(app, lambda: bool(refreshed))
    if window.review.model.rowCount():
        window.review.view.selectRow(0)
    window.review.view.setFocus()
    settle(app)
    written.append(_save(window.grab(), out_dir / SHOTS[2]))

    # 4. Help -> Scores and flags explained (F1): the guide at its scores section.
    dialog = window.open_help("scores")
    dialog.resize(760, 820)
    settle(app)
    dialog.show_section("scores")
    settle(app)
    written.append(_save(dialog.grab(), out_dir / SHOTS[3]))
    dialog.close()
    return written


def _open(window: Any, stem: str) -> None:
    """Select the sample item with this question in the passage's table (and the editor)."""
    model = window.passage_items
    for row in range(model.rowCount()):
        item = model.item_at(row)
        if item.stem == stem and item.id is not None:
            window.open_item_id(item.id)
            return
    raise LookupError(f"no sample item asks {stem!r}")


def _scroll_to(browser: Any, heading: str) -> None:
    """Scroll a QTextBrowser so that the first line holding `heading` is at the top."""
    from PySide6.QtGui import QTextDocument

    found = browser.document().find(heading, 0, QTextDocument.FindFlag.FindCaseSensitively)
    if found.isNull():
        return
    found.clearSelection()  # placed there, not highlighted
    browser.setTextCursor(found)
    rect = browser.cursorRect(found)
    bar = browser.verticalScrollBar()
    bar.setValue(bar.value() + rect.top() - 8)


def _save(pixmap: Any, path: Path) -> Path:
    if not pixmap.save(str(path)):
        raise OSError(f"could not write {path}")
    print(f"Wrote {path}")
    return path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out_dir", type=Path, help="folder for the PNG files")
    parser.add_argument("--no-score", action="store_true", help="skip the model scores")
    args = parser.parse_args(argv)
    take_screenshots(args.out_dir, score=not args.no_score)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
