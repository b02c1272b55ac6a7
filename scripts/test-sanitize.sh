#!/usr/bin/env bash
# Runs the GoogleTest suite built with ASan + UBSan (scripts/build-sanitize.sh).
# Nothing is suppressed: any leak, memory error or undefined behaviour fails.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/env.sh"
# detect_leaks: on by default on Linux, spelled out because lost memory is a bug
# here (issue 9: "lose nothing"). halt_on_error/abort: a report fails the test.
# allocator_may_return_null: the library allocates with nothrow new and
# reports a failed allocation as an error, and tests check exactly that;
# ASan's default would abort on the (deliberately) impossible request instead.
export ASAN_OPTIONS="detect_leaks=1:halt_on_error=1:abort_on_error=1:allocator_may_return_null=1:strict_string_checks=1:detect_stack_use_after_return=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
ctest --test-dir "$ROOT/build/sanitize" --output-on-failure -j "$JOBS" --timeout 600
