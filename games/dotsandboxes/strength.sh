#!/usr/bin/env bash
# Dots and Boxes' own part of scripts/strength.sh (docs/bots-strength.md),
# run from the repository's root: the search's speed at each level, its
# accuracy against the brute-force solver and the solver's values of small
# boards. STRENGTH_QUICK=1: small sets, to check that every part runs.
set -euo pipefail
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
bench=100x free=${STRENGTH_FREE:-16} safe=${STRENGTH_SAFE_FREE:-20} positions=${STRENGTH_POSITIONS:-100}
if [[ -n "${STRENGTH_QUICK:-}" ]]; then
  bench=5x free=14 safe=14 positions=5
fi

echo
echo "Speed of builtin:search at each level, one move from a cold table (BenchmarkSearchMove):"
go test -run '^$' -bench BenchmarkSearchMove -benchtime "$bench" ./games/dotsandboxes/ | grep Benchmark

echo
echo "Accuracy against the brute-force solver (TestSearchAccuracy):"
STRENGTH_FREE=$free STRENGTH_SAFE_FREE=$safe STRENGTH_POSITIONS=$positions \
  go test -count=1 -timeout 0 -run TestSearchAccuracy -v ./games/dotsandboxes/ | grep -o 'ACCURACY.*'

echo
echo "Exact values of small boards (package exact):"
go test -count=1 -run 'TestTwoByTwo|TestThreeByThree' -v ./games/dotsandboxes/exact/ | grep -o '[0-9]x[0-9]: .*'
# The alpha-beta solver: 3x4 takes a minute or two of CPU, 4x4 far longer.
sizes=("3 4")
[[ -n "${STRENGTH_QUICK:-}" ]] && sizes=("3 3")
[[ -n "${STRENGTH_4X4:-}" ]] && sizes+=("4 4")
go build -o "$out/solve" ./games/dotsandboxes/exact/solve
for rc in "${sizes[@]}"; do
  read -r r c <<<"$rc"
  "$out/solve" -rows "$r" -cols "$c" | tail -1
done
