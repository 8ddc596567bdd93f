#!/usr/bin/env bash
# The cost of coordination: the work per match when `arena serve` plays a
# fixed list of matches with its own in-process worker and with 1, 2 and 4
# `arena worker` processes joined over NATS on loopback, against the same
# matches played back to back in one process with nothing around them
# (internal/scaleout/playlist, the baseline).
#
# Every setup plays exactly the same matches: MATCHES lines of (seed, seats)
# over the game's house bots, every pairing in both seat orders, sent to the
# server as challenges (POST /api/v1/challenges with the seed) while no rated
# matches are made (--games none). Work is counted two ways for every arena
# process (server and workers), from the first challenge until the last
# match is recorded, after the processes have started and the workers
# joined: instructions retired (user and kernel, perf stat attached to the
# processes), which do not depend on the machine's load, and user+system
# CPU time from /proc, which on this shared machine does (a busy neighbour
# slows every instruction). The setups run in turn, REPS times over; each
# ratio is against the baseline of the same repetition, and the summary
# gives their mean and range. The server's own share (per match) is shown
# for the setups with joined workers: what one server spends to feed them.
#
# Run it under `nice -n -5` on a shared machine (docs/performance.md); the
# build runs at nice 19.
# Usage: scripts/scaling.sh [MATCHES per setup, default 300] [REPS, default 3] [GAME, default the first of arena games]
# The bots are the game's first three ladder entries (arena bots --json, as
# arena seed takes them), or SCALING_BOTS="a b c", house bots of the game.
set -euo pipefail
matches=${1:-300}
reps=${2:-3}
game=${3:-}
# Its tools, from Debian's packages, installed when missing (as the test
# command's scripts do), so that it runs on a fresh machine as it is.
if ! command -v jq >/dev/null || ! command -v perf >/dev/null; then
  { apt-get update -q && apt-get install -y -q jq linux-perf; } >/dev/null ||
    { echo "scaling.sh: cannot install jq and linux-perf (apt-get install jq linux-perf)" >&2; exit 1; }
fi
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$tmp"; }
trap cleanup EXIT
nice -n 19 go build -o "$tmp/arena" ./cmd/arena
nice -n 19 go build -o "$tmp/playlist" ./internal/scaleout/playlist
[ -n "$game" ] || game=$("$tmp/arena" games --json | jq -r '.[0].id')
if [ -n "${SCALING_BOTS:-}" ]; then
  read -r -a bots <<<"$SCALING_BOTS"
else
  mapfile -t bots < <("$tmp/arena" bots --json |
    jq -r --arg g "$game" '[.house[] | select(.game == $g and (.spec | startswith("house:"))) | .spec[6:]] | .[:3] | .[]')
fi
[ "${#bots[@]}" -ge 2 ] || { echo "scaling.sh: game $game has ${#bots[@]} ladder entries, want 2 or more (or SCALING_BOTS)" >&2; exit 1; }
hz=$(getconf CLK_TCK)
http=127.0.0.1:18280
natsaddr=127.0.0.1:14280

# The list: seed i, the i-th pairing of the bots in both seat orders.
pairs=()
for a in "${bots[@]}"; do for b in "${bots[@]}"; do [ "$a" = "$b" ] || pairs+=("$a $b"); done; done
for i in $(seq 1 "$matches"); do
  read -r a b <<<"${pairs[$(((i - 1) % ${#pairs[@]}))]}"
  echo "$game $i builtin:$a builtin:$b"
done >"$tmp/list"

instructions() { # billions of instructions (user and kernel) in a perf stat -x, file
  awk -F, '/instructions/ {s+=$1} END {printf "%.3f", s/1e9}' "$1"
}
spread() { # mean [min, max] of a list of percentages
  awk -v rs="$1" 'BEGIN { k = split(rs, r, " "); lo = r[1]; hi = r[1]; sum = 0
    for (i = 1; i <= k; i++) { sum += r[i]; if (r[i] < lo) lo = r[i]; if (r[i] > hi) hi = r[i] }
    printf "%+5.1f%% [%+.1f, %+.1f]", sum / k, lo, hi }'
}
cpu() { # total CPU ticks of the given pids
  local t=0
  for p in "$@"; do t=$((t + $(awk '{print $14+$15}' "/proc/$p/stat"))); done
  echo "$t"
}
ended() { curl -fs "http://$http/metrics" | awk '/^arena_matches_total\{/ {s+=$2} END {print s+0}'; }
failed() { curl -fs "http://$http/metrics" | awk '/^arena_matches_total\{.*state="failed"/ {s+=$2} END {print s+0}'; }

