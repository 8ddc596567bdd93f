#!/usr/bin/env bash
# Makes the tables of docs/bots-strength.md in one command: seat-balanced
# house-bot matches through `arena tournament` (each board played once with
# each side first), the win rate with its 95% Wilson interval and the mean
# margin, of each game's pairings (games/<g>/strength.txt), then each game's
# own measurements (games/<g>/strength.sh, when it has one).
# Usage: scripts/strength.sh [BOARDS] [PARALLEL]
#        scripts/strength.sh quick
#   BOARDS (default 100) boards per pairing, so twice as many matches
#   (pairings marked "half" below get half as many);
#   PARALLEL (default 1) matches at once: the machine is shared, keep it low.
#   quick: one board per pairing and small sets, to check that every part
#   of the script runs (a minute or two); its figures mean nothing.
# Some pairings only, separated by ";":
#   STRENGTH_ONLY="dots-and-boxes search chains" scripts/strength.sh
#   STRENGTH_ONLY="dots-and-boxes search chains;dots-and-boxes search greedy" scripts/strength.sh
# A public Dots and Boxes engine, held out of the repository, is played as
# engine:PUBLIC through scripts/dnb-engine-adapter.py (docs/bots-strength.md,
# "Against a public engine"); STRENGTH_ENGINE is its command line:
#   STRENGTH_ENGINE="/path/to/engine ARGS" STRENGTH_ONLY="dots-and-boxes engine:PUBLIC search" scripts/strength.sh
# (scripts/dnb-engine/build.sh builds it). An exec: bot such as this one is
# not metered: STRENGTH_EXEC_TIMEOUT (default 60s) is its wall-clock limit
# per answer, far above what a node-limited engine takes, so that the
# machine's load cannot change a match.
# STRENGTH_4X4=1 also solves the empty 4x4 board (hours of CPU, see the doc).
set -euo pipefail
cd "$(dirname "$0")/.."
quick=
if [[ "${1:-}" == quick ]]; then
  quick=1
  set -- 1 1
fi
boards=${1:-100}
parallel=${2:-1}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
go build -o "$out/arena" ./cmd/arena

# four_player GAME A B BOARDS: `arena tournament` seats every entry once,
# so A against three copies of B is played with `arena match`: on boards
# 1..BOARDS/2 (the match seed), A in each of the four seats, the other
# three B. A win is A placed first; the margin is A's score minus the best
# of the other three.
four_player() {
  local game=$1 a=$2 b=$3 n=$((($4 + 1) / 2)) wins=0 games=0 margin=0
  for ((seed = 1; seed <= n; seed++)); do
    for seat in 0 1 2 3; do
      local bots=()
      for s in 0 1 2 3; do
        if ((s == seat)); then bots+=(--bot "builtin:$a"); else bots+=(--bot "builtin:$b"); fi
      done
      read -r first m < <("$out/arena" match --game "$game" --seed "$seed" "${bots[@]}" --json |
        tr -d '"' | sed 's/.*scores:\[\([^]]*\)\],placement:\[\([0-9]*\).*/\1 \2/' |
        awk -v seat="$seat" '{ n = split($1, sc, ","); best = -1e18
          for (i = 1; i <= n; i++) if (i - 1 != seat && sc[i] > best) best = sc[i]
          print ($2 == seat), sc[seat + 1] - best }')
      wins=$((wins + first)); margin=$((margin + m)); games=$((games + 1))
    done
  done
  awk -v a="$a" -v b="$b" -v game="$game" -v n="$games" -v w="$wins" -v m="$margin" 'BEGIN {
    p = w / n; z = 1.96; c = (p + z*z/(2*n)) / (1 + z*z/n)
    h = z * sqrt(p*(1-p)/n + z*z/(4*n*n)) / (1 + z*z/n)
    printf "| %s (4 players) | builtin:%s | 3 x builtin:%s | %d | %d | %.1f%% (%.1f-%.1f%%) | %+.2f | - |\n", game, a, b, n, w, 100*p, 100*(c-h), 100*(c+h), m/n }'
}

