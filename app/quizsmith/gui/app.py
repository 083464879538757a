"""`quizsmith gui` / `quizsmith-gui`: start the desktop app on an item bank."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

#: Libraries the app's process never imports: the models run in the model host.
from quizsmith.providers.host_protocol import MODEL_LIBRARIES

NO_DISPLAY_EXIT = 3
#: Set to 1 to print READY_PREFIX, time.monotonic() and the model libraries already
#: imported, when the event loop first runs after the window is shown (bench/gui.py).
REPORT_READY_ENV = "QUIZSMITH_REPORT_READY"
READY_PREFIX = "quizsmith-ready"


def display_problem(environ: dict[str, str] | None = None, platform: str | None = None) -> str:
    """Why no window can be shown here ("" when one can). Only Linux/BSD need a display
    server; QT_QPA_PLATFORM (e.g. offscreen) is the caller's explicit choice."""
    env = os.environ if environ is None else environ
    plat = sys.platform if platform is None else platform
    if plat.startswith(("win", "darwin", "cygwin")):
        return ""
    if env.get("QT_QPA_PLATFORM") or env.get("DISPLAY") or env.get("WAYLAND_DISPLAY"):
        return ""
    return (
        "No display is available (neither DISPLAY nor WAYLAND_DISPLAY is set), so the "
        "desktop app cannot open a window. Run `quizsmith demo` for the headless demo, or "
        "start the app from a desktop session."
    )


#: Exit status when a system library Qt's X11 plugin needs is missing (see `make run`).
MISSING_LIBRARY_EXIT = 4
#: Libraries Qt's xcb platform plugin loads (soname -> Debian/Ubuntu package). Qt aborts
#: (status 134) without them, after a message only developers understand.
XCB_LIBRARIES = {
    "libxcb-cursor.so.0": "libxcb-cursor0",
    "libxkbcommon-x11.so.0": "libxkbcommon-x11-0",
    "libxcb-icccm.so.4": "libxcb-icccm4",
    "libxcb-keysyms.so.1": "libxcb-keysyms1",
}


def _loadable(soname: str) -> bool:
    """Whether the dynamic loader finds the library (its real search path, as Qt's)."""
    import ctypes

    try:
        ctypes.CDLL(soname)
    except OSError:
        return False
    return True


def missing_system_libraries(
    environ: dict[str, str] | None = None,
    platform: str | None = None,
    loadable: Callable[[str], bool] | None = None,
) -> list[str]:
    """Debian/Ubuntu packages Qt's X11 plugin needs that are not installed ([] when Qt will
    not use that plugin: other systems, Wayland, or an explicit QT_QPA_PLATFORM)."""
    env = os.environ if environ is None else environ
    plat = sys.platform if platform is None else platform
    if not plat.startswith("linux"):
        return []
    chosen = env.get("QT_QPA_PLATFORM", "")
    if (chosen and not chosen.startswith("xcb")) or (not chosen and env.get("WAYLAND_DISPLAY")):
        return []
    check = loadable or _loadable
    return [package for lib, package in XCB_LIBRARIES.items() if not check(lib)]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="quizsmith gui", description="The Quizsmith desktop app")
    parser.add_argument("bank", nargs="?", help="the item bank file (default: your last bank)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(list(sys.argv[1:] if argv is None else argv))
    return run(Path(args.bank) if args.bank else None)


def run(bank_file: Path | None = None) -> int:
    problem = display_problem()
    if problem:
        print(problem, file=sys.stderr)
        return NO_DISPLAY_EXIT
    missing = missing_system_libraries()
    if missing:
        print(
            "The desktop app cannot start: Qt needs system libraries that are not "
            f"installed. On Debian/Ubuntu: sudo apt-get install {' '.join(missing)} "
            "(see the README for the full list). `quizsmith demo` runs without them.",
            file=sys.stderr,
        )
        return MISSING_LIBRARY_EXIT
    from PySide6.QtWidgets import QApplication

    from quizsmith import settings as settings_mod
    from quizsmith.bank.store import ItemBank
    from quizsmith.errors import QuizsmithError
    from quizsmith.gui import prefs
    from quizsmith.gui.main_window import MainWindow
    from quizsmith.gui.messages import install_exception_hook, message_text
    from quizsmith.metrics.base import check_metric_settings

    existing = QApplication.instance()
    app = existing if isinstance(existing, QApplication) else QApplication(sys.argv[:1])
    app.setApplicationName("Quizsmith")
    app.setOrganizationName("Quizsmith")
    _apply_style(app)
    install_exception_hook()
    try:
        from quizsmith.logs import setup_logging

        setup_logging()
        settings = settings_mod.load()
        check_metric_settings(settings)
        from quizsmith.providers.machine_profile import first_start

        picked = first_start(settings)  # the model profile, on the very first start
        path = (bank_file or prefs.bank_path()).expanduser()
        bank = ItemBank(path)
    except QuizsmithError as exc:
        from PySide6.QtWidgets import QMessageBox

        print(f"error: {exc}", file=sys.stderr)
        QMessageBox.critical(None, "Quizsmith", message_text(exc.message, exc.fix))
        return 2
    prefs.set_bank_path(bank.path)
    window = MainWindow(bank, settings)
    window.show()
    if prefs.first_run():
        prefs.set_guide_seen()
        window.open_help("start")
    if picked:
        from quizsmith.gui.profile_note import profile_note

        # In a teacher's words, once the guide is closed: behind it, it went unseen.
        window.announce_after_guide(profile_note(settings))
    if os.environ.get(REPORT_READY_ENV) == "1":
        from PySide6.QtCore import QTimer

        # A zero timer runs on the event loop's first turn: the window is up and responsive.
        QTimer.singleShot(0, report_ready)
    try:
        return int(app.exec())
    finally:
        shut_down(window, bank)


#: How long the app, closing, lets the model host end by itself before it is killed: a
#: stopped call in the host finishes its prompt batch first (a few seconds), and closing
#: waited for it (issue 47: the process lived 7.8 s after its window; the target is 1 s).
HOST_CLOSE_S = 0.5


def shut_down(window: Any, bank: Any, wait_ms: int = 60_000) -> None:
    """After the event loop: wait for the jobs closing cancelled (a job waiting on a model
    call returns at once; the bank must outlive what they store), end the model host without
    waiting on a stopped call (nothing it computes now would be kept), close the bank."""
    window.runner.wait(wait_ms)
    if "quizsmith.providers.host_client" in sys.modules:
        from quizsmith.providers.host_client import shared_host

        shared_host().close(wait_s=HOST_CLOSE_S)
    bank.close()


def ready_line() -> str:
    import time

    loaded = [name for name in MODEL_LIBRARIES if name in sys.modules]
    return f"{READY_PREFIX} {time.monotonic():.6f} models={','.join(loaded) or 'none'}"


def report_ready() -> None:
    print(ready_line(), flush=True)


def _apply_style(app: object) -> None:
    from PySide6.QtGui import QIcon
    from PySide6.QtWidgets import QApplication

    from quizsmith import paths

    if not isinstance(app, QApplication):
        return
    icon = paths.resources_dir() / "icons" / "quizsmith.svg"
    if icon.is_file():
        app.setWindowIcon(QIcon(str(icon)))
    qss = paths.resources_dir() / "style.qss"
    if qss.is_file():
        app.setStyleSheet(qss.read_text(encoding="utf-8"))


if __name__ == "__main__":
    raise SystemExit(main())
