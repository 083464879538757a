"""How the app tells the teacher something went wrong: a message with the fix, never a
traceback. Unexpected exceptions go to a crash log whose path the message names."""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable
from types import TracebackType

from PySide6.QtWidgets import QApplication, QMessageBox, QWidget

from quizsmith.errors import QuizsmithError

log = logging.getLogger(__name__)

#: Open message boxes, kept so Python does not collect them while they are shown (and so
#: tests can read the last one).
shown: list[QMessageBox] = []


def message_text(message: str, fix: str = "") -> str:
    return f"{message}\n\nWhat to do: {fix}" if fix else message


def show_error(parent: QWidget | None, message: str, fix: str = "", title: str = "") -> QMessageBox:
    """A non-blocking (window-modal) error box; returns it so callers and tests can see it."""
    return _show(parent, message_text(message, fix), title, QMessageBox.Icon.Warning)


def show_info(parent: QWidget | None, message: str, title: str = "") -> QMessageBox:
    """A non-blocking report that something finished (same handling as show_error)."""
    return _show(parent, message, title, QMessageBox.Icon.Information)


def ask_to_confirm(
    parent: QWidget | None,
    text: str,
    action: str,
    on_yes: Callable[[], object],
    title: str = "",
) -> QMessageBox:
    """A non-blocking question with `action` (e.g. "Delete") and Cancel, Cancel the default;
    `on_yes` runs when the teacher picks the action. Returned (and kept in `shown`) so that
    tests can answer it."""
    box = QMessageBox(parent)
    box.setIcon(QMessageBox.Icon.Warning)
    box.setWindowTitle(title or "Quizsmith")
    box.setText(text)
    yes = box.addButton(action, QMessageBox.ButtonRole.DestructiveRole)
    box.addButton(QMessageBox.StandardButton.Cancel)
    box.setDefaultButton(QMessageBox.StandardButton.Cancel)

    def answered(_result: int) -> None:
        _forget(box)
        if box.clickedButton() is yes:
            on_yes()

    box.finished.connect(answered)
    shown.append(box)
    del shown[:-10]
    box.open()
    return box


def _show(parent: QWidget | None, text: str, title: str, icon: QMessageBox.Icon) -> QMessageBox:
    box = QMessageBox(parent)
    box.setIcon(icon)
    box.setWindowTitle(title or "Quizsmith")
    box.setText(text)
    box.setStandardButtons(QMessageBox.StandardButton.Ok)
    box.finished.connect(lambda _result: _forget(box))
    shown.append(box)
    del shown[:-10]
    box.open()
    return box


def show_exception(parent: QWidget | None, exc: BaseException) -> QMessageBox:
    if isinstance(exc, QuizsmithError):
        return show_error(parent, exc.message, exc.fix)
    from quizsmith.crash import write_crash_log

    try:
        where = f"Details were saved to {write_crash_log(exc)}."
    except Exception:
        log.exception("could not write a crash log")
        where = "No crash log could be written."
    return show_error(
        parent,
        f"Something went wrong ({type(exc).__name__}).",
        f"{where} Please report it. Your saved work is in the bank.",
        "Unexpected error",
    )


def _forget(box: QMessageBox) -> None:
    if box in shown:
        shown.remove(box)


def exception_hook(kind: type[BaseException], exc: BaseException, tb: TracebackType | None) -> None:
    """sys.excepthook for the GUI: an exception escaping a slot must not print a traceback
    to a console the teacher never sees, nor vanish silently."""
    if issubclass(kind, KeyboardInterrupt):
        sys.__excepthook__(kind, exc, tb)
        return
    if exc.__traceback__ is None:
        exc = exc.with_traceback(tb)
    app = QApplication.instance()
    parent = app.activeWindow() if isinstance(app, QApplication) else None
    show_exception(parent, exc)


def install_exception_hook() -> None:
    sys.excepthook = exception_hook
