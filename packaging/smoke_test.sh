#!/usr/bin/env bash
# Start the built app offscreen, wait for its main window, and check that it quit cleanly.
# Usage: bash packaging/smoke_test.sh [path/to/dist/quizsmith/quizsmith]
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
APP="${1:-$ROOT/dist/quizsmith/quizsmith}"
if [ ! -x "$APP" ]; then
    echo "No built app at $APP: run bash packaging/build.sh first." >&2
    exit 1
fi
# A throw-away home for settings, logs, cache and the bank, so the user's own stay untouched.
SCRATCH="$(mktemp -d)"
trap 'rm -rf "$SCRATCH"' EXIT
export QUIZSMITH_CONFIG_DIR="$SCRATCH/config" QUIZSMITH_LOG_DIR="$SCRATCH/logs"
export QUIZSMITH_CACHE_DIR="$SCRATCH/cache"
mkdir -p "$QUIZSMITH_CONFIG_DIR"
printf '[models]\nn_threads = 1\n' > "$QUIZSMITH_CONFIG_DIR/settings.toml"

echo "== bundled models (quizsmith --cli models)"
"$APP" --cli models || { echo "FAIL: the CLI inside the bundle did not run" >&2; exit 1; }

echo "== main window (offscreen)"
QT_QPA_PLATFORM=offscreen QUIZSMITH_SMOKE_TEST=1 QUIZSMITH_SMOKE_TIMEOUT_S=120 \
    timeout 300 "$APP" "$SCRATCH/smoke.qbank"
code=$?
if [ "$code" -ne 0 ]; then
    echo "FAIL: the app exited with code $code" >&2
    ls "$QUIZSMITH_LOG_DIR" 2>/dev/null && cat "$QUIZSMITH_LOG_DIR"/crash-*.log 2>/dev/null
    exit 1
fi
echo "OK: the main window was shown and the app quit with code 0."
