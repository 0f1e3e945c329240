#!/bin/sh
# PoRep C2 at full throughput with a WinningPoSt-sized CRITICAL job beside it on the same GPU
# (issue 29, item 6; BENCHMARKS.md run 103): development keys for one PoRep partition of SIZE,
# a virtual C1 output, then bench_engine proving JOBS C2 jobs two at a time while, once two
# jobs are done, a one-partition 2^19 job (a 32 GiB WinningPoSt's domain) goes every 300 ms to
# the GPU's priority lane. Prints bench_engine's table, then each field of the urgent
# partitions' log lines (queue, synthesis, lock wait, kernel region, verification) and the C2
# partitions' kernel regions, as median, p90 and max.
#
# Build first (nvcc is enough; the build machine needs no GPU):
#
#   cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DCZK_CUDA=on
#   cmake --build build -j --target czk_cli bench_engine
#
# then, on a GPU of 141 GB (the 32 GiB key and circuit are resident: an H200), from the
# repository root:
#
#   sh tools/gpu_lane_run.sh [SIZE [JOBS]]       (default 32GiB 6: about 7 minutes, of which
#                                                 the key's setup is 3.5 and its load 1.2)
#
# Environment: BIN, the directory holding czk and bench_engine (default: build); OUT (default
# /tmp/czk-gpu-out) receives setup.log, engine.out, engine.err and engine.log; KEYS (default
# /tmp/czk-lane-keys), where the keys are made unless a .params is already there. Exit status:
# bench_engine's.
set -u
cd "$(dirname "$0")/.."
bin=${BIN:-build}
out=${OUT:-/tmp/czk-gpu-out}
keys=${KEYS:-/tmp/czk-lane-keys}
size=${1:-32GiB}
jobs=${2:-6}
mkdir -p "$out" "$keys"
for p in czk bench_engine; do
    if [ ! -x "$bin/$p" ]; then
        echo "gpu_lane_run.sh: $bin/$p is missing: build it as the top of this script says (or set BIN)"
        exit 2
    fi
done
nvidia-smi -L
if ! ls "$keys"/*.params >/dev/null 2>&1; then
    t0=$(date +%s)
    "$bin/czk" setup --filecoin porep "$size" --backend cuda --out "$keys" >"$out/setup.log" 2>&1 ||
        { echo "gpu_lane_run.sh: setup failed (see $out/setup.log)"; exit 1; }
    echo "setup: $(($(date +%s) - t0)) s"
fi
"$bin/czk" c2 gen "$size" --virtual --out "$out/c1.json" >"$out/gen.log" 2>&1 ||
    { echo "gpu_lane_run.sh: c2 gen failed (see $out/gen.log)"; exit 1; }
"$bin/bench_engine" --porep "$out/c1.json" --params "$keys" --jobs "$jobs" --inflight 2 \
    --workers 2 --urgent 19 --urgent-every 300 --urgent-from 2 --log "$out/engine.log" \
    >"$out/engine.out" 2>"$out/engine.err"
rc=$?
cat "$out/engine.out"
tail -3 "$out/engine.err"
# One field of the partition lines of a circuit: median, p90 and max.
field() {
    grep "circuit=$1 " "$out/engine.log" | grep -o " $2=[0-9.]*" | cut -d= -f2 | sort -n |
        awk -v w="$1 $2" '{ v[NR] = $1 } END { if (NR) printf "%s: n %d median %.1f p90 %.1f max %.1f\n",
            w, NR, v[int((NR + 1) / 2)], v[int(NR * 0.9 + 0.999)], v[NR] }'
}
for f in queue_ms synth_ms lock_wait_ms kernel_ms verify_ms; do
    field urgent "$f"
done
field "porep-$size" kernel_ms
echo "bench_engine exited with $rc"
exit "$rc"
