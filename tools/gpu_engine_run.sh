#!/bin/sh
# Runs the engine benchmark on the GPU machine (the lead runs this through the device tool,
# with gpu-bin in the carry list) and samples the device's utilisation beside it.
#
#   sh tools/gpu_engine_run.sh K JOBS PARTITIONS INFLIGHT [WORKERS] [VRAM_GIB]
#
# VRAM_GIB (default: all free memory) limits the engine's device budget, as a smaller card
# would; a key that does not fit beside a partition's working set is then streamed.
#
# gpu-bin/bench_engine is built here like czk_gpu_test (tools/gpu_run.sh):
#   cmake --build build --target bench_engine && cp build/bench_engine gpu-bin/
# Writes $OUT/engine.out (bench_engine's table: the timeline from the engine's own
# per-partition lines), $OUT/engine.log (every engine log line) and $OUT/smi.csv
# (nvidia-smi every 100 ms: utilization.gpu is the share of the sample period during which
# a kernel ran), and prints the mean utilisation between the first and last busy sample.
set -u
cd "$(dirname "$0")/.."
out=${OUT:-/tmp/czk-gpu-out}
mkdir -p "$out"
k=${1:-20}
jobs=${2:-16}
parts=${3:-4}
inflight=${4:-4}
workers=${5:-2}
vram=${6:-0}
nvidia-smi --query-gpu=timestamp,utilization.gpu,memory.used --format=csv,noheader,nounits \
    -lms 100 >"$out/smi.csv" 2>&1 &
smi=$!
gpu-bin/bench_engine --k "$k" --jobs "$jobs" --partitions "$parts" --inflight "$inflight" \
    --workers "$workers" --vram "$vram" --log "$out/engine.log" >"$out/engine.out" 2>"$out/engine.err"
rc=$?
kill "$smi" 2>/dev/null
wait "$smi" 2>/dev/null
cat "$out/engine.out"
# Samples from the first to the last at 50 % or more: the key load before the first kernel
# (its context start-up shows a few per cent) and the drain after the last are outside the
# steady window; dips inside it count.
awk -F', *' '{ u[NR] = $2 + 0 } END {
    first = 0; last = 0
    for (i = 1; i <= NR; i++) if (u[i] >= 50) { if (!first) first = i; last = i }
    if (!first) { print "nvidia-smi: no busy sample"; exit }
    s = 0; for (i = first; i <= last; i++) s += u[i]
    printf "nvidia-smi utilization.gpu: mean %.1f %% over %d samples (100 ms) of the busy window\n",
        s / (last - first + 1), last - first + 1 }' "$out/smi.csv"
echo "bench_engine exited with $rc"
exit "$rc"
