#!/usr/bin/env bash
# Matches per CPU-second of `arena serve` with its own in-process workers
# (the baseline) and with 1, 2 and 4 `arena worker` processes joined over
# NATS on loopback: the cost of coordination. CPU is the user+system time
# of every arena process (server and workers), read from /proc, so the
# figure does not depend on how busy the shared machine is.
# The four setups run in turn, ROUNDS times over (interleaved, so that a
# change in the machine's load weighs on all of them alike); each line sums
# its setup's rounds, and the last column is its CPU per match relative to
# the in-process baseline of the same run.
# Usage: scripts/scaling.sh [SECONDS per setup and round, default 20] [GAME, default dots-and-boxes] [ROUNDS, default 1]
set -euo pipefail
secs=${1:-20}
game=${2:-dots-and-boxes}
rounds=${3:-1}
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$tmp"; }
trap cleanup EXIT
go build -o "$tmp/arena" ./cmd/arena
hz=$(getconf CLK_TCK)
http=127.0.0.1:23280
natsaddr=127.0.0.1:23281

cpu() { # total CPU ticks of the given pids
  local t=0
  for p in "$@"; do t=$((t + $(awk '{print $14+$15}' "/proc/$p/stat"))); done
  echo "$t"
}
finished() { curl -fs "http://$http/metrics" | awk '/^arena_matches_total\{.*state="finished"/ {s+=$2} END {print s+0}'; }

declare -A matches cpu
run() { # label, local workers (0: none), remote workers
  local label=$1 local_n=$2 remote_n=$3 dir="$tmp/$1"
  rm -rf "$dir"; mkdir -p "$dir"
  pids=()
  local args=(serve --addr "$http" --data "$dir" --rest 0 --check-every 0 --games "$game")
  if [ "$local_n" -gt 0 ]; then args+=(--workers "$local_n"); else args+=(--no-workers --nats-listen "$natsaddr"); fi
  "$tmp/arena" "${args[@]}" 2>"$dir/serve.log" & pids+=($!)
  until curl -fs "http://$http/healthz" >/dev/null 2>&1; do sleep 0.2; done
  for i in $(seq 1 "$remote_n"); do
    "$tmp/arena" worker --creds "$dir/worker.creds" --parallel 1 --name "w$i" --cache "$dir/cache$i" 2>"$dir/w$i.log" & pids+=($!)
  done
  sleep 3 # warm up: modules compiled, workers announced
  local m0 c0 m1 c1
  m0=$(finished); c0=$(cpu "${pids[@]}")
  sleep "$secs"
  m1=$(finished); c1=$(cpu "${pids[@]}")
  for p in "${pids[@]}"; do kill "$p"; done
  wait 2>/dev/null || true
  matches[$label]=$(( ${matches[$label]:-0} + m1 - m0 ))
  cpu[$label]=$(( ${cpu[$label]:-0} + c1 - c0 ))
}

setups=("in-process, 1 worker:1:0" "1 arena worker:0:1" "2 arena workers:0:2" "4 arena workers:0:4")
echo "game $game, $rounds round(s) of $secs s per setup, $(nproc) cores"
for r in $(seq 1 "$rounds"); do
  for s in "${setups[@]}"; do
    IFS=: read -r label l n <<<"$s"
    run "$label" "$l" "$n"
  done
done
base=""
for s in "${setups[@]}"; do
  IFS=: read -r label l n <<<"$s"
  m=${matches[$label]} c=${cpu[$label]}
  [ -n "$base" ] || base=$(awk -v m="$m" -v c="$c" 'BEGIN { print c/m }')
  awk -v l="$label" -v m="$m" -v c="$c" -v hz="$hz" -v s="$((secs * rounds))" -v b="$base" \
    'BEGIN { printf "%-22s %6d matches  %7.1f CPU-s  %6.2f matches/CPU-s  %5.2f matches/s  CPU/match %+5.1f%%\n", l, m, c/hz, m/(c/hz), m/s, 100*(c/m/b-1) }'
done
