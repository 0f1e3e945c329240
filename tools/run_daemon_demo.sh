#!/bin/sh
# The daemon part of `make run`: start `czk daemon` on a private unix socket with a synthetic
# PoRep-shaped circuit, run `czk bench` with multi-partition jobs against it, print the
# throughput, and stop the daemon with SIGTERM (it drains and exits 0). The daemon's log is
# kept in LOG when given (`make run` keeps it in build/daemon-demo.log), else dropped.
#
#   tools/run_daemon_demo.sh <czk binary> [K] [COUNT] [INFLIGHT] [PARTITIONS] [LOG]
set -eu
czk=$1
k=${2:-12}
count=${3:-20}
inflight=${4:-4}
parts=${5:-10}
log=${6:-}
dir=$(mktemp -d)
sock="unix://$dir/czk.sock"
"$czk" daemon --listen "$sock" --status-listen "" --synthetic "porep$k=$k" 2>"$dir/daemon.log" &
pid=$!
cleanup() {
    kill -TERM "$pid" 2>/dev/null || true
    [ -z "$log" ] || cp "$dir/daemon.log" "$log" 2>/dev/null || true
    rm -rf "$dir"
}
trap cleanup EXIT
# Wait for the socket (the daemon makes the circuit's dev key on first use, not at start).
i=0
while [ ! -S "$dir/czk.sock" ] && [ $i -lt 100 ]; do
    sleep 0.1
    i=$((i + 1))
done
echo "czk daemon (pid $pid) on $sock: $count jobs of $parts partitions (2^$k constraints" \
    "each), $inflight in flight"
"$czk" bench --addr "$sock" -c "$count" -j "$inflight" --circuit "porep$k" --partitions "$parts" |
    tail -n 4
kill -TERM "$pid"
status=0
wait "$pid" || status=$?
trap - EXIT
echo "daemon stopped (exit $status); its last log lines:"
tail -n 3 "$dir/daemon.log"
[ -z "$log" ] || cp "$dir/daemon.log" "$log"
rm -rf "$dir"
exit "$status"
