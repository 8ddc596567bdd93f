#!/usr/bin/env bash
# fresh-machine.sh: proves that the README's commands are all a new machine
# needs. It builds a clean Debian 12 (bookworm) root file system with
# debootstrap from the package mirror this machine uses, copies in this
# machine's Go toolchain and Go settings and a clean clone of the repository,
# then runs, inside a chroot, only the commands of the README's "Two
# commands" section, in order, and says PASS or FAIL. docs/development.md
# says what it proves and what it does not.
#
#   scripts/fresh-machine.sh [REF]     REF: a commit of this repository (HEAD)
#
# Needs root, debootstrap (installed if missing) and a few GB in /var/tmp.
# Environment:
#   ARENA_FRESH_CACHE    where the debootstrap tarball is kept between runs
#                        (/var/cache/arena-fresh-machine); delete it, or set
#                        ARENA_FRESH_REFRESH=1, to download the packages anew
#   ARENA_FRESH_KEEP=1   keep the root file system afterwards (its path is
#                        printed), to look around with chroot
#   ARENA_FRESH_MAIN_SECONDS  how long the README's main-job command may run
#                        before it counts as hung, unless it listens on a
#                        TCP port as a server does (1800)
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
ref=${1:-HEAD}
suite=bookworm
cache=${ARENA_FRESH_CACHE:-/var/cache/arena-fresh-machine}
main_seconds=${ARENA_FRESH_MAIN_SECONDS:-1800}
start=$(date +%s)

say() { echo "fresh-machine: $*"; }
fail() {
	echo "fresh-machine: $*" >&2
	exit 1
}
elapsed() {
	local s=$(($(date +%s) - start))
	printf '%dm%02ds' $((s / 60)) $((s % 60))
}

[ "$(id -u)" -eq 0 ] || fail "needs root (debootstrap, mount, chroot)"

# Everything below runs in a mount namespace of its own: the root file
# system's mounts (below) are made there, never leak onto this machine, and
# go when the script ends, however it ends.
if [ -z "${ARENA_FRESH_NAMESPACE:-}" ]; then
	command -v unshare >/dev/null || fail "needs unshare (util-linux)"
	ARENA_FRESH_NAMESPACE=1 exec unshare --mount --propagation private -- "$0" "$@"
fi
sha=$(git -C "$repo" rev-parse --verify --quiet "$ref^{commit}") || fail "no commit $ref in $repo"
goroot=$(go env GOROOT 2>/dev/null) || fail "no Go toolchain on PATH to copy in"

