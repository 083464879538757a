"""The main window's size on the teacher's screen: never larger than the screen's free area.

Why: the window opened at 1400x860 on a 1366x768 laptop, so the status bar (the running job,
its Cancel) and the editor's Explain button were off-screen until the teacher maximized it
(issue 47). A saved size from a larger screen would do the same, so it is fitted as well.
"""

from __future__ import annotations

from PySide6.QtCore import QMargins, QPoint, QRect, QSize
from PySide6.QtWidgets import QWidget

#: The size the window opens at on a screen with room for it.
DEFAULT_SIZE = QSize(1400, 860)
#: Room for the window manager's title bar and borders: Qt knows the real frame only once
#: the window is shown (`fit_to_screen` then uses it).
FRAME_ALLOWANCE = QMargins(8, 36, 8, 8)


def fitted_geometry(
    available: QRect, wanted: QSize = DEFAULT_SIZE, frame: QMargins = FRAME_ALLOWANCE
) -> QRect:
    """The window's inner geometry (without its frame) of at most `wanted`, centred in the
    screen's free area `available` (the screen less its panels), so that the window with its
    frame lies inside `available`."""
    room = available.marginsRemoved(frame)
    size = wanted.boundedTo(room.size())
    rect = QRect(QPoint(0, 0), size)
    rect.moveCenter(room.center())
    # A centre rounds down: keep the whole rectangle inside the room.
    rect.moveLeft(max(room.left(), min(rect.left(), room.right() - rect.width() + 1)))
    rect.moveTop(max(room.top(), min(rect.top(), room.bottom() - rect.height() + 1)))
    return rect


def frame_margins(window: QWidget) -> QMargins:
    """The frame around the window's inner geometry as the window system reports it now
    (zero before the window is shown, or where there is none)."""
    inner, outer = window.geometry(), window.frameGeometry()
    return QMargins(
        inner.left() - outer.left(),
        inner.top() - outer.top(),
        outer.right() - inner.right(),
        outer.bottom() - inner.bottom(),
    )


def fits(window: QWidget) -> bool:
    screen = window.screen()
    return screen is None or screen.availableGeometry().contains(window.frameGeometry())


def fit_to_screen(window: QWidget) -> bool:
    """Shrink and move the window into its screen's free area when its frame does not fit
    (a maximized or full-screen window is the window system's business). True if moved."""
    screen = window.screen()
    if screen is None or window.isMaximized() or window.isFullScreen() or fits(window):
        return False
    margins = frame_margins(window)
    if margins.isNull():
        margins = FRAME_ALLOWANCE
    window.setGeometry(fitted_geometry(screen.availableGeometry(), window.size(), margins))
    return True
