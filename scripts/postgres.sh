#!/usr/bin/env bash
# Starts the machine's PostgreSQL 15 for the store's tests and prints the URL
# to reach the test database, one line on stdout:
#   postgres://arena:arena@127.0.0.1:PORT/arena_test?sslmode=disable
# It installs Debian's postgresql-15 when it is missing, creates and starts
# the cluster 15/main, and creates the role `arena` (password `arena`, allowed
# to create databases, so tests can make one database each) and the database
# `arena_test`. Every step is skipped when already done, so it can run before
# every test run. When something cannot be done it fails with one line on
# stderr; it never skips. scripts/test.sh exports the URL as
# ARENA_TEST_POSTGRES.
set -euo pipefail

fail() {
  echo "scripts/postgres.sh: $*" >&2
  exit 1
}

version=15
# A different cluster and port are for testing this script on a machine whose
# main cluster others are using; the tests use the defaults.
cluster=${ARENA_PG_CLUSTER:-main}
new_port=${ARENA_PG_PORT:-}
bin=/usr/lib/postgresql/$version/bin

as_root() {
  if [ "$(id -u)" -ne 0 ]; then
    fail "$1 needs root (run scripts/postgres.sh as root once)"
  fi
}

# Several test runs may start at once on a shared machine: one at a time here.
# The lock is opened read-only so that any user can take it; children that
# outlive this script (the server pg_ctlcluster starts) must not inherit it.
lock=/tmp/arena-postgres.lock
[ -e "$lock" ] || : >"$lock" || fail "cannot create $lock"
exec 9<"$lock"
flock -w 120 9 || fail "another scripts/postgres.sh held $lock for 2 minutes"

if [ ! -x "$bin/postgres" ] || ! command -v pg_ctlcluster >/dev/null; then
  as_root "installing postgresql-$version"
  echo "scripts/postgres.sh: installing Debian's postgresql-$version" >&2
  log=/tmp/arena-postgres-apt.log
  if ! { apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "postgresql-$version"; } >"$log" 2>&1 9<&-; then
    fail "apt-get install postgresql-$version failed (see $log)"
  fi
fi

if ! pg_lsclusters -h "$version" "$cluster" >/dev/null 2>&1; then
  as_root "creating the cluster $version/$cluster"
  pg_createcluster ${new_port:+-p "$new_port"} "$version" "$cluster" >/tmp/arena-postgres-create.log 2>&1 9<&- ||
    fail "pg_createcluster $version $cluster failed (see /tmp/arena-postgres-create.log)"
fi

# pg_lsclusters -h: version cluster port status owner datadir logfile
read -r _ _ port status _ _ log < <(pg_lsclusters -h "$version" "$cluster")
if [[ "$status" != online* ]]; then
  as_root "starting the cluster $version/$cluster"
  pg_ctlcluster "$version" "$cluster" start >/dev/null 2>&1 9<&- ||
    fail "pg_ctlcluster $version $cluster start failed (see $log)"
fi

ready=no
for _ in $(seq 1 60); do
  if pg_isready -q -h 127.0.0.1 -p "$port"; then
    ready=yes
    break
  fi
  sleep 0.5
done
[ "$ready" = yes ] || fail "PostgreSQL $version/$cluster does not accept connections on 127.0.0.1:$port after 30 s (see $log)"

url="postgres://arena:arena@127.0.0.1:$port/arena_test?sslmode=disable"
can_log_in() {
  PGPASSWORD=arena psql -X -q -h 127.0.0.1 -p "$port" -U arena -d arena_test -c 'SELECT 1' >/dev/null 2>&1
}
if can_log_in; then
  echo "$url"
  exit 0
fi

# Role and database, created only when absent. The role is (re)granted what the
# tests need in case an older setup made it differently.
psql_admin() {
  if [ "$(id -u)" -eq 0 ]; then
    runuser -u postgres -- psql -X -q -v ON_ERROR_STOP=1 -p "$port" "$@"
  else
    psql -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$port" -U postgres "$@"
  fi
}
psql_admin -d postgres >/dev/null 2>/tmp/arena-postgres-sql.log <<'SQL' || fail "creating the role arena and the database arena_test failed: $(tail -n 1 /tmp/arena-postgres-sql.log)"
SELECT 'CREATE ROLE arena' WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'arena') \gexec
ALTER ROLE arena LOGIN CREATEDB PASSWORD 'arena';
SELECT 'CREATE DATABASE arena_test OWNER arena' WHERE NOT EXISTS (SELECT FROM pg_database WHERE datname = 'arena_test') \gexec
SQL

can_log_in || fail "cannot log in as arena to arena_test on 127.0.0.1:$port with a password (check pg_hba.conf)"
echo "$url"
