#!/usr/bin/env bash
# Runs every test of the project. On a fresh machine it first installs what
# the tests need (the C and Rust toolchains for the wasm starter kits), so
# this one command is all a new developer and CI run.
set -euo pipefail
cd "$(dirname "$0")/.."

./scripts/install-toolchains.sh

echo "== gofmt, go vet, go mod tidy"
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))
if [ -n "$unformatted" ]; then
  echo "gofmt would change: $unformatted" >&2
  exit 1
fi
go vet ./...
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
ARENA_TEST_POSTGRES=$(./scripts/postgres.sh) # the store's tests run on it too
export ARENA_TEST_POSTGRES
go test -count=1 -timeout 25m ./...
go test -race -short -count=1 -timeout 20m ./sandbox/ ./bot/... ./match/... ./tournament/...  # sandbox, bots, matches, tournaments under the race detector (sandbox/meter has no goroutines)
