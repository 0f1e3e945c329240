#!/bin/sh
# Checks the layering of doc/DESIGN.md §2 over every source of src/ (.c, .h, .cpp, .inc, .cu,
# .cuh):
#  - a file under src/<layer>/ may include only headers of its own layer or of layers to its
#    left (formats reads and writes the files of r1cs and groth16, so it sits right after them);
#    tests (*_test.c, *_test.cpp, *_fuzz.c, *_test_impl.inc) may use anything;
#  - poly and msm are peers: neither includes the other, tests neither;
#  - engine/engine_internal.h (the engine's private structures) is included only under
#    src/engine, so that nothing else, the CLI and the server included, reaches past
#    include/czk.h into the engine. bench/ and tests/ are checked for this rule too.
# Usage: tools/check_layers.sh [ROOT] (ROOT: the tree to check, default this repository;
# tools/check_layers_test.sh points it at a copy with planted violations). Exits 1 after
# naming every violation.
set -eu
if [ $# -gt 0 ]; then
    cd "$1"
else
    cd "$(dirname "$0")/.."
fi
order="util field curve pairing poly msm r1cs groth16 formats filecoin gpu engine kinds server cli"
# Sets r to the rank of layer $1 in $order, -1 if it is none (a variable, not output: a
# subshell per include made the check slow).
rank() {
    r=-1
    i=0
    for l in $order; do
        [ "$l" = "$1" ] && { r=$i; return; }
        i=$((i + 1))
    done
}
# The directories a file includes from, once each: `#include "dir/…"`, spaces allowed around
# the '#' (includes inside #if blocks are often indented).
included_dirs() {
    sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([a-z0-9_]*\)\/.*/\1/p' "$1" | sort -u
}
sources() {
    dirs=""
    for d in "$@"; do
        [ -d "$d" ] && dirs="$dirs $d"
    done
    # shellcheck disable=SC2086 # the directories' names have no spaces
    find $dirs -path '*/node_modules' -prune -o -type f \( -name '*.[ch]' -o -name '*.cpp' \
        -o -name '*.inc' -o -name '*.cu' -o -name '*.cuh' \) -print | sort
}
status=0
for f in $(sources src); do
    layer=${f#src/}
    layer=${layer%%/*}
    case "$f" in
    *_test.c | *_test.cpp | *_fuzz.c | *_test_impl.inc) is_test=1 ;;
    *) is_test=0 ;;
    esac
    rank "$layer"
    me=$r
    for inc in $(included_dirs "$f"); do
        # The peers' rule holds for tests too: a test of one would otherwise tie it to the
        # other's build.
        if { [ "$layer" = poly ] && [ "$inc" = msm ]; } || { [ "$layer" = msm ] && [ "$inc" = poly ]; }; then
            echo "peer violation: $f ($layer) includes $inc/: poly and msm are peers"
            status=1
            continue
        fi
        [ $is_test -eq 1 ] && continue # tests may use anything below them
        [ "$inc" = tests ] && continue
        # cuzk/: the gRPC code generated from proto/cuzk/, which only the server's adapter uses.
        [ "$inc" = cuzk ] && [ "$layer" = server ] && continue
        rank "$inc"
        if [ "$r" -lt 0 ] || [ "$r" -gt "$me" ]; then
            echo "layer violation: $f ($layer) includes $inc/"
            status=1
        fi
    done
done
# The engine's internals. bench/bench_engine.c is the one exception: a benchmark, not
# production code, it drives the engine's fault-injection hook
# (czk__engine_inject_device_fault), which include/czk.h deliberately does not offer.
for f in $(sources src bench tests); do
    case "$f" in
    src/engine/* | bench/bench_engine.c) continue ;;
    esac
    if grep -Eq '^[[:space:]]*#[[:space:]]*include[[:space:]]*"engine/engine_internal\.h"' "$f"; then
        echo "engine internals: $f includes engine/engine_internal.h (only src/engine may; use include/czk.h)"
        status=1
    fi
done
[ $status -eq 0 ] && echo "layers: ok"
exit $status