serve() { # local workers (0: none), remote workers; sets cpu_s to the CPU seconds
  local local_n=$1 remote_n=$2 dir="$tmp/data"
  rm -rf "$dir"; mkdir -p "$dir"
  pids=()
  local args=(serve --addr "$http" --data "$dir" --rest 0 --check-every 0 --games none --challenges-per-minute 100000)
  if [ "$local_n" -gt 0 ]; then args+=(--workers "$local_n"); else args+=(--no-workers --nats-listen "$natsaddr"); fi
  "$tmp/arena" "${args[@]}" 2>"$dir/serve.log" & pids+=($!)
  until curl -fs "http://$http/healthz" >/dev/null 2>&1; do sleep 0.2; done
  for i in $(seq 1 "$remote_n"); do
    "$tmp/arena" worker --creds "$dir/worker.creds" --parallel 1 --name "w$i" --cache "$dir/cache$i" 2>"$dir/w$i.log" & pids+=($!)
  done
  until [ "$(curl -fs "http://$http/metrics" | awk '/^arena_workers / {print $2}')" = "$remote_n" ] || [ "$remote_n" = 0 ]; do sleep 0.2; done
  local token name
  token=$(curl -fs -X POST "http://$http/api/v1/accounts" -H 'Content-Type: application/json' \
    -d '{"handle":"scaling","password":"scaling-password"}' | jq -r .token)
  local board
  board=$(curl -fs "http://$http/api/v1/games/$game/leaderboard?limit=100")
  declare -A id
  for name in "${bots[@]}"; do
    id[$name]=$(jq -r --arg n "$name" '.rows[] | select(.player == "@house" and .bot == $n) | .bot_id' <<<"$board")
  done
  sleep 2 # let start-up work (the workers' rules fingerprints) end
  local e0 c0 c1 pp
  e0=$(ended); c0=$(cpu "${pids[@]}")
  local s0 s1 pw=""
  s0=$(cpu "${pids[0]}")
  perf stat -e instructions:u,instructions:k -x, -o "$tmp/perf.s" -p "${pids[0]}" & pp=$!
  echo 0 >"$tmp/perf.w"
  if [ "$remote_n" -gt 0 ]; then
    perf stat -e instructions:u,instructions:k -x, -o "$tmp/perf.w" -p "$(IFS=,; echo "${pids[*]:1}")" & pw=$!
  fi
  local g seed a b code
  while read -r g seed a b; do
    while :; do
      code=$(curl -s -o /dev/null -w '%{http_code}' -X POST "http://$http/api/v1/challenges" \
        -H "Authorization: Bearer $token" -H 'Content-Type: application/json' \
        -d "{\"game\":\"$g\",\"seed\":$seed,\"bots\":[${id[${a#builtin:}]},${id[${b#builtin:}]}]}")
      [ "$code" = 201 ] && break
      [ "$code" = 503 ] || { echo "scaling.sh: challenge answered $code" >&2; exit 1; }
      sleep 0.3 # the queue is full
    done
  done <"$tmp/list"
  until [ "$(ended)" -ge $((e0 + matches)) ]; do sleep 0.5; done
  c1=$(cpu "${pids[@]}")
  s1=$(cpu "${pids[0]}")
  kill -INT "$pp" $pw; wait "$pp" $pw || true
  server_g=$(instructions "$tmp/perf.s")
  instr_g=$(awk -v a="$server_g" -v b="$(instructions "$tmp/perf.w")" 'BEGIN { printf "%.3f", a + b }')
  server_ms=$(awk -v c=$((s1 - s0)) -v hz="$hz" -v m="$matches" 'BEGIN { printf "%.1f", 1000 * c / hz / m }')
  [ "$(failed)" = 0 ] || { echo "scaling.sh: some matches failed (see $dir)" >&2; exit 1; }
  for p in "${pids[@]}"; do kill "$p"; done
  wait 2>/dev/null || true
  pids=()
  cpu_s=$(awk -v c=$((c1 - c0)) -v hz="$hz" 'BEGIN { printf "%.3f", c/hz }')
}

# The baseline: the list in one process, counted whole, less a process that
# starts and plays nothing.
baseline() {
  perf stat -e instructions:u,instructions:k -x, -o "$tmp/perf" "$tmp/playlist" </dev/null >/dev/null
  local idle n
  idle=$(instructions "$tmp/perf")
  perf stat -e instructions:u,instructions:k -x, -o "$tmp/perf" "$tmp/playlist" <"$tmp/list" >"$tmp/playlist.out"
  read -r n cpu_s <"$tmp/playlist.out"
  [ "$n" = "$matches" ] || { echo "scaling.sh: playlist played $n matches" >&2; exit 1; }
  instr_g=$(awk -v a="$(instructions "$tmp/perf")" -v b="$idle" 'BEGIN { printf "%.3f", a - b }')
}

setups=("matches alone:-:-" "in-process worker:1:0" "1 arena worker:0:1" "2 arena workers:0:2" "4 arena workers:0:4")
declare -A ins cpus
echo "game $game (${bots[*]}), $matches matches per setup, $reps repetitions, $(nproc) cores"
echo "per setup: billions of instructions, CPU-s, and their ratio to the baseline of the same repetition"
for r in $(seq 1 "$reps"); do
  echo "repetition $r: load average $(cut -d' ' -f1-3 /proc/loadavg)"
  for s in "${setups[@]}"; do
    IFS=: read -r label l n <<<"$s"
    if [ "$l" = - ]; then
      baseline
      base_i=$instr_g base_c=$cpu_s
    else
      serve "$l" "$n"
    fi
    ins[$label]+="$(awk -v a="$instr_g" -v b="$base_i" 'BEGIN { print 100 * (a / b - 1) }') "
    cpus[$label]+="$(awk -v a="$cpu_s" -v b="$base_c" 'BEGIN { print 100 * (a / b - 1) }') "
    printf '  %-18s %8.1f G instr %+6.1f%%  %7.1f CPU-s %+6.1f%%' "$label" "$instr_g" \
      "$(awk -v a="$instr_g" -v b="$base_i" 'BEGIN { print 100 * (a / b - 1) }')" "$cpu_s" \
      "$(awk -v a="$cpu_s" -v b="$base_c" 'BEGIN { print 100 * (a / b - 1) }')"
    if [ "$l" = 0 ]; then
      printf '  server alone: %.0f M instr, %s ms CPU per match' "$(awk -v a="$server_g" -v m="$matches" 'BEGIN { print 1000 * a / m }')" "$server_ms"
    fi
    echo
  done
done
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "overhead per match against the matches alone, mean [min, max] over the repetitions:"
printf '  %-18s %-26s %s\n' setup instructions CPU-seconds
for s in "${setups[@]:1}"; do
  IFS=: read -r label l n <<<"$s"
  printf '  %-18s %-26s %s\n' "$label" "$(spread "${ins[$label]}")" "$(spread "${cpus[$label]}")"
done
