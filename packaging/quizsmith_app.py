"""Entry point of the frozen (PyInstaller) Quizsmith app.

Before the app starts it points Quizsmith at the bundle: resources/ and models/ live in the
bundle folder instead of a source checkout, and the Gemma and Qwen models (assembled from
chunk packages at install time in a source install) ship ready-made and are linked into the
user's cache on first start.

`quizsmith-app --cli ARGS...` runs the command line instead (`--cli models` lists the bundled
models: a quick check of a build). `quizsmith-app --native-check MODEL.gguf` is the child
process of the llama.cpp check (providers/native_check.py): one short completion.
`quizsmith-app --onnx-export FOLDER TARGET` is the child that exports the embedding model
(providers/onnx_encoder.py). `quizsmith-app --model-host` is the model host
(providers/host_server.py), the child process that runs the local models for the app. With
QUIZSMITH_SMOKE_TEST=1 the app quits with exit code 0 as soon as its main window is shown
(exit 4 if none is shown within QUIZSMITH_SMOKE_TIMEOUT_S seconds, default 120):
packaging/smoke_test.sh uses this.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path


def _use_bundle() -> None:
    if not getattr(sys, "frozen", False):
        return
    bundle = Path(getattr(sys, "_MEIPASS", Path(sys.executable).parent))
    from quizsmith import paths

    paths.PROJECT_ROOT = bundle  # resources_dir() and models_dir() read it at call time
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    ready = bundle / "bundled_models"
    if not ready.is_dir():
        return
    cache = paths.cache_dir() / "models"
    for source in ready.glob("*.gguf"):
        target = cache / source.name
        if target.exists():
            continue
        cache.mkdir(parents=True, exist_ok=True)
        partial = target.with_suffix(".partial")
        try:
            os.symlink(source, partial)  # no copy where the OS allows links
        except OSError:
            shutil.copyfile(source, partial)
        partial.replace(target)


def _quit_when_shown() -> None:
    """Create the QApplication first (the app reuses it) and poll for a visible main window."""
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication, QMainWindow

    app = QApplication.instance() or QApplication(sys.argv[:1])
    limit_s = float(os.environ.get("QUIZSMITH_SMOKE_TIMEOUT_S", "120"))
    waited = {"ms": 0}
    timer = QTimer(app)

    def check() -> None:
        waited["ms"] += 200
        shown = [w for w in QApplication.topLevelWidgets() if isinstance(w, QMainWindow)]
        if any(w.isVisible() for w in shown):
            print(f"smoke test: main window shown ({shown[0].windowTitle()!r})", flush=True)
            timer.stop()
            app.exit(0)
        elif waited["ms"] >= limit_s * 1000:
            print("smoke test: no main window was shown", file=sys.stderr, flush=True)
            timer.stop()
            app.exit(4)

    timer.timeout.connect(check)
    timer.start(200)
    app._quizsmith_smoke_timer = timer  # type: ignore[attr-defined]  # keep it alive


def main() -> int:
    _use_bundle()
    args = sys.argv[1:]
    if args[:1] == ["--native-check"] and len(args) == 2:
        # The child of providers/native_check.py: sys.executable is this app when frozen.
        from quizsmith.providers.native_check import child_main

        return child_main(args[1])
    if args[:1] == ["--onnx-export"] and len(args) == 3:
        # The child of providers/onnx_encoder.py: the embedding model exported and checked.
        from quizsmith.providers.onnx_encoder import main as export_main

        return export_main(args[1:])
    if args[:1] == ["--model-host"]:
        # The model host (providers/host_server.py): the child that runs the local models.
        from quizsmith.providers.host_server import main as host_main

        return host_main()
    if args[:1] == ["--cli"]:
        from quizsmith.cli import main as cli_main

        return cli_main(args[1:])
    if os.environ.get("QUIZSMITH_SMOKE_TEST"):
        _quit_when_shown()
    try:
        from quizsmith.gui.app import main as gui_main
    except ImportError:  # a build from before the desktop app's entry point existed
        from quizsmith.cli import main as cli_main

        return cli_main(["gui", *args])
    return gui_main(args)


if __name__ == "__main__":
    sys.exit(main())
