"""Render the main window with sample data to a PNG (for docs/gui.md):

    QT_QPA_PLATFORM=offscreen python -m quizsmith.gui.screenshot docs/images/main-window.png

The sample items are hand-written for the bundled sample passage; their scores are real,
computed here with the configured models (pass --no-score to skip that).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

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
        ids = bank.add_items(
            [
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
        )
        if score:
            settings = Settings(n_threads=1)
            run_to_end(
                score_and_store_job(bank, ids, ("naco", "kda", "exam"), settings)(CancelToken())
            )
        bank.review(ids[0], "accept")
        bank.create_quiz("Week 3: plants", ids[:3])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("out", type=Path)
    parser.add_argument("--no-score", action="store_true")
    args = parser.parse_args(argv)
    from PySide6.QtWidgets import QApplication

    from quizsmith.bank.store import ItemBank
    from quizsmith.gui.main_window import MainWindow
    from quizsmith.settings import Settings

    app = QApplication.instance() or QApplication(sys.argv[:1])
    with tempfile.TemporaryDirectory() as tmp:
        bank_file = Path(tmp) / "sample.sqlite"
        build_sample_bank(bank_file, score=not args.no_score)
        with ItemBank(bank_file) as bank:
            window = MainWindow(bank, Settings(n_threads=1))
            window.resize(1440, 900)
            window.show()
            app.processEvents()
            window.items_view.selectRow(1)
            for _ in range(5):
                app.processEvents()
            args.out.parent.mkdir(parents=True, exist_ok=True)
            window.grab().save(str(args.out))
            window.close()
    print(f"Wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
