#!/usr/bin/env bash
# Native build: libshrew.a, the GoogleTest suite and tools, in build/native.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/env.sh"
[ -n "$SHREW_DEPS_NATIVE" ] || { echo "no native XNNPACK prefix in build/deps.env" >&2; exit 1; }
cmake -G Ninja -S "$ROOT" -B "$ROOT/build/native" -DSHREW_DEPS="$SHREW_DEPS_NATIVE" -DSHREW_ONLY="${SHREW_ONLY:-}" > /dev/null
cmake --build "$ROOT/build/native" -j "$JOBS"
