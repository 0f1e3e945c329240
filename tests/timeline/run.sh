#!/bin/sh
# czk timeline on a captured daemon log, without a daemon. Run by ctest
# (tests/timeline/ctest.cmake):
#
#   run.sh <czk binary> <work dir> <tests/data/timeline>
#
# The log (daemon.log: a CPU daemon's stderr while `czk bench` ran six 3-partition jobs and two
# 1-partition CRITICAL jobs came in) must draw: exit 0, an SVG that parses (xmllint where it is
# installed), a lane per synthesis thread, worker and finalizer the lines name, a rect per
# span and the CRITICAL jobs' four ticks; the same from stdin; and the faults a user meets
# (no --log, a missing file, a log without partition lines, an output that cannot be
# written) exit 2 naming the fault. Fails on the first step that does not do what it should.
set -eu
czk=$1
work=$2
data=$3
w=$work/run
rm -rf "$w"
mkdir -p "$w"

step() { echo "--- $*"; }
fail() {
    echo "FAIL: $*" >&2
    exit 1
}
# expect CODE cmd...: runs cmd (stdout to $w/out, stderr to $w/err), fails unless it exits CODE.
expect() {
    want=$1
    shift
    set +e
    "$@" >"$w/out" 2>"$w/err"
    got=$?
    set -e
    cat "$w/out" "$w/err"
    [ "$got" = "$want" ] || fail "exit $got, wanted $want: $*"
}
# err_has TEXT: stderr of the last command holds TEXT, and no source location or status name.
err_has() {
    grep -qF -- "$1" "$w/err" || fail "stderr lacks '$1'"
    if grep -qE '\.c:[0-9]|CZK_E' "$w/err"; then fail "stderr shows internals"; fi
}
# count FILE TEXT: occurrences of TEXT in FILE.
count() { grep -oF -- "$2" "$1" | wc -l | tr -d ' '; }

step "the captured log draws"
expect 0 "$czk" timeline --log "$data/daemon.log" -o "$w/t.svg" --title "captured run"
grep -qF "wrote $w/t.svg: 20 partitions, 8 jobs" "$w/out" || fail "summary line"
svg=$w/t.svg
[ -s "$svg" ] || fail "no SVG"
if command -v xmllint >/dev/null 2>&1; then
    xmllint --noout "$svg" || fail "the SVG does not parse"
fi
head -c 5 "$svg" | grep -qF "<?xml" || fail "no XML declaration"
tail -n 1 "$svg" | grep -qxF "</svg>" || fail "not closed by </svg>"
for lane in "synth 0" "synth 1" "synth 2" "worker 0 · cpu" "worker 1 · cpu" "finalizer 0"; do
    [ "$(count "$svg" ">$lane</text>")" = 1 ] || fail "lane label '$lane' not there once"
done
[ "$(count "$svg" '<rect class="lane"')" = 6 ] || fail "not 6 lanes"
# 20 partitions: each a synthesis, a verification and at least two steps of its kernel region.
rects=$(count "$svg" '<rect class="k')
[ "$rects" -ge $((7 + 20 * 4)) ] || fail "$rects rects"
[ "$(count "$svg" '<g><line class="mark')" = 4 ] || fail "not 4 CRITICAL ticks"
[ "$(count "$svg" '<g><line class="mark sub"')" = 2 ] || fail "not 2 submit ticks"
grep -qF "winpost-1000-a1b2c3d4</text>" "$svg" || fail "no tick label"
grep -qF "kernel regions busy: cpu " "$svg" || fail "no device busy share"
grep -qF "<title>MSMs: job winpost-1000-e5f60718 part 0 (CRITICAL) on cpu" "$svg" ||
    fail "no tooltip on the CRITICAL job's MSMs"

step "the same from stdin"
expect 0 "$czk" timeline --log - -o "$w/s.svg" --title "captured run" <"$data/daemon.log"
cmp -s "$w/t.svg" "$w/s.svg" || fail "stdin drew another picture"

step "faults"
expect 2 "$czk" timeline -o "$w/x.svg"
err_has "--log and -o are required"
expect 2 "$czk" timeline --log "$w/missing.log" -o "$w/x.svg"
err_has "missing.log"
printf '2026-01-01T00:00:00.000Z info czk daemon: ready\n' >"$w/empty.log"
expect 2 "$czk" timeline --log "$w/empty.log" -o "$w/x.svg"
err_has "no partition lines"
expect 2 "$czk" timeline --log "$data/daemon.log" -o "$w/no/such/dir/x.svg"
err_has "x.svg"
[ ! -e "$w/x.svg" ] || fail "an SVG after a failure"
expect 2 "$czk" timeline --log
err_has "bad argument"
expect 0 "$czk" timeline --help
grep -qF "usage: czk timeline" "$w/out" || fail "no usage"

echo "timeline: ok"
