#!/usr/bin/env bash
# The memory of `arena serve` on its defaults: a fresh data directory and a
# fresh module cache, as on a new machine, every game's ladder playing rated
# matches on one worker per core. Every STEP seconds it prints the finished
# matches and the process's resident set; at the end its peak, and the
# resident set split by kind of mapping: executable anonymous memory is
# wazero's compiled code (one copy per distinct module), read-write
# anonymous memory the Go heap and the bots' linear memories.
# docs/performance.md ("Memory of `arena serve` on its defaults") has figures.
#
# It needs Go (README: the same toolchain as the tests) and curl, which it
# installs from Debian's packages when missing (as root).
#
# Usage: scripts/serve-memory.sh [SECONDS, default 300] [STEP, default 30]
set -euo pipefail
secs=${1:-300}
step=${2:-30}
if ! command -v curl >/dev/null; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "serve-memory.sh: curl is missing; run me as root, or apt-get install curl" >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  { apt-get -o DPkg::Lock::Timeout=600 update -qq &&
    apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends curl; } >/dev/null ||
    { echo "serve-memory.sh: cannot install curl (apt-get install curl)" >&2; exit 1; }
fi
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
pid=
cleanup() { [ -z "$pid" ] || kill "$pid" 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$tmp"; }
trap cleanup EXIT
nice -n 19 go build -o "$tmp/arena" ./cmd/arena
http=127.0.0.1:18380
ARENA_WASM_CACHE="$tmp/cache" "$tmp/arena" serve --addr "$http" --data "$tmp/data" 2>"$tmp/serve.log" &
pid=$!
alive() { kill -0 "$pid" 2>/dev/null || { echo "serve-memory.sh: the server stopped:" >&2; cat "$tmp/serve.log" >&2; exit 1; }; }
until curl -fs "http://$http/healthz" >/dev/null 2>&1; do
  alive
  sleep 0.2
done
finished() { curl -fs "http://$http/metrics" | awk '/^arena_matches_total\{.*state="finished"/ {s+=$2} END {print s+0}'; }
status() { awk -v k="$1:" '$1 == k {printf "%.0f", $2 / 1024}' "/proc/$pid/status"; }
printf '%8s %9s %13s\n' seconds finished 'resident MiB'
for ((t = step; t <= secs; t += step)); do
  sleep "$step"
  alive
  printf '%8d %9d %13s\n' "$t" "$(finished)" "$(status VmRSS)"
done
echo "peak resident: $(status VmHWM) MiB"
# Anonymous mappings have no path (five fields on their header line); the
# rest are files and the kernel's named areas ([stack], [vdso]...).
awk '/^[0-9a-f]+-[0-9a-f]+ / {kind = (NF < 6) ? $2 : "file"}
  /^Rss:/ {rss[kind] += $2}
  END {printf "now: compiled code (anonymous r-xp) %d MiB, heap and linear memories (anonymous rw-p) %d MiB, files and named areas %d MiB\n",
    rss["r-xp"] / 1024, rss["rw-p"] / 1024, rss["file"] / 1024}' "/proc/$pid/smaps"
