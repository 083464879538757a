#!/usr/bin/env bash
# Regenerate the screenshots of docs/gui.md and README.md on a virtual X server (Xvfb), with
# Qt's real X11 platform (xcb), so that fonts and widgets look as on a Linux desktop.
# Scoring the sample items with the bundled models takes a few minutes on two cores.
#
#   docs/screenshots/make_screenshots.sh
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
python="${PYTHON:-$root/.venv/bin/python}"

if ! command -v xvfb-run >/dev/null 2>&1; then
    # Xvfb, and the X11 libraries Qt's xcb platform loads (libxcb-cursor0 since Qt 6.5).
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update
    $sudo apt-get install -y xvfb xauth libxcb-cursor0 libxkbcommon-x11-0 libxcb-icccm4 \
        libxcb-image0 libxcb-keysyms1 libxcb-randr0 libxcb-render-util0 libxcb-shape0 \
        libxcb-xinerama0 libxcb-xkb1 fonts-dejavu-core
fi

# A screen larger than the tallest picture (the item editor is taken 1180 pixels high).
QT_QPA_PLATFORM=xcb xvfb-run --auto-servernum --server-args="-screen 0 1920x1280x24" \
    "$python" -m quizsmith.gui.screenshot "$here"
