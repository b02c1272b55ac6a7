#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/*_fuzzer.cc, ASan + UBSan, in the
# sanitizer build dir build/sanitize, see scripts/build-sanitize.sh), replays
# every past crash in tests/testdata/fuzz_regressions/ through each, then
# fuzzes each target for ${FUZZ_SECONDS:-60} seconds, one after the other.
#
#   scripts/fuzz.sh                               # every target, 60 s each
#   FUZZ_SECONDS=600 scripts/fuzz.sh              # longer
#   FUZZ_TARGETS="run_fuzzer" scripts/fuzz.sh     # some targets only
#   FUZZ_FLAGS="-only_ascii=1" scripts/fuzz.sh    # extra libFuzzer flags
#   FUZZ_NO_BUILD=1 scripts/fuzz.sh               # the binaries are already built
#
# Corpus per target: build/fuzz/corpus/TARGET, seeded from the examples, the
# lowering goldens, the hostile catalog and past regressions. Crashes land in
# build/fuzz/artifacts/TARGET/; minimise one with
# `build/sanitize/TARGET -minimize_crash=1 -runs=10000 FILE`, fix the bug and
# copy the input to tests/testdata/fuzz_regressions/ (the gtest replays it).
# Statistics of each run: build/fuzz/TARGET.log (scripts/fuzz-campaign.sh
# runs long campaigns and summarises them).
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/env.sh"
cd "$ROOT"
SECONDS_TO_RUN="${FUZZ_SECONDS:-60}"
BIN=build/sanitize
OUT=build/fuzz

if [[ -z "${FUZZ_NO_BUILD:-}" ]]; then
  targets=""
  for src in fuzz/*_fuzzer.cc; do targets+="$(basename "${src%.cc}") "; done
  SHREW_SANITIZE_TARGETS="$targets" bash scripts/build-sanitize.sh
fi
TARGETS="${FUZZ_TARGETS:-$(for src in fuzz/*_fuzzer.cc; do basename "${src%.cc}"; done)}"

# ASan's allocator returns null (instead of aborting) for huge requests, as
# the real allocator would: the code under test must handle it. libFuzzer's
# -rss_limit_mb and -malloc_limit_mb still flag runaway memory as a bug.
export ASAN_OPTIONS="allocator_may_return_null=1:detect_leaks=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"

status=0
for target in $TARGETS; do
  corpus="$OUT/corpus/$target"
  artifacts="$OUT/artifacts/$target"
  mkdir -p "$corpus" "$artifacts"
  # Targets reading other formats than .sw (param blobs, .npy) have their own
  # seeds in fuzz/seeds/TARGET and no .sw dictionary.
  dict="-dict=fuzz/sw.dict"
  if [[ -d "fuzz/seeds/$target" ]]; then
    seeds=(fuzz/seeds/"$target"/*)
    dict=""
  else
    seeds=(tests/testdata/examples/*.sw tests/testdata/lower/*.sw tests/testdata/hostile/*.sw
           tests/testdata/fuzz_regressions/*)
  fi
  for f in "${seeds[@]}"; do
    seed="$corpus/seed_$(basename "$f")"
    if [[ -f "$f" && ! -e "$seed" ]]; then cp "$f" "$seed"; fi
  done
  max_len=8192
  [[ "$target" == run_fuzzer ]] && max_len=4096  # each input also runs: keep them quick
  echo "== $target: replaying tests/testdata/fuzz_regressions/"
  "$BIN/$target" -rss_limit_mb=4096 tests/testdata/fuzz_regressions/* > "$OUT/$target.replay.log" 2>&1 ||
    { cat "$OUT/$target.replay.log"; exit 1; }
  echo "== $target: fuzzing for ${SECONDS_TO_RUN}s (corpus $corpus, crashes in $artifacts/)"
  if ! "$BIN/$target" $dict -max_total_time="$SECONDS_TO_RUN" \
      -max_len="$max_len" -timeout=10 -rss_limit_mb=4096 -malloc_limit_mb=2048 -print_final_stats=1 \
      -artifact_prefix="$artifacts/" ${FUZZ_FLAGS:-} "$corpus" > "$OUT/$target.log" 2>&1; then
    tail -60 "$OUT/$target.log"
    status=1
  fi
  grep -E "^stat::number_of_executed_units|^stat::peak_rss_mb|^#[0-9]+ *DONE" "$OUT/$target.log" | sed "s/^/   /" || true
done
exit $status
