#!/bin/sh
# Installs what building and testing czk needs on Debian 12, as root, and the npm test tools
# into tests/noble/node_modules (ignored by git). Safe to run again: it installs only what is
# missing, so a prepared machine pays nothing.
set -eu
cd "$(dirname "$0")/.."

need=""
have_cmd() { command -v "$1" >/dev/null 2>&1; }
have_pkg() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'; }

for p in build-essential cmake pkg-config clang libclang-rt-14-dev clang-format libjson-c-dev \
    libgrpc++-dev libprotobuf-dev protobuf-compiler protobuf-compiler-grpc python3-grpcio \
    python3-grpc-tools libmicrohttpd-dev libtomlplusplus-dev; do
    have_pkg "$p" || need="$need $p"
done
# Node.js: any installed node >= 20 will do (the machine may carry NodeSource's package);
# otherwise take Debian's.
if ! have_cmd node || ! have_cmd npm; then
    need="$need nodejs npm"
fi
if [ -n "$need" ]; then
    if [ "$(id -u)" != 0 ]; then
        echo "setup: missing packages:$need (run as root, or install them)" >&2
        exit 1
    fi
    echo "setup: apt-get install$need"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    # shellcheck disable=SC2086
    apt-get install -y -qq --no-install-recommends $need >/dev/null
fi

# npm test tools, one folder each, installed exactly as their lock files say. A stamp holding
# the lock file's hash skips the install when nothing changed.
for dir in tests/noble tests/snarkjs; do
    want=$(sha256sum "$dir/package-lock.json" | cut -d' ' -f1)
    got=$(cat "$dir/node_modules/.czk-stamp" 2>/dev/null || true)
    if [ "$want" != "$got" ]; then
        echo "setup: npm ci in $dir"
        (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error)
        echo "$want" >"$dir/node_modules/.czk-stamp"
    fi
done
