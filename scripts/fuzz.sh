#!/usr/bin/env bash
# Builds the libFuzzer target fuzz/compile_fuzzer.cc (Compile() on arbitrary
# bytes) with clang++ -fsanitize=fuzzer,address,undefined against the sources
# in src/ (minus src/wasm) and the native XNNPACK prefix from build/deps.env,
# then fuzzes for ${FUZZ_SECONDS:-60} seconds.
#
#   scripts/fuzz.sh                  # build (incrementally) and run 60 s
#   FUZZ_SECONDS=600 scripts/fuzz.sh # longer run
#   FUZZ_JOBS=2 scripts/fuzz.sh      # parallel object builds (default 2)
#   FUZZ_FLAGS="-only_ascii=1" scripts/fuzz.sh   # extra libFuzzer flags
#
# Corpus: build/fuzz/corpus, seeded from tests/testdata/examples (plus the
# lowering goldens and past regressions). Crashes land in build/fuzz/artifacts/;
# minimise one with `build/fuzz/compile_fuzzer -minimize_crash=1 FILE`, fix
# the bug and copy the input to tests/testdata/fuzz_regressions/.
set -euo pipefail
cd "$(dirname "$0")/.."

if [[ ! -f build/deps.env ]]; then
  echo "build/deps.env is missing: run scripts/bootstrap.sh first" >&2
  exit 1
fi
# shellcheck disable=SC1091
. build/deps.env
DEPS="${SHREW_DEPS_NATIVE:?build/deps.env does not set SHREW_DEPS_NATIVE}"
CXX="${CXX_FUZZ:-clang++}"
OUT=build/fuzz
OBJ="$OUT/obj"
SECONDS_TO_RUN="${FUZZ_SECONDS:-60}"
JOBS="${FUZZ_JOBS:-2}"
mkdir -p "$OBJ" "$OUT/corpus" "$OUT/artifacts"

FLAGS=(-std=c++20 -O1 -g -fno-omit-frame-pointer -fno-exceptions
       -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined
       -Isrc -isystem "$DEPS/include")

# Incremental: a source is recompiled when it or any header under src/ is newer
# than its object (coarse but simple and correct).
newest_header=$(find src -name '*.h' -o -name '*.def' | xargs ls -t | head -1)
mapfile -t SOURCES < <(find src -name '*.cc' -not -path 'src/wasm/*' | sort)
OBJECTS=()
failed=0
running=0
for src in "${SOURCES[@]}"; do
  obj="$OBJ/$(echo "${src%.cc}" | tr '/' '_').o"
  OBJECTS+=("$obj")
  if [[ ! -f "$obj" || "$src" -nt "$obj" || "$newest_header" -nt "$obj" ]]; then
    echo "  CXX $src"
    "$CXX" "${FLAGS[@]}" -c "$src" -o "$obj" &
    running=$((running + 1))
    if (( running >= JOBS )); then
      wait -n || failed=1
      running=$((running - 1))
    fi
  fi
done
while (( running > 0 )); do
  wait -n || failed=1
  running=$((running - 1))
done
if (( failed )); then
  echo "compilation failed" >&2
  exit 1
fi
rm -f "$OUT/libshrew_fuzz.a"
ar rcs "$OUT/libshrew_fuzz.a" "${OBJECTS[@]}"

echo "  LINK $OUT/compile_fuzzer"
"$CXX" "${FLAGS[@]/fuzzer-no-link/fuzzer}" fuzz/compile_fuzzer.cc "$OUT/libshrew_fuzz.a" \
  "$DEPS/lib/libXNNPACK.a" "$DEPS/lib/libmicrokernels-prod.a" "$DEPS/lib/libpthreadpool.a" \
  -lcpuinfo -lpthread -lm -o "$OUT/compile_fuzzer"

for f in tests/testdata/examples/*.sw tests/testdata/lower/*.sw tests/testdata/fuzz_regressions/*; do
  seed="$OUT/corpus/seed_$(basename "$f")"
  if [[ -f "$f" && ! -e "$seed" ]]; then cp "$f" "$seed"; fi
done

echo "fuzzing for ${SECONDS_TO_RUN}s (corpus $OUT/corpus, crashes in $OUT/artifacts/)"
exec "$OUT/compile_fuzzer" -dict=fuzz/sw.dict -max_total_time="$SECONDS_TO_RUN" \
  -max_len=8192 -timeout=10 -rss_limit_mb=4096 -print_final_stats=1 \
  -artifact_prefix="$OUT/artifacts/" ${FUZZ_FLAGS:-} "$OUT/corpus"
