#!/usr/bin/env bash
# Runs every `go test -fuzz` target of the project for a while each.
# Usage: scripts/fuzz.sh [BUDGET]   per target: a duration (default 30s) or a
# count of executions such as 2000x. The test command uses a count: in Go 1.26
# a duration can end in a spurious "context deadline exceeded" with no failing
# input (golang/go#75804, fixed in Go 1.27), and a count has no deadline.
# A failure leaves its input under the package's testdata/fuzz/, where plain
# `go test` replays it from then on.
set -euo pipefail
cd "$(dirname "$0")/.."
time_per_target=${1:-30s}
grep -rl --include='*_test.go' '^func Fuzz' . | sort | while read -r file; do
  pkg=./$(dirname "${file#./}")
  for target in $(grep -o '^func Fuzz[A-Za-z0-9_]*' "$file" | cut -d' ' -f2); do
    echo "fuzz $pkg $target ($time_per_target)"
    go test -run '^$' -fuzz "^${target}\$" -fuzztime "$time_per_target" "$pkg" > /tmp/arena-fuzz.log 2>&1 || {
      cat /tmp/arena-fuzz.log >&2
      exit 1
    }
  done
done
