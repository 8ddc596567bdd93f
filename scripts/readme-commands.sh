#!/usr/bin/env bash
# readme-commands.sh: prints the commands of README.md's "Two commands"
# section, each fenced block as one command ended by a NUL byte, in order.
# With --check it prints nothing and fails unless the section holds exactly
# two blocks of one command line each, one of them the test command
# (scripts/test.sh). scripts/test.sh runs the check so that the section, which
# scripts/fresh-machine.sh runs on a clean Debian, cannot silently grow.
#
#   scripts/readme-commands.sh [--check] [README]
set -euo pipefail

check=
if [ "${1:-}" = --check ]; then
	check=1
	shift
fi
readme=${1:-$(dirname "$0")/../README.md}

extract() {
	awk '/^## /{ on = ($0 ~ /^## Two commands/) }
		on && /^```/ { if (inb) { printf "%s%c", cmd, 0; cmd = ""; inb = 0 } else inb = 1; next }
		on && inb { cmd = cmd $0 "\n" }' "$readme"
}

if [ -z "$check" ]; then
	extract
	exit
fi

fail() {
	echo "README.md's \"Two commands\" section: $*" >&2
	exit 1
}
mapfile -d '' commands < <(extract)
[ "${#commands[@]}" -eq 2 ] || fail "holds ${#commands[@]} code blocks, not 2 (examples belong in \"A tour\" or docs/)"
tests=0
for cmd in "${commands[@]}"; do
	lines=$(printf '%s' "$cmd" | grep -cv '^[[:space:]]*$' || true)
	[ "$lines" -eq 1 ] || fail "a block holds $lines lines, not one command: $(printf '%s' "$cmd" | tr '\n' ' ')"
	case $cmd in *scripts/test.sh*) tests=$((tests + 1)) ;; esac
done
[ "$tests" -eq 1 ] || fail "exactly one of its two commands must be the test command, scripts/test.sh"
