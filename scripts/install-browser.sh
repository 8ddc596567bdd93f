#!/bin/sh
# install-browser.sh: installs Debian's chromium, which the site's browser
# tests (internal/web, chromedp) drive headless. Idempotent: it does nothing
# when chromium is already there, and fails with one line when it cannot
# install it.
set -eu

if command -v chromium >/dev/null 2>&1; then
	exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
	echo "install-browser: chromium is missing; run me as root (apt-get install chromium)" >&2
	exit 1
fi
echo "install-browser: installing chromium"
export DEBIAN_FRONTEND=noninteractive
log=$(mktemp)
if ! { apt-get -o DPkg::Lock::Timeout=600 update -qq &&
	apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends chromium fonts-dejavu-core; } >"$log" 2>&1; then
	tail -n 20 "$log" >&2
	rm -f "$log"
	echo "install-browser: apt-get install chromium failed" >&2
	exit 1
fi
rm -f "$log"
command -v chromium >/dev/null 2>&1 || { echo "install-browser: chromium still not on PATH after install" >&2; exit 1; }
