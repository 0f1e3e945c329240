#!/bin/sh
# The install_tree test: `cmake --install` of a build tree into a scratch DESTDIR, as a
# package build does, then checks that czk and (with the daemon) the systemd unit landed
# under the prefix, that the installed czk runs, and that the unit names that czk. Where
# systemd-analyze exists the unit is verified too, from a second install whose prefix is a
# real directory (verify insists that ExecStart's program exists).
#
#   dist/check_install.sh <cmake> <build dir> <daemon built: 1 or 0>
set -eu
cmake=$1
build=$2
daemon=$3
prefix=/usr/local
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() {
    echo "install_tree: $*" >&2
    exit 1
}

DESTDIR="$tmp/dest" "$cmake" --install "$build" --prefix "$prefix" >"$tmp/install.log" ||
    fail "cmake --install failed: $(cat "$tmp/install.log")"
root="$tmp/dest$prefix"
[ -x "$root/bin/czk" ] || fail "no executable $root/bin/czk"
version=$("$root/bin/czk" version) || fail "the installed czk does not run"
echo "install_tree: $prefix/bin/czk runs: $version"
if [ "$daemon" = 1 ]; then
    unit="$root/lib/systemd/system/czk.service"
    [ -f "$unit" ] || fail "no $unit"
    [ -f "$root/lib/sysusers.d/czk.conf" ] || fail "no sysusers.d/czk.conf"
    grep -qx "ExecStart=$prefix/bin/czk daemon --config /etc/czk/czk.toml" "$unit" ||
        fail "the unit's ExecStart does not name $prefix/bin/czk"
    # The example config is one the daemon accepts: it starts from it (on a socket here
    # instead of /run/czk's, which needs the service) and stops cleanly on SIGTERM.
    conf="$root/share/doc/czk/czk.toml.example"
    [ -f "$conf" ] || fail "no $conf"
    "$root/bin/czk" daemon --config "$conf" --listen "unix://$tmp/czk.sock" \
        --status-listen "" 2>"$tmp/daemon.log" &
    pid=$!
    i=0
    while [ ! -S "$tmp/czk.sock" ] && [ $i -lt 300 ] && kill -0 "$pid" 2>/dev/null; do
        sleep 0.1
        i=$((i + 1))
    done
    [ -S "$tmp/czk.sock" ] || {
        kill -TERM "$pid" 2>/dev/null || true
        fail "czk daemon did not start from $conf: $(cat "$tmp/daemon.log")"
    }
    kill -TERM "$pid"
    wait "$pid" || fail "czk daemon exited with $? on SIGTERM: $(cat "$tmp/daemon.log")"
    echo "install_tree: czk daemon starts from the example config and stops on SIGTERM"
    if command -v systemd-analyze >/dev/null 2>&1; then
        real="$tmp/real"
        "$cmake" --install "$build" --prefix "$real" >>"$tmp/install.log" ||
            fail "cmake --install --prefix $real failed"
        # User=czk need not exist here. verify exits 0 on a line it ignores ("Failed to parse
        # service type, ignoring"), so any complaint naming the unit's file fails the test;
        # other lines (about the host's own units) are only shown.
        out=$(systemd-analyze verify "$real/lib/systemd/system/czk.service" 2>&1) ||
            fail "systemd-analyze verify: $out"
        if echo "$out" | grep -q 'czk\.service:'; then
            fail "systemd-analyze verify: $out"
        fi
        [ -z "$out" ] || echo "$out" | sed 's/^/install_tree: systemd-analyze: /'
        echo "install_tree: systemd-analyze verify passed"
    else
        echo "install_tree: systemd-analyze not found; unit not verified"
    fi
fi
echo "install_tree: ok"
