#!/usr/bin/env bash
# A long fuzzing campaign: every target (or FUZZ_TARGETS) for
# ${CAMPAIGN_SECONDS:-3600} seconds each, with value profiling, then a merge
# that minimises each corpus. Prints per target: executions, execs/s, corpus
# size, coverage and crashes found. Crashes stay in build/fuzz/artifacts/TARGET/.
#
#   scripts/fuzz-campaign.sh                         # 1 hour per target
#   CAMPAIGN_SECONDS=28800 scripts/fuzz-campaign.sh  # overnight
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/env.sh"
cd "$ROOT"
SECS="${CAMPAIGN_SECONDS:-3600}"
FUZZ_SECONDS="$SECS" FUZZ_FLAGS="-use_value_profile=1 ${FUZZ_FLAGS:-}" bash scripts/fuzz.sh || true
TARGETS="${FUZZ_TARGETS:-$(for src in fuzz/*_fuzzer.cc; do basename "${src%.cc}"; done)}"
export ASAN_OPTIONS="allocator_may_return_null=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
printf "%-16s %12s %10s %8s %8s %8s\n" target executions execs/s corpus cov crashes
for target in $TARGETS; do
  log="build/fuzz/$target.log"
  merged="build/fuzz/corpus/$target.merged"
  rm -rf "$merged" && mkdir -p "$merged"
  # Inputs that crash while merging go with the campaign's crashes (not into the working directory).
  build/sanitize/"$target" -merge=1 -rss_limit_mb=4096 -max_len=8192 -artifact_prefix="build/fuzz/artifacts/$target/" \
    "$merged" "build/fuzz/corpus/$target" \
    > "build/fuzz/$target.merge.log" 2>&1 || true
  rm -rf "build/fuzz/corpus/$target" && mv "$merged" "build/fuzz/corpus/$target"
  execs=$(grep -oE "^stat::number_of_executed_units: *[0-9]+" "$log" | grep -oE "[0-9]+$" || echo 0)
  speed=$(grep -oE "exec/s: [0-9]+" "$log" | tail -1 | grep -oE "[0-9]+" || echo 0)
  cov=$(grep -oE "cov: [0-9]+" "$log" | tail -1 | grep -oE "[0-9]+" || echo 0)
  corpus=$(find "build/fuzz/corpus/$target" -type f | wc -l)
  crashes=$(find "build/fuzz/artifacts/$target" -type f 2>/dev/null | wc -l)
  printf "%-16s %12s %10s %8s %8s %8s\n" "$target" "$execs" "$speed" "$corpus" "$cov" "$crashes"
done
