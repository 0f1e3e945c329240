#!/bin/sh
# Times czk's bench_field against blst on the same machine in one run and prints the ratio of
# medians per operation (czk / blst; below 1 means czk is faster).
#
#   bench/peer/compare_blst.sh [ROUNDS]     (default 3 alternating rounds)
#
# BUILD names czk's build directory (default build, built with `make bench`); another one is
# built with cmake --build (bench_field and bench_msm only) and must be configured already.
#
# blst comes from the npm registry (@chainsafe/blst 0.2.11 bundles its C sources and
# assembly), is built with its own build.sh into .tools/blst (ignored by git), and is linked
# only into bench/peer/bench_blst.c. Nothing of blst is committed.
set -eu
cd "$(dirname "$0")/../.."
rounds=${1:-3}
build=${BUILD:-build}
tools=.tools/blst
if [ ! -f "$tools/package/blst/libblst.a" ]; then
    mkdir -p "$tools"
    (cd "$tools" && npm pack --silent @chainsafe/blst@0.2.11 >/dev/null &&
        tar xzf chainsafe-blst-0.2.11.tgz && cd package/blst && ./build.sh >/dev/null)
fi
blst=$tools/package/blst
cc -O2 -o "$tools/bench_blst" bench/peer/bench_blst.c -I"$blst/bindings" "$blst/libblst.a"
msm_lgs=${CZK_COMPARE_MSM:-"16 18"}
if [ "$build" = build ]; then
    make -s bench >/dev/null
else
    cmake --build "$build" --target bench_field bench_msm >/dev/null
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
i=0
while [ $i -lt "$rounds" ]; do
    "./$build"/bench_field >"$out/czk.$i"
    "$tools/bench_blst" >"$out/blst.$i"
    i=$((i + 1))
done
echo "# czk $(git rev-parse --short=12 HEAD) vs blst 0.2.11 (@chainsafe/blst), $rounds rounds," \
    "median of per-round medians; $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
awk -F, '
    FNR == 1 { file = FILENAME; sub(/.*\//, "", file); sub(/\..*/, "", file) }
    /^#/ || $1 ~ /^op/ { next }
    { gsub(/ /, "", $1); v[file, $1] = v[file, $1] " " $4; ops[$1] = 1 }
    function med(s,   a, n, i, j, t) {
        n = split(s, a, " ")
        for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
        return a[int((n + 1) / 2)]
    }
    END {
        printf "%-20s %14s %14s %8s\n", "op", "czk_ns", "blst_ns", "ratio"
        for (op in ops) if (("blst", op) in v && ("czk", op) in v) {
            c = med(v["czk", op]); b = med(v["blst", op])
            printf "%-20s %14.1f %14.1f %8.2f\n", op, c, b, c / b
        }
    }' "$out"/czk.* "$out"/blst.* | sort

# Single-threaded G1 MSM: blst_p1s_mult_pippenger against czk_msm_g1, alternating.
echo
printf "%-20s %14s %14s %8s\n" "msm (1 thread)" "czk_ms" "blst_ms" "ratio"
for lg in $msm_lgs; do
    c=$(CZK_BENCH_RUNS=3 "./$build"/bench_msm g1 "$lg" | awk -F, '$2 + 0 > 0 { print $7 + 0 }')
    b=$(CZK_BENCH_RUNS=3 "$tools/bench_blst" msm "$lg" | awk -F, '{ print $4 + 0 }')
    awk -v lg="$lg" -v c="$c" -v b="$b" 'BEGIN { printf "msm_g1_2^%-14s %14.1f %14.1f %8.2f\n", lg, c, b, c / b }'
done
