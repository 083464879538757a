"""Run by test_model_host_gui.py in a fresh process: the desktop app (offscreen) generates
an item about the sample passage and scores it with Score all's metrics, as a teacher would
through the window's own jobs; then prints, as one JSON line, which model libraries this
process imported (none should be), which the model host did, and this process's memory.

Usage: python window_process_probe.py BANK_FILE (QUIZSMITH_MODEL_HOST=1, offscreen Qt)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


def main(bank_file: str) -> int:
    from PySide6.QtCore import QEventLoop, QTimer
    from PySide6.QtWidgets import QApplication

    from quizsmith import paths
    from quizsmith.bank.store import ItemBank
    from quizsmith.domain import Passage
    from quizsmith.generation import GenerationRequest
    from quizsmith.gui import jobs
    from quizsmith.gui.app import MODEL_LIBRARIES
    from quizsmith.gui.main_window import MainWindow
    from quizsmith.providers import host_client
    from quizsmith.providers.host_server import process_memory
    from quizsmith.settings import load

    app = QApplication.instance() or QApplication(sys.argv[:1])
    settings = load()
    bank = ItemBank(Path(bank_file))
    window = MainWindow(bank, settings)
    window.show()
    text = (paths.resources_dir() / "sample_passage.txt").read_text(encoding="utf-8")
    passage = Passage(text=text, title="Photosynthesis")
    passage.id = bank.add_passage(passage)

    def run(factory: jobs.JobFactory) -> object:
        worker = window.runner.start(factory)
        loop = QEventLoop()
        outcome: dict[str, object] = {}
        worker.signals.finished.connect(lambda value: outcome.setdefault("value", value))
        worker.signals.failed.connect(lambda m, f: outcome.setdefault("error", f"{m} {f}"))
        worker.signals.done.connect(loop.quit)
        QTimer.singleShot(900_000, loop.quit)
        loop.exec()
        if "error" in outcome:
            raise SystemExit(f"job failed: {outcome['error']}")
        return outcome.get("value")

    request = GenerationRequest(n=1, types=("mcq",), candidates_per_target=1)
    run(jobs.generate_job(bank, passage, request, settings))
    items = bank.items_of_passage(passage.id)
    metrics = ["overall", "kda", "exam"]
    scored = run(jobs.score_and_store_job(bank, [items[0].id], metrics, settings)) if items else []
    report = {
        "generated": len(items),
        "scored": sorted(next(iter(scored)).scores) if scored else [],  # type: ignore[call-overload]
        "model_libraries": sorted(m for m in MODEL_LIBRARIES if m in sys.modules),
        "host_libraries": host_client.shared_host().admin("loaded_libraries"),
        "rss_mib": round(process_memory().get("rss_mib", 0.0), 1),
    }
    window.close()
    app.processEvents()
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
