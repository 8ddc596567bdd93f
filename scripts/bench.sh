#!/usr/bin/env bash
# Every figure of docs/performance.md's table, measured in one run and
# printed beside its target (met / not met): the sandbox's round trip
# against a Go channel ping-pong, the metering overhead, the server's CPU
# per match against the raw tournament's, `arena serve`'s throughput
# against `arena tournament`'s (idle and beside a busy process), the API's
# p50/p99 at 1,000 requests/s with 100,000 finished matches (open loop:
# scripts/openloop), and the server's peak memory. About 10 minutes on the
# project's 2-core machine; run it on an idle machine.
#
# Usage: scripts/bench.sh [-quick] [-only roundtrip,meter,cost,throughput,latency] [-seed-dir DIR] [-v]
#                        [-arena BIN] [-boards N] [-match-nice N] [-match-batch]
#   -quick     fewer iterations, shorter windows, 10,000 matches: checks the command, not the targets
#   -seed-dir  keep the seeded 100,000 matches in DIR and reuse them next time
#   -arena     measure this arena binary instead of a build of ./cmd/arena
#   -boards    round-robin boards of the cost and throughput sections (12 matches each)
#   -match-nice  pass --match-nice N to the servers of the throughput and latency sections
#   -match-batch pass --match-batch to them
# Needs Go, and clang with wasi-libc for the C kit (scripts/install-toolchains.sh c;
# without it the Go kit plays every seat).
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/bench" ./scripts/bench
"$tmp/bench" "$@"
