#!/usr/bin/env bash
# Sanitizer build in build/sanitize: clang, ASan + UBSan, -O1 -g. libshrew is
# compiled once (with libFuzzer coverage hooks) and linked into both the
# GoogleTest suite (shrew_tests) and the fuzz targets (fuzz/*_fuzzer.cc).
# scripts/test-sanitize.sh runs the suite, scripts/fuzz.sh the fuzzers.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/env.sh"
[ -n "$SHREW_DEPS_NATIVE" ] || { echo "no native XNNPACK prefix in build/deps.env" >&2; exit 1; }
CC=${CC_SANITIZE:-clang} CXX=${CXX_SANITIZE:-clang++} \
  cmake -G Ninja -S "$ROOT" -B "$ROOT/build/sanitize" -DSHREW_DEPS="$SHREW_DEPS_NATIVE" \
  -DSHREW_FUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g" \
  -DSHREW_ONLY="${SHREW_ONLY:-}" > /dev/null
cmake --build "$ROOT/build/sanitize" -j "$JOBS" ${SHREW_SANITIZE_TARGETS:+--target $SHREW_SANITIZE_TARGETS}
