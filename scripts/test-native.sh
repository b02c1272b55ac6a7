#!/usr/bin/env bash
# Runs the GoogleTest suite through CTest.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/env.sh"
ctest --test-dir "$ROOT/build/native" --output-on-failure -j "$JOBS" --timeout 300
