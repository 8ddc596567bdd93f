#!/usr/bin/env bash
# Runs every test of the project. On a fresh machine it first installs and
# starts everything the tests need, so this one command is all a new
# developer and CI run (scripts/fresh-machine.sh proves that on a clean
# Debian 12; docs/development.md).
set -euo pipefail
cd "$(dirname "$0")/.."

# The README's "Two commands" section holds exactly the main job and this
# command (scripts/fresh-machine.sh runs that section on a clean Debian).
./scripts/readme-commands.sh --check

# What the tests need, run in order: one script a line, before anything else
# runs. Each is idempotent (does nothing when its part is already there) and,
# when it cannot install or start its part, prints one line on stderr saying
# what and exits non-zero, which stops the run here: a test never skips for
# want of a tool. A line VAR=SCRIPT exports what the script prints on stdout
# (one line: where the tests find what it started) as VAR for the tests.
setup=(
  scripts/install-toolchains.sh           # C, Rust and wasm toolchains, sanitizers
  ARENA_TEST_POSTGRES=scripts/postgres.sh # PostgreSQL 15 started; its URL, for the store's tests
  scripts/install-browser.sh              # chromium, for the site's browser tests
)
for entry in "${setup[@]}"; do
  if [[ "$entry" == *=* ]]; then
    value=$("./${entry#*=}")
    export "${entry%%=*}=$value"
  else
    "./$entry"
  fi
done

echo "== gofmt, go vet, go mod tidy"
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))
if [ -n "$unformatted" ]; then
  echo "gofmt would change: $unformatted" >&2
  exit 1
fi
go vet ./...
# Bot writers run the CLI on macOS too: the tree must build there (Linux
# alone has some of the process controls; *_linux.go and *_other.go).
GOOS=darwin GOARCH=arm64 go vet ./...
# and the CLI on Windows (the tests themselves use Unix process controls).
GOOS=windows GOARCH=amd64 go build -o /dev/null ./cmd/arena
cp go.mod /tmp/arena-go.mod.$$; cp go.sum /tmp/arena-go.sum.$$
go mod tidy
if ! cmp -s go.mod /tmp/arena-go.mod.$$ || ! cmp -s go.sum /tmp/arena-go.sum.$$; then
  cp /tmp/arena-go.mod.$$ go.mod; cp /tmp/arena-go.sum.$$ go.sum
  echo "go mod tidy changes go.mod/go.sum: run it and commit the result" >&2
  exit 1
fi
rm -f /tmp/arena-go.mod.$$ /tmp/arena-go.sum.$$

echo "== go test -fuzz, 20000 executions per target"
./scripts/fuzz.sh 20000x

echo "== go test"
go test -count=1 -timeout 25m ./...
go test -race -short -count=1 -timeout 20m ./sandbox/ ./bot/... ./match/... ./tournament/...  # sandbox, bots, matches, tournaments under the race detector (sandbox/meter has no goroutines)