# The pairings are each game's own, games/<g>/strength.txt: per line the
# game, challenger, opponent and extra flags ("--players 4" plays the
# challenger against three copies, see four_player; "half" plays half as
# many boards). A bot is a house bot's name, a full SPEC, or kit:LANG/KIT,
# the game's kit games/<g>/kits/LANG/KIT (Go or C) built for the platform
# as its README says.
pairings=()
declare -A gamedir
for f in games/*/strength.txt; do
  while read -r line; do
    [[ -z "$line" || "$line" == \#* ]] && continue
    pairings+=("$line")
    gamedir[${line%% *}]=$(dirname "$f")
  done <"$f"
done
if [[ -n "${STRENGTH_ONLY:-}" ]]; then
  IFS=';' read -r -a pairings <<<"$STRENGTH_ONLY"
fi

# spec GAME BOT: the SPEC of BOT, building a kit: bot first.
spec() {
  case $2 in
  kit:c/*)
    local kit=${2#kit:} wasm=$out/$1-c-${2##*/}.wasm
    [[ -f "$wasm" ]] || clang --target=wasm32-wasi --sysroot=/usr -O2 -o "$wasm" "./${gamedir[$1]}/kits/$kit/main.c"
    echo "wasm:$wasm" ;;
  kit:*)
    local kit=${2#kit:} wasm=$out/$1-${2##*/}.wasm
    [[ -f "$wasm" ]] || GOOS=wasip1 GOARCH=wasm go build -trimpath -o "$wasm" "./${gamedir[$1]}/kits/$kit"
    echo "wasm:$wasm" ;;
  engine:PUBLIC) echo "exec:$PWD/scripts/dnb-engine-adapter.py ${STRENGTH_ENGINE:?set STRENGTH_ENGINE to the held-out engine command}" ;;
  *:*) echo "$2" ;;
  *) echo "builtin:$2" ;;
  esac
}

echo "| game | bot | opponent | matches | wins | win rate (95% interval) | mean margin | fuel or timeout |"
echo "|---|---|---|---:|---:|---|---:|---:|"
for p in "${pairings[@]}"; do
  read -r game a b flags <<<"$p"
  n=$boards
  if [[ " $flags " == *" half "* ]]; then
    n=$(((boards + 1) / 2))
    flags=${flags//half/}
  fi
  if [[ "$flags" == *"--players 4"* ]]; then four_player "$game" "$a" "$b" "$n"; continue; fi
  sa=$(spec "$game" "$a")
  sb=$(spec "$game" "$b")
  # shellcheck disable=SC2086
  "$out/arena" tournament --game "$game" --bot "$sa" --bot "$sb" \
    --boards "$n" --parallel "$parallel" --exec-timeout "${STRENGTH_EXEC_TIMEOUT:-60s}" --json $flags >"$out/t.json"
  # Answers stopped for running out of fuel or time, in all the matches.
  stopped=$({ grep -o '"\(fuel\|timeout\)":[0-9]*' "$out/t.json" || true; } | awk -F: '{n += $2} END {print n + 0}')
  # The standings hold each bot's firsts (wins), games and total score.
  tr '{' '\n' <"$out/t.json" | awk -v a="$sa" -v b="$sb" -v la="$a" -v lb="$b" -v game="$game" -v stopped="$stopped" '
    function field(name,   m) {
      if (match($0, "\"" name "\":[^,}]*")) { m = substr($0, RSTART, RLENGTH); sub(/^[^:]*:/, "", m); gsub(/"/, "", m); return m }
      return ""
    }
    /"bot":/ && !done[field("bot")]++ {
      bot = field("bot"); firsts[bot] = field("firsts") + 0; games[bot] = field("games") + 0; score[bot] = field("score") + 0
    }
    END {
      n = games[a]; w = firsts[a]; p = w / n; z = 1.96; margin = (score[a] - score[b]) / n
      c = (p + z*z/(2*n)) / (1 + z*z/n)
      h = z * sqrt(p*(1-p)/n + z*z/(4*n*n)) / (1 + z*z/n)
      a = la; b = lb
      printf "| %s | %s | %s | %d | %d | %.1f%% (%.1f-%.1f%%) | %+.2f | %d |\n", game, a, b, n, w, 100*p, 100*(c-h), 100*(c+h), margin, stopped
    }'
done
[[ -n "${STRENGTH_ONLY:-}" ]] && exit 0

# Then each game's own measurements, games/<g>/strength.sh, run from the
# repository's root with STRENGTH_QUICK set for quick.
for f in games/*/strength.sh; do
  STRENGTH_QUICK=$quick bash "$f"
done
