#!/bin/sh
# Runs the engine benchmark (bench_engine: jobs of PoRep-shaped partitions proved by the
# engine on every CUDA device it finds) on a machine with an NVIDIA GPU, and samples the
# device's utilisation with nvidia-smi beside it.
#
# Build first (nvcc is enough; the build machine needs no GPU):
#
#   cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DCZK_CUDA=on
#   cmake --build build -j --target bench_engine
#
# then, from the repository root:
#
#   sh tools/gpu_engine_run.sh [K [JOBS [PARTITIONS [INFLIGHT [WORKERS [VRAM_GIB]]]]]]
#
# K: log2 of the partition's constraints (default 20); JOBS jobs (16) of PARTITIONS
# partitions each (4), at most INFLIGHT jobs at a time (4), WORKERS prove workers a device
# (2); VRAM_GIB (default 0: all free memory) limits the engine's device budget as a smaller
# card would, so that a key that does not fit beside a partition's working set is streamed.
# Example: sh tools/gpu_engine_run.sh 22 32 4 8 2 (about a minute on an H200).
#
# Prints bench_engine's table (throughput, the per-partition timeline from the engine's own
# log lines), then the mean nvidia-smi utilization.gpu (the share of each 100 ms sample in
# which a kernel ran) over the busy window. Environment: BIN, the directory holding
# bench_engine (default: build); OUT (default /tmp/czk-gpu-out) receives engine.out (the
# table), engine.log (every engine log line), engine.err and smi.csv (the samples). Exit
# status: bench_engine's.
set -u
cd "$(dirname "$0")/.."
bin=${BIN:-build}/bench_engine
out=${OUT:-/tmp/czk-gpu-out}
mkdir -p "$out"
k=${1:-20}
jobs=${2:-16}
parts=${3:-4}
inflight=${4:-4}
workers=${5:-2}
vram=${6:-0}
if [ ! -x "$bin" ]; then
    echo "gpu_engine_run.sh: $bin is missing: build it as the top of this script says (or set BIN)"
    exit 2
fi
nvidia-smi --query-gpu=timestamp,utilization.gpu,memory.used --format=csv,noheader,nounits \
    -lms 100 >"$out/smi.csv" 2>&1 &
smi=$!
"$bin" --k "$k" --jobs "$jobs" --partitions "$parts" --inflight "$inflight" \
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