# The Debian mirror this machine installs from: the first URI of an enabled
# deb822 source (or one-line sources.list entry) for the suite itself.
mirror=$(
	{
		for f in /etc/apt/sources.list.d/*.sources; do
			[ -e "$f" ] || continue
			awk -v suite="$suite" '
				function flush() { if (deb && uri != "" && (" " suites " ") ~ (" " suite " ")) { print uri; exit } deb = 0; uri = ""; suites = "" }
				/^[ \t]*$/ { flush(); next }
				/^Types:/ { for (i = 2; i <= NF; i++) if ($i == "deb") deb = 1 }
				/^URIs:/ { uri = $2 }
				/^Suites:/ { suites = ""; for (i = 2; i <= NF; i++) suites = suites " " $i }
				END { flush() }' "$f"
		done
		for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
			[ -e "$f" ] || continue
			awk -v suite="$suite" '$1 == "deb" { u = $2; s = $3; if ($2 ~ /^\[/) { for (i = 2; i <= NF && $i !~ /\]$/; i++); u = $(i + 1); s = $(i + 2) } if (s == suite) { print u; exit } }' "$f"
		done
	} | head -n1
)
[ -n "$mirror" ] || fail "found no Debian $suite source in /etc/apt/sources.list*"

if ! command -v debootstrap >/dev/null; then
	say "installing debootstrap"
	{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap; } \
		>/tmp/arena-fresh-debootstrap.log 2>&1 || fail "cannot install debootstrap (log: /tmp/arena-fresh-debootstrap.log)"
fi

work=$(mktemp -d /var/tmp/arena-fresh.XXXXXX)
root=$work/root
mounts=()

# Leaves no mount and no process behind, whatever happened; removes the root
# file system only once nothing is mounted under it any more.
cleanup() {
	local rc=$? pid link i
	trap - EXIT INT TERM
	# Background steps run in process groups of their own: end each whole.
	for pid in $(jobs -p); do
		kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true
	done
	# Processes still running inside the chroot (a server a setup script
	# started, say) would keep the mounts busy: end them, by id.
	for link in /proc/[0-9]*/root; do
		[ "$(readlink "$link" 2>/dev/null)" = "$root" ] || continue
		pid=${link#/proc/}
		pid=${pid%/root}
		kill -TERM "$pid" 2>/dev/null || true
	done
	sleep 1
	for pid in $(jobs -p); do
		kill -KILL -- "-$pid" 2>/dev/null || true
	done
	for link in /proc/[0-9]*/root; do
		[ "$(readlink "$link" 2>/dev/null)" = "$root" ] || continue
		pid=${link#/proc/}
		pid=${pid%/root}
		kill -KILL "$pid" 2>/dev/null || true
	done
	for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do
		umount -R "${mounts[i]}" 2>/dev/null || umount -R -l "${mounts[i]}" 2>/dev/null || true
	done
	# debootstrap mounts /proc and /sys itself while it runs: an interrupted
	# one leaves them.
	{ grep " $work/" /proc/mounts || true; } | cut -d' ' -f2 | sort -r | while read -r m; do
		umount -l "$m" 2>/dev/null || true
	done
	if grep -q " $work/" /proc/mounts; then
		echo "fresh-machine: still mounted under $work, left in place: $(grep " $work/" /proc/mounts | cut -d' ' -f2 | tr '\n' ' ')" >&2
	elif [ "${ARENA_FRESH_KEEP:-}" = 1 ]; then
		echo "fresh-machine: kept the root file system: $root" >&2
	else
		rm -rf "$work" 2>/dev/null || { sleep 2; rm -rf "$work"; }
	fi
	exit "$rc"
}
trap cleanup EXIT
trap 'echo "fresh-machine: interrupted" >&2; exit 130' INT TERM

# 1. A clean Debian 12: debootstrap's minimal variant (the Essential
# packages and apt) and the CA certificates, which every machine has and Go
# needs to reach the module proxy; nothing more. The downloaded packages are
# kept as a tarball so that a second run needs no download for this step.
# (Long steps run in the background and are waited for, so that an
# interrupt reaches the trap at once.)
variant=minbase
include=ca-certificates
tarball=$cache/$suite-$variant-$include-$(dpkg --print-architecture).tgz
if [ "${ARENA_FRESH_REFRESH:-}" = 1 ] || [ ! -s "$tarball" ]; then
	say "downloading Debian $suite ($variant) from $mirror into $tarball"
	mkdir -p "$cache"
	setsid debootstrap --variant="$variant" --include="$include" --make-tarball="$tarball.part" "$suite" "$work/debs" "$mirror" \
		>"$work/debootstrap.log" 2>&1 &
	wait $! || { tail -n 20 "$work/debootstrap.log" >&2; fail "debootstrap --make-tarball failed"; }
	mv "$tarball.part" "$tarball"
	rm -rf "$work/debs"
fi
say "debootstrap $suite into $root"
setsid debootstrap --variant="$variant" --include="$include" --unpack-tarball="$tarball" "$suite" "$root" "$mirror" \
	>"$work/debootstrap.log" 2>&1 &
wait $! || { tail -n 20 "$work/debootstrap.log" >&2; fail "debootstrap failed"; }

# 2. What a new machine of this kind has besides Debian: apt set up as here
# (sources, their keys, options), name resolution, Go at /usr/local/go, the
# Go settings of this machine's go env file and GO* environment.
cp /etc/resolv.conf /etc/hosts "$root/etc/"
rm -f "$root/etc/apt/sources.list"
for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.sources /etc/apt/sources.list.d/*.list; do
	[ -s "$f" ] || continue
	mkdir -p "$root$(dirname "$f")"
	cp "$f" "$root$f"
	for key in $(sed -n 's/^Signed-By:[ \t]*\(\/.*\)/\1/p; s/.*signed-by=\([^] ]*\).*/\1/p' "$f"); do
		if [ -e "$key" ]; then
			mkdir -p "$root$(dirname "$key")"
			cp "$key" "$root$key"
		fi
	done
done
for f in /etc/apt/apt.conf.d/*; do
	[ -e "$root$f" ] || cp "$f" "$root$f"
done
# The local certificate authorities this machine trusts, which its network
# may need for HTTPS (Go's module downloads), join the chroot's trust store.
if [ -d /usr/local/share/ca-certificates ]; then
	mkdir -p "$root/usr/local/share/ca-certificates"
	cp -a /usr/local/share/ca-certificates/. "$root/usr/local/share/ca-certificates/"
	chroot "$root" /usr/sbin/update-ca-certificates >/dev/null 2>&1 || fail "update-ca-certificates failed in the chroot"
fi
mkdir -p "$root/usr/local"
cp -a "$goroot" "$root/usr/local/go"
goenv=$(go env GOENV)
if [ -f "$goenv" ]; then
	mkdir -p "$root/root/.config/go"
	cp "$goenv" "$root/root/.config/go/env"
fi
envs=(HOME=/root LANG=C.UTF-8 CI=true
	PATH=/usr/local/go/bin:/root/go/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin)

# No init system runs in a chroot: a package's install must not start its
# service (it could not, or would collide with this machine's own); the
# setup scripts of scripts/test.sh start what the tests need, as on a new
# machine, where such services are installed but not running.
printf '#!/bin/sh\n# fresh-machine.sh: services are started by the project'"'"'s scripts\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
chmod 755 "$root/usr/sbin/policy-rc.d"

# The chroot shares this machine's network, where a PostgreSQL of its own
# may hold the default port: scripts/postgres.sh gets a cluster and a port
# of its own here (its ARENA_PG_CLUSTER and ARENA_PG_PORT).
pg_port=${ARENA_FRESH_PG_PORT:-55432}
if (exec 3<>"/dev/tcp/127.0.0.1/$pg_port") 2>/dev/null; then
	fail "port $pg_port is in use on this machine: set ARENA_FRESH_PG_PORT to a free one"
fi
envs+=(ARENA_PG_CLUSTER=fresh "ARENA_PG_PORT=$pg_port")
while IFS= read -r v; do envs+=("$v"); done < <(env | grep -E '^GO[A-Z0-9_]*=' | grep -vE '^GO(ROOT|PATH)=' || true)

# 3. A clean clone of the commit, with shared/ beside it as CI has it.
git clone -q "$repo" "$root/src/arena"
git -C "$root/src/arena" checkout -q --detach "$sha"
if [ -d "$repo/../shared" ]; then
	cp -a "$repo/../shared" "$root/src/shared"
fi

# 4. The mounts a running system has. The root is a mount point first, as
# on a real machine: tools that change the propagation of "/" (`ip netns`
# and `ip -n` do, for the network-namespace tests) fail in a plain chroot,
# where "/" is only a directory of the host's file system.
mount --bind "$root" "$root" && mounts+=("$root")
mount -t proc proc "$root/proc" && mounts+=("$root/proc")
mount -t sysfs sysfs "$root/sys" && mounts+=("$root/sys")
mount --rbind /dev "$root/dev" && mounts+=("$root/dev")
mount --make-rslave "$root/dev"

# The main job runs in its own process group (so that a server and all its
# children end) until it exits, or until one of its processes listens on a
# TCP port (a server that started: it then has 10 s to stay up), or for at
# most $2 seconds (then it hangs: a failure).
cat >"$root/fresh-main.sh" <<'MAIN'
cd /src/arena
setsid /bin/bash -c "$1" </dev/null &
group=$!
listening() {
	local p s l inodes=" "
	for p in /proc/[0-9]*; do
		s=$(cat "$p/stat" 2>/dev/null) || continue
		s=${s##*) }
		set -- $s
		[ "$3" = "$group" ] || continue
		for l in "$p"/fd/*; do
			l=$(readlink "$l" 2>/dev/null) || continue
			case $l in socket:*) inodes="$inodes${l//[^0-9]/} " ;; esac
		done
	done
	awk -v inodes="$inodes" '$4 == "0A" && index(inodes, " " $10 " ") { found = 1 } END { exit !found }' \
		/proc/net/tcp /proc/net/tcp6 2>/dev/null
}
for ((i = 0; i < $2; i++)); do
	kill -0 "$group" 2>/dev/null || { wait "$group"; exit; }
	if listening; then
		sleep 10
		kill -0 "$group" 2>/dev/null || { echo "(the server stopped within 10 s of listening)"; wait "$group"; exit 1; }
		echo "(listening on a TCP port: taken as a server that started; stopping it)"
		kill -TERM -- "-$group" 2>/dev/null; sleep 2; kill -KILL -- "-$group" 2>/dev/null
		exit 0
	fi
	sleep 1
done
echo "(neither done nor listening after $2 s)"
kill -KILL -- "-$group" 2>/dev/null
exit 1
MAIN

# 5. Only the README's commands: each fenced block of its "Two commands"
# section, in order. The test command (scripts/test.sh) must pass; any other
# (the main job) must succeed, or listen on a TCP port as a server does.
bash "$root/src/arena/scripts/readme-commands.sh" --check "$root/src/arena/README.md" || fail "FAIL: the README's section is not two commands"
mapfile -d '' commands < <(bash "$root/src/arena/scripts/readme-commands.sh" "$root/src/arena/README.md")

result=0
for cmd in "${commands[@]}"; do
	say "$(elapsed) running: $(echo "$cmd" | tr '\n' ' ')"
	# In the background and waited for, so that an interrupt reaches the
	# trap at once (cleanup then ends what runs in the chroot).
	if [[ "$cmd" == *scripts/test.sh* ]]; then
		chroot "$root" /usr/bin/env -i "${envs[@]}" /bin/bash -c "cd /src/arena && $cmd" </dev/null &
	else
		chroot "$root" /usr/bin/env -i "${envs[@]}" /bin/bash /fresh-main.sh "$cmd" "$main_seconds" </dev/null &
	fi
	wait $! || result=$?
	if [ "$result" -ne 0 ]; then
		fail "FAIL after $(elapsed): exit $result from: $(echo "$cmd" | tr '\n' ' ')(commit $sha)"
	fi
done
say "PASS in $(elapsed): the README's commands on a clean Debian $suite, commit $sha"
