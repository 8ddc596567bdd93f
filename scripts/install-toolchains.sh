#!/bin/sh
# install-toolchains.sh: installs the Debian packages the tests build with,
# then checks that each build the tests do really works here, so that a
# missing piece fails now, with one line, instead of as a failed or skipped
# test later. Go itself is not installed here: it comes with the machine
# (/usr/local/go).
#
# Debian 12 (bookworm). Idempotent: installs only what is missing, runs
# apt-get update at most once. Needs root (or sudo) only when something is
# missing.
#
# Who needs what (keep this list in step with the tests):
#   cc (gcc, libc6-dev)        bot/potmbot: contest entries built with cc;
#                              go test -race (the race detector needs cgo)
#   clang, lld, wasi-libc,     sandbox, sandbox/meter, internal/kits: C bots built
#   libclang-rt-14-dev-wasm32  with clang --target=wasm32-wasi --sysroot=/usr
#   libclang-rt-14-dev         sdk: the C reader probe is built natively with
#                              -fsanitize=address,undefined (x86_64 runtimes)
#   rustc                      sdk, internal/kits: native Rust builds (/usr/bin/rustc;
#                              a rustup toolchain, if any, is not used because
#                              it has no wasm32-wasi target here)
#   libstd-rust-dev-wasm32     sandbox/meter, internal/kits: rustc --target wasm32-wasi
#   ca-certificates            go: module downloads from the Go module proxy
#
# A bot writer who wants one kit's toolchain only: `install-toolchains.sh c`
# (clang, lld, wasi-libc, the wasm32 runtime) or `install-toolchains.sh rust`
# (rustc and its wasm32 standard library); only that build is checked.
set -eu

only=${1:-}
case $only in
"") ;;
c) packages="clang lld wasi-libc libclang-rt-14-dev-wasm32" ;;
rust) packages="rustc libstd-rust-dev-wasm32" ;;
*)
	echo "usage: install-toolchains.sh [c|rust]   (no argument: everything the tests need)" >&2
	exit 2
	;;
esac
if [ -z "$only" ]; then
	packages="ca-certificates gcc libc6-dev clang lld wasi-libc libclang-rt-14-dev-wasm32 libclang-rt-14-dev rustc libstd-rust-dev-wasm32"
	packages="$packages iproute2" # internal/scaleout partition tests: ip netns, veth pairs (they need root: CAP_NET_ADMIN)
fi

fail() {
	echo "install-toolchains: $*" >&2
	exit 1
}

missing=""
for p in $packages; do
	status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	if [ "$status" != "install ok installed" ]; then
		missing="$missing $p"
	fi
done

if [ -n "$missing" ]; then
	as_root=""
	if [ "$(id -u)" -ne 0 ]; then
		command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null ||
			fail "missing:$missing; run me as root (or with password-less sudo)"
		as_root="sudo -n"
	fi
	echo "install-toolchains: installing$missing"
	log=/tmp/arena-install-toolchains.log
	# Quiet unless something fails: then apt's own errors go into the one line.
	# shellcheck disable=SC2086 # word splitting of the package list is wanted
	if ! { $as_root env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 update -qq &&
		$as_root env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends $missing; } >"$log" 2>&1; then
		why=$(grep -E '^(E|Err):' "$log" | tr '\n' ' ' | cut -c1-400)
		fail "apt-get could not install$missing: ${why:-see $log} (full log: $log)"
	fi
fi

# Every build the tests do, on a one-line program, plus the files the tests
# look for before they build: if this passes, no test can skip or fail for
# want of a toolchain.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
check() {
	what=$1
	shift
	"$@" >"$tmp/out" 2>&1 || fail "$what does not work: $(tr '\n' ' ' <"$tmp/out" | cut -c1-300)"
}
printf '#include <stdio.h>\nint main(void){puts("ok");return 0;}\n' >"$tmp/t.c"
printf 'fn main(){println!("ok");}\n' >"$tmp/t.rs"
if [ "$only" != rust ]; then
	for f in /usr/bin/clang /usr/bin/wasm-ld /usr/include/wasm32-wasi/stdio.h /usr/lib/wasm32-wasi/libc.a; do
		[ -e "$f" ] || fail "$f is missing after the install"
	done
	ls /usr/lib/llvm-*/lib/clang/*/lib/wasi/libclang_rt.builtins-wasm32.a >/dev/null 2>&1 ||
		fail "clang's wasm32 runtime (libclang_rt.builtins-wasm32.a) is missing after the install"
	check "clang for wasm32-wasi" clang --target=wasm32-wasi --sysroot=/usr -O2 -o "$tmp/t-c.wasm" "$tmp/t.c"
fi
if [ "$only" != c ]; then
	for f in /usr/bin/rustc /usr/lib/rustlib/wasm32-wasi; do
		[ -e "$f" ] || fail "$f is missing after the install"
	done
	check "rustc for wasm32-wasi" /usr/bin/rustc --edition 2021 --target wasm32-wasi -O -o "$tmp/t-rs.wasm" "$tmp/t.rs"
fi
if [ -n "$only" ]; then
	echo "install-toolchains: ok, the $only kits' build works"
	exit 0
fi
check "cc (gcc)" cc -std=gnu89 -w -o "$tmp/t-cc" "$tmp/t.c" -lm
check "clang with AddressSanitizer" clang -O1 -fsanitize=address,undefined -fno-sanitize-recover=all -o "$tmp/t-asan" "$tmp/t.c"
check "a program built with AddressSanitizer" "$tmp/t-asan"
check "rustc (native)" /usr/bin/rustc --edition 2021 -O -o "$tmp/t-rs" "$tmp/t.rs"
check "a program built with rustc" "$tmp/t-rs"
echo "install-toolchains: ok ($(clang --version | head -n1); $(/usr/bin/rustc --version))"
