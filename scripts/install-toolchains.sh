#!/bin/sh
# install-toolchains.sh: installs the C and Rust toolchains that build the
# starter kits in examples/ for wasm (and natively). Go needs nothing extra.
#
# Run as root on Debian 12 (bookworm). Idempotent: it installs only the
# packages that are missing and runs apt-get update at most once.
#
#   C:    clang --target=wasm32-wasi --sysroot=/usr    (clang, lld, wasi-libc,
#         libclang-rt-14-dev-wasm32)
#   Rust: /usr/bin/rustc --target wasm32-wasi           (rustc 1.63 and
#         libstd-rust-dev-wasm32; a rustup toolchain, if any, is not used
#         because it has no wasm32-wasi target here)
set -eu

packages="clang lld wasi-libc libclang-rt-14-dev-wasm32 rustc libstd-rust-dev-wasm32"

missing=""
for p in $packages; do
	status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	if [ "$status" != "install ok installed" ]; then
		missing="$missing $p"
	fi
done

if [ -n "$missing" ]; then
	if [ "$(id -u)" -ne 0 ]; then
		echo "install-toolchains: missing:$missing; run me as root" >&2
		exit 1
	fi
	echo "install-toolchains: installing$missing"
	export DEBIAN_FRONTEND=noninteractive
	log=$(mktemp)
	# Quiet unless something fails: then the whole apt log is shown.
	# shellcheck disable=SC2086 # word splitting of the package list is wanted
	if ! { apt-get -o DPkg::Lock::Timeout=600 update -qq &&
		apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends $missing; } >"$log" 2>&1; then
		cat "$log" >&2
		rm -f "$log"
		echo "install-toolchains: apt-get failed" >&2
		exit 1
	fi
	rm -f "$log"
fi

# Check that both toolchains really build for wasm, so a broken install fails
# here rather than as skipped tests.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf 'int main(void){return 0;}\n' >"$tmp/t.c"
clang --target=wasm32-wasi --sysroot=/usr -O2 -o "$tmp/t-c.wasm" "$tmp/t.c"
printf 'fn main(){}\n' >"$tmp/t.rs"
/usr/bin/rustc --target wasm32-wasi -O -o "$tmp/t-rs.wasm" "$tmp/t.rs"
echo "install-toolchains: ok ($(clang --version | head -n1); $(/usr/bin/rustc --version))"
