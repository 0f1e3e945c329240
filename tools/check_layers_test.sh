#!/bin/sh
# Tests tools/check_layers.sh: it passes on this tree, and on a copy of src/ and bench/ with one
# planted violation of each kind (layer ranks, peers, the engine's internals, the filecoin
# sub-folders' ranks and peers, an unranked filecoin folder, production code using
# filecoin/testgen/) it fails naming each, while the tests it plants beside them (tests may use
# anything) go unreported.
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
check="$repo/tools/check_layers.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0
fail() {
    echo "FAIL: $*"
    status=1
}

if ! sh "$check" >"$tmp/real.out" 2>&1; then
    cat "$tmp/real.out"
    fail "the check fails on the tree itself"
fi

mkdir "$tmp/root"
cp -R "$repo/src" "$repo/bench" "$tmp/root/"
r="$tmp/root"
if ! sh "$check" "$r" >"$tmp/copy.out" 2>&1; then
    cat "$tmp/copy.out"
    fail "the check fails on an unchanged copy"
fi
# One violation of each kind, each in a file of its own so that each has to be named.
printf '#include "engine/kind.h"\n' >"$r/src/util/zz_plant.c"                # rank, in a .c
printf '#include "cli/cli.h"\n' >"$r/src/server/grpc/zz_plant.cpp"          # rank, in a .cpp
printf '  #  include "msm/msm.h"\n' >"$r/src/curve/zz_plant.inc"            # rank, in a .inc
printf '#include "poly/ntt.h"\n' >"$r/src/msm/zz_peer.c"                    # msm includes poly
printf '#include "msm/msm.h"\n' >"$r/src/poly/zz_peer_test.c"               # poly's test, msm
printf '#include "engine/engine_internal.h"\n' >"$r/src/cli/zz_internal.c"  # the engine's insides
printf '#include "engine/engine_internal.h"\n' >"$r/bench/zz_internal.c"    # from a benchmark
printf '#include "cli/cli.h"\n' >"$r/src/util/zz_ok_test.c"                 # a test: allowed
printf '#include "filecoin/testgen/seal.h"\n' >"$r/src/kinds/zz_gen.c"       # production, testgen
printf '#include "filecoin/post/post.h"\n' >"$r/src/filecoin/gadgets/zz_rank.c" # filecoin rank
printf '#include "filecoin/porep/porep.h"\n' >"$r/src/filecoin/snap/zz_peer.c" # snap includes porep
mkdir "$r/src/filecoin/zz_new"
printf '#include "filecoin/io/c1.h"\n' >"$r/src/filecoin/zz_new/zz.c"          # an unranked folder
printf '#include "filecoin/testgen/seal.h"\n' >"$r/src/filecoin/gadgets/zz_ok_test.c" # a test
if sh "$check" "$r" >"$tmp/planted.out" 2>&1; then
    fail "the check passes with planted violations"
fi
expect() {
    grep -qF "$1" "$tmp/planted.out" || fail "not reported: $1"
}
expect "layer violation: src/util/zz_plant.c (util) includes engine/"
expect "layer violation: src/server/grpc/zz_plant.cpp (server) includes cli/"
expect "layer violation: src/curve/zz_plant.inc (curve) includes msm/"
expect "peer violation: src/msm/zz_peer.c (msm) includes poly/"
expect "peer violation: src/poly/zz_peer_test.c (poly) includes msm/"
expect "engine internals: src/cli/zz_internal.c includes engine/engine_internal.h"
expect "engine internals: bench/zz_internal.c includes engine/engine_internal.h"
expect "test generator: src/kinds/zz_gen.c includes filecoin/testgen/"
expect "filecoin rank violation: src/filecoin/gadgets/zz_rank.c (gadgets) includes filecoin/post/"
expect "filecoin peer violation: src/filecoin/snap/zz_peer.c (snap) includes filecoin/porep/"
expect "filecoin rank: src/filecoin/zz_new/zz.c is in filecoin/zz_new/, which has no rank"
if grep -q "zz_ok_test" "$tmp/planted.out"; then
    fail "a test's include was reported"
fi
if [ "$(wc -l <"$tmp/planted.out")" -ne 11 ]; then
    fail "expected exactly the 11 planted violations"
fi
if [ $status -ne 0 ]; then
    echo "--- the check's output on the planted copy:"
    cat "$tmp/planted.out"
else
    echo "check_layers: every planted violation named, the tree passes"
fi
exit $status
