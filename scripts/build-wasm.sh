#!/usr/bin/env bash
# WebAssembly build (Emscripten, SIMD128, Embind) in build/wasm, and the
# benchmark's XNNPACK-alone probe (xnn_fc_probe.cjs); the module
# (shrew.mjs + shrew.wasm) is copied into js/dist/wasm for the npm package.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/env.sh"
[ -n "$SHREW_DEPS_WASM" ] || { echo "no wasm XNNPACK prefix in build/deps.env" >&2; exit 1; }
cmake -G Ninja -S "$ROOT" -B "$ROOT/build/wasm" -DCMAKE_TOOLCHAIN_FILE="$ROOT/wasm-toolchain.cmake" \
  -DSHREW_DEPS="$SHREW_DEPS_WASM" -DSHREW_ONLY="${SHREW_ONLY:-}" > /dev/null
cmake --build "$ROOT/build/wasm" -j "$JOBS" --target shrew_wasm xnn_fc_probe
mkdir -p "$ROOT/js/dist/wasm"
cp "$ROOT/build/wasm/shrew.mjs" "$ROOT/build/wasm/shrew.wasm" "$ROOT/js/dist/wasm/"
