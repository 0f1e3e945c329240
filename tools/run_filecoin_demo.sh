#!/bin/sh
# The Filecoin part of `make run`: what czk exists for, end to end on 2 KiB sectors. Makes the
# development keys once (cached in KEYS: a second run reuses them), starts `czk daemon` on a
# private unix socket with KEYS as its parameter directory, and sends it, as Curio sends them
# (the same request fields and ids):
#   - a WinningPoSt and a WindowPoSt partition, from vanilla proofs `czk post gen` makes;
#   - a PoRep C2, from the C1 output of a 2 KiB sector `czk c2 gen` seals just now;
#   - a SnapDeals update proof, from the partition proof of an update `czk snap gen` makes of
#     a 2 KiB committed-capacity sector it seals;
# each proof is then checked by the czk command against the public data alone, and its time
# printed. The daemon is stopped with SIGTERM (it drains and exits 0); its log is kept in LOG
# when given.
#
#   tools/run_filecoin_demo.sh <czk binary> <keys dir> [LOG]
set -eu
czk=$1
keys=$2
log=${3:-}
dir=$(mktemp -d)
sock="unix://$dir/czk.sock"
pid=
cleanup() {
    [ -z "$pid" ] || kill -TERM "$pid" 2>/dev/null || true
    [ -z "$log" ] || cp "$dir/daemon.log" "$log" 2>/dev/null || true
    rm -rf "$dir"
}
trap cleanup EXIT
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

# Keys, once: a stamp per kind is written only after `czk setup` succeeded.
mkdir -p "$keys"
for kind in winning-post window-post porep snap; do
    if [ ! -f "$keys/.$kind-2KiB.done" ]; then
        t0=$(now)
        "$czk" setup --filecoin "$kind" 2KiB --out "$keys" --seed 1 >"$dir/setup.log" 2>&1 ||
            { cat "$dir/setup.log"; exit 1; }
        touch "$keys/.$kind-2KiB.done"
        echo "keys: $kind 2KiB made in $(since "$t0") s (cached in $keys)"
    else
        echo "keys: $kind 2KiB cached in $keys"
    fi
done

"$czk" daemon --listen "$sock" --status-listen "" --set "srs.param_cache=$keys" \
    2>"$dir/daemon.log" &
pid=$!
i=0
while [ ! -S "$dir/czk.sock" ] && [ $i -lt 100 ]; do
    sleep 0.1
    i=$((i + 1))
done
echo "czk daemon (pid $pid) on $sock, keys from $keys"

# One request through the daemon, then its check: prints "WHAT: proved in X s through the
# daemon (job ID), verified in Y s".
prove() {
    what=$1
    proof=$2
    shift 2
    t0=$(now)
    "$czk" submit --addr "$sock" "$@" --wait --out "$proof" >"$dir/submit.log" 2>&1 ||
        { cat "$dir/submit.log"; exit 1; }
    took=$(since "$t0")
    job=$(sed -n 's/^job \(.*\) queue_position=.*/\1/p' "$dir/submit.log" | head -n 1)
    printf '%s: proved in %s s through the daemon (job %s)' "$what" "$took" "$job"
}
verified() {
    t0=$(now)
    "$@" >"$dir/verify.log" 2>&1 || { echo; cat "$dir/verify.log"; exit 1; }
    echo ", verified in $(since "$t0") s"
}

"$czk" post gen winning-post 2KiB --out "$dir/win" --seed 11 --miner-id 1000 >/dev/null
prove "WinningPoSt 2KiB" "$dir/win.proof" --post "$dir/win/post.pub.json"
verified "$czk" post verify "$dir/win/post.pub.json" "$dir/win.proof" --params "$keys"

"$czk" post gen window-post 2KiB --out "$dir/wd" --sectors 2 --seed 12 --miner-id 1000 \
    >/dev/null
prove "WindowPoSt 2KiB, 2 sectors" "$dir/wd.proof" --post "$dir/wd/post.pub.json"
verified "$czk" post verify "$dir/wd/post.pub.json" "$dir/wd.proof" --params "$keys"

t0=$(now)
"$czk" c2 gen 2KiB --out "$dir/c1.json" --wrap --miner-id 1000 --sector-id 7 --seed 13 \
    >/dev/null
echo "PoRep: a 2 KiB sector sealed, its C1 output in Curio's wrapper, in $(since "$t0") s"
prove "PoRep C2 2KiB" "$dir/porep.proof" --c1 "$dir/c1.json" --miner-id 1000 --sector-id 7
verified "$czk" c2 verify --c1 "$dir/c1.json" "$dir/porep.proof" --params "$keys" \
    --miner-id 1000 --sector-id 7

t0=$(now)
"$czk" snap gen 2KiB --out "$dir/snap" --miner-id 1000 --sector-id 7 --seed 14 >/dev/null
echo "SnapDeals: a 2 KiB CC sector sealed and updated, its vanilla proof made, in $(since "$t0") s"
prove "SnapDeals 2KiB" "$dir/snap.proof" --snap "$dir/snap"
verified "$czk" snap verify "$dir/snap" "$dir/snap.proof" --params "$keys"

kill -TERM "$pid"
status=0
wait "$pid" || status=$?
pid=
echo "daemon stopped (exit $status)"
exit "$status"
