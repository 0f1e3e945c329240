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
#  - inside src/filecoin the sub-folders are ranked the same way (doc/DESIGN.md §2):
#      hash < spec < gadgets < io < {post, porep, snap} < the top-level files (circuit.c) < testgen
#    a file may include filecoin headers of its own folder or of folders ranked below it; post,
#    porep and snap are peers (none includes another); tests may use anything;
#  - filecoin/testgen/ (the test-data generators) is included by no production file: only by
#    testgen/ itself, tests (*_test.c, *_fuzz.c, ...) and the CLI's generator commands
#    ($testgen_users below).
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
# Sets r to the rank of the filecoin sub-folder $1 ("top" for a file directly in src/filecoin),
# -1 if it has none: a new sub-folder must be given its place here.
frank() {
    case "$1" in
    hash) r=0 ;;
    spec) r=1 ;;
    gadgets) r=2 ;;
    io) r=3 ;;
    post | porep | snap) r=4 ;; # peers
    top) r=5 ;;
    testgen) r=6 ;;
    *) r=-1 ;;
    esac
}
# The filecoin sub-folders a file includes from, once each ("top" for filecoin/x.h).
included_filecoin() {
    sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"filecoin\/\([^"]*\)".*/\1/p' "$1" |
        sed 's/^\([^/]*\)\/.*/\1/; t; s/.*/top/' | sort -u
}
# The CLI's generator commands, the one production code that may use filecoin/testgen/: they
# make test data on request (czk post gen, czk c2 --virtual, czk snap gen).
testgen_users="src/cli/c2.c src/cli/post.c src/cli/snap.c"
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
# The filecoin sub-folders' ranks, and filecoin/testgen/ kept out of production code.
for f in $(sources src); do
    case "$f" in
    *_test.c | *_test.cpp | *_fuzz.c | *_test_impl.inc) continue ;;
    esac
    case "$f" in
    src/filecoin/testgen/*) ;;
    *)
        case " $testgen_users " in
        *" $f "*) ;;
        *)
            if grep -Eq '^[[:space:]]*#[[:space:]]*include[[:space:]]*"filecoin/testgen/' "$f"; then
                echo "test generator: $f includes filecoin/testgen/ (only tests, testgen/ and the CLI's generator commands may)"
                status=1
            fi
            ;;
        esac
        ;;
    esac
    case "$f" in
    src/filecoin/*/*) sub=${f#src/filecoin/} && sub=${sub%%/*} ;;
    src/filecoin/*) sub=top ;;
    *) continue ;;
    esac
    frank "$sub"
    me=$r
    if [ "$me" -lt 0 ]; then
        echo "filecoin rank: $f is in filecoin/$sub/, which has no rank (tools/check_layers.sh)"
        status=1
        continue
    fi
    for inc in $(included_filecoin "$f"); do
        [ "$inc" = "$sub" ] && continue
        frank "$inc"
        if [ "$r" -eq "$me" ] && [ "$me" -eq 4 ]; then
            echo "filecoin peer violation: $f ($sub) includes filecoin/$inc/: post, porep and snap are peers"
            status=1
        elif [ "$r" -lt 0 ] || [ "$r" -ge "$me" ]; then
            echo "filecoin rank violation: $f ($sub) includes filecoin/$inc/"
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
