#!/usr/bin/env bash
# Builds the driver of the public Dots and Boxes engine that
# docs/bots-strength.md ("Against a public engine") plays: Dabble's search as
# ported in a fork of KSquares, compiled alone with g++, with qt-standin.h in
# place of the Qt and KSquares headers it includes, and driver.cpp speaking
# the protocol of scripts/dnb-engine-adapter.py. The engine's sources stay
# in the checkout you fetched; they are copied into a scratch folder only,
# and the binary is written outside the repository.
#
# Usage: scripts/dnb-engine/build.sh KSQUARES [OUTPUT]
#   KSQUARES: a checkout of the fork at the commit the doc measured:
#     git clone https://github.com/ofenrohr/ksquares
#     git -C ksquares checkout 3376c69a
#   OUTPUT: the driver binary (default ${TMPDIR:-/tmp}/dnb-engine/driver),
#     outside the repository. Its path is printed.
# Then: OUTPUT LEAVES SEED (driver.cpp says what they mean).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
checkout=${1:?usage: scripts/dnb-engine/build.sh KSQUARES [OUTPUT]}
out=$(realpath -m "${2:-${TMPDIR:-/tmp}/dnb-engine/driver}")
case $out/ in
"$repo"/*) echo "build.sh: $out is inside the repository; write the binary elsewhere" >&2; exit 2 ;;
esac

# The engine's two files, by their git blob hashes at 3376c69a: another
# version builds, but its figures are not the doc's.
declare -A blob=([dbgame-nohash.cpp]=6cbc2bbbc2d90adb6cf155ef2a5afa62e000c667 [dbgame-nohash.h]=97a4936c204190d763cbd4a62805cfa516e69108)
for f in dbgame-nohash.cpp dbgame-nohash.h; do
  if [[ ! -f $checkout/src/$f ]]; then
    echo "build.sh: no $checkout/src/$f: KSQUARES is a checkout of github.com/ofenrohr/ksquares" >&2
    exit 2
  fi
  if [[ $(git hash-object "$checkout/src/$f") != "${blob[$f]}" ]]; then
    echo "build.sh: warning: src/$f is not the version of commit 3376c69a" >&2
  fi
done

build=$(mktemp -d)
trap 'rm -rf "$build"' EXIT
cp "$checkout/src/dbgame-nohash.cpp" "$checkout/src/dbgame-nohash.h" "$build/"
mkdir "$build/include"
for h in QString QList QElapsedTimer QTimer QDebug aicontroller.h board.h; do
  echo "#include \"$here/qt-standin.h\"" >"$build/include/$h"
done
# -Dleaves: the engine's leaf count becomes a call of the driver's
# leaf_counter, which stops the search on leaves (driver.cpp). The engine
# saves pointers through int pointers to undo them: no strict aliasing.
flags=(-std=c++14 -O2 -fno-strict-aliasing "-Dleaves=(*leaf_counter())" -I"$build/include" -I"$build")
g++ "${flags[@]}" -w -c "$build/dbgame-nohash.cpp" -o "$build/engine.o"
g++ "${flags[@]}" -Wall -Wno-parentheses -c "$here/driver.cpp" -o "$build/driver.o"
mkdir -p "$(dirname "$out")"
# --wrap=srand: the engine's srand call reaches the driver, which seeds
# with SEED instead of the clock.
g++ -o "$out" "$build/engine.o" "$build/driver.o" -Wl,--wrap=srand
echo "$out"
