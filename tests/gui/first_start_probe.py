"""Run by test_teacher_round_three.py in a fresh process whose offscreen screen has the size
given (Qt reads the screen once, at its start): the main window as a first start opens it
(no saved layout), with a job running in the status bar; prints, as one JSON line, the
screen's free area and where the window, its status bar, the job's Cancel and the editor's
Explain button lie on the screen.

Usage: python first_start_probe.py WIDTH HEIGHT FOLDER (offscreen Qt; FOLDER: a fresh one)."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path


def rect(r: object) -> list[int]:
    return [r.x(), r.y(), r.width(), r.height()]  # type: ignore[attr-defined]


def on_screen(widget: object) -> list[int]:
    from PySide6.QtCore import QPoint, QRect

    top_left = widget.mapToGlobal(QPoint(0, 0))  # type: ignore[attr-defined]
    return rect(QRect(top_left, widget.size()))  # type: ignore[attr-defined]


def main(width: int, height: int, folder: Path) -> int:
    screen = folder / "screen.json"
    screen.write_text(
        json.dumps(
            {
                "screens": [
                    {
                        "name": "laptop",
                        "x": 0,
                        "y": 0,
                        "width": width,
                        "height": height,
                        "logicalDpi": 96,
                        "logicalBaseDpi": 96,
                        "dpr": 1,
                    }
                ]
            }
        )
    )
    os.environ["QT_QPA_PLATFORM"] = f"offscreen:configfile={screen}"
    os.environ["QUIZSMITH_CONFIG_DIR"] = str(folder / "config")
    os.environ["QUIZSMITH_DATA_DIR"] = str(folder / "data")
    from PySide6.QtCore import QEventLoop, QTimer
    from PySide6.QtWidgets import QApplication

    from quizsmith.bank.store import ItemBank
    from quizsmith.gui import prefs
    from quizsmith.gui.main_window import MainWindow
    from quizsmith.jobs import CancelToken, Progress
    from quizsmith.settings import Settings

    # Kept in a name: the application must outlive the window.
    app = QApplication.instance() or QApplication(sys.argv[:1])
    assert app is not None
    assert not prefs.layout(), "a first start has no saved layout"
    bank = ItemBank(folder / "bank.sqlite")
    window = MainWindow(bank, Settings())
    window.show()

    def endless(token: CancelToken) -> object:
        yield Progress("Generating 5 item(s)", 0, 5)
        while not token.cancelled:
            time.sleep(0.05)

    row = window.progress.attach(window.runner.start(endless), "Generating 5 item(s)")
    loop = QEventLoop()
    QTimer.singleShot(300, loop.quit)  # the window fits itself once shown (a zero timer)
    loop.exec()
    report = {
        "available": rect(window.screen().availableGeometry()),
        "frame": rect(window.frameGeometry()),
        "status_bar": on_screen(window.statusBar()),
        "cancel": on_screen(row.cancel_button),
        "cancel_visible": row.cancel_button.isVisible(),
        "explain": on_screen(window.editor.explain_button),
        "explain_visible": window.editor.explain_button.isVisible(),
    }
    window.runner.cancel_all()
    window.close()
    window.runner.wait(10_000)
    bank.close()
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    sys.exit(main(int(sys.argv[1]), int(sys.argv[2]), Path(sys.argv[3])))
