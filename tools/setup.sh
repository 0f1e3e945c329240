#!/bin/sh
# Installs what building and testing czk needs on Debian 12, as root, and the npm test tools
# into tests/noble/node_modules (ignored by git). Safe to run again: it installs only what is
# missing, so a prepared machine pays nothing.
#
#   tools/setup.sh        what `make test` needs: build packages, test packages, npm tools
#   tools/setup.sh run    what `make run` needs: the build packages alone
set -eu
cd "$(dirname "$0")/.."
mode=${1:-test}

need=""
have_cmd() { command -v "$1" >/dev/null 2>&1; }
have_pkg() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'; }

# Building czk and its daemon.
for p in build-essential cmake pkg-config libjson-c-dev libssl-dev \
    libgrpc++-dev libprotobuf-dev protobuf-compiler protobuf-compiler-grpc \
    libmicrohttpd-dev libtomlplusplus-dev libsystemd-dev; do
    have_pkg "$p" || need="$need $p"
done
if [ "$mode" != run ]; then
    # The tests: clang for the fuzz targets, clang-format for the lint check, grpcio for the
    # daemon's tests in Python, openssl for their TLS certificates.
    for p in clang libclang-rt-14-dev clang-format python3-grpcio python3-grpc-tools openssl; do
        have_pkg "$p" || need="$need $p"
    done
    # Node.js: any installed node >= 20 will do (the machine may carry NodeSource's
    # package); otherwise take Debian's.
    if ! have_cmd node || ! have_cmd npm; then
        need="$need nodejs npm"
    fi
fi
if [ -n "$need" ]; then
    if [ "$(id -u)" != 0 ]; then
        echo "setup: missing packages:$need (run as root, or install them)" >&2
        exit 1
    fi
    echo "setup: apt-get install$need (once; a few minutes, most of it downloading)"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    # shellcheck disable=SC2086
    apt-get install -y -qq --no-install-recommends $need >/dev/null
fi

[ "$mode" != run ] || exit 0
# npm test tools, one folder each, installed exactly as their lock files say. A stamp holding
# the lock file's hash skips the install when nothing changed.
for dir in tests/noble tests/snarkjs; do
    want=$(sha256sum "$dir/package-lock.json" | cut -d' ' -f1)
    got=$(cat "$dir/node_modules/.czk-stamp" 2>/dev/null || true)
    if [ "$want" != "$got" ]; then
        echo "setup: npm ci in $dir (the test tools; about a minute)"
        (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error)
        echo "$want" >"$dir/node_modules/.czk-stamp"
    fi
done
