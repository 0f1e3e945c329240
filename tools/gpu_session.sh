#!/bin/sh
# The standard validation of CUDA work on a machine with an NVIDIA GPU: the checks, then the
# benchmarks whose figures BENCHMARKS.md records, each step's full output in a file and a
# short summary printed.
#
# Build first (nvcc is enough; the build machine needs no GPU, and the programs link the CUDA
# runtime statically):
#
#   cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DCZK_CUDA=on
#   cmake --build build -j --target czk_gpu_test bench_gpu_ntt bench_gpu_msm bench_gpu_prove \
#       bench_gpu_rates bench_engine          # or: make bench (all benchmarks, CPU ones too)
#
# then, from the repository root:
#
#   sh tools/gpu_session.sh [checks] [partition] [ntt] [msm] [engine] [memcheck] [rates]
#
# With no argument it runs the first six, in this order (rates only when named):
#   checks     czk_gpu_test at its usual sizes (tools/gpu_run.sh), ~1 min on an H200
#   partition  bench_gpu_prove --partition 27: a 2^27 PoRep-shaped partition on every path
#              (step by step, attached, witness pinned and packed, 16 GiB streamed), ~2.5 min
#   ntt        bench_gpu_ntt: NTT lg 20..27, every kind, ~20 s
#   msm        bench_gpu_msm --big --profile --roofline: MSM G1 2^20..2^27, the PoRep mix, G2,
#              with the per-step times, and the roofline (each MSM's Fp products at the product
#              rate measured in the same process: the limit, and the time as a percentage of
#              it; the model's steps in msm.log), ~1 min
#   engine     tools/gpu_engine_run.sh 22 32 4 8 2 (bench_engine), ~1 min
#   memcheck   compute-sanitizer's memcheck over czk_gpu_test --max-msm-lg 14, ~1 min
#   rates      bench_gpu_rates: mixed additions, products and inversions a second, ~30 s
# Environment: BIN, the directory holding the programs (default: build); OUT, where the logs
# go (default /tmp/czk-gpu-out): checks.out, partition.log, ntt.log, msm.log, engine/,
# memcheck.log, rates.log. Exit status: the number of steps that failed.
set -u
cd "$(dirname "$0")/.."
bin=${BIN:-build}
out=${OUT:-/tmp/czk-gpu-out}
mkdir -p "$out"
steps=${*:-checks partition ntt msm engine memcheck}
failed=0
for s in $steps; do
    case $s in
    checks)
        BIN="$bin" OUT="$out" sh tools/gpu_run.sh >/dev/null 2>&1
        rc=$(cat "$out/gpu_test.rc" 2>/dev/null || echo 1)
        echo "checks: rc=$rc, $(grep -c '^ok' "$out/gpu_run.out") ok"
        grep -E '^(FAIL|fail)' "$out/gpu_run.out" | head
        sed -n '/^module /,$p' "$out/gpu_run.out"
        mv "$out/gpu_run.out" "$out/checks.out"
        ;;
    partition)
        timeout 400 "$bin/bench_gpu_prove" --partition 27 >"$out/partition.log" 2>&1
        rc=$?
        echo "partition: rc=$rc"
        grep -E '^2\^27|witness pack|FAIL' "$out/partition.log"
        ;;
    ntt)
        timeout 200 "$bin/bench_gpu_ntt" --min-lg 20 --max-lg 27 >"$out/ntt.log" 2>&1
        rc=$?
        echo "ntt: rc=$rc"
        grep -E '^(lg|2[0-8] )|FAIL' "$out/ntt.log"
        ;;
    msm)
        timeout 300 "$bin/bench_gpu_msm" --big --profile --roofline >"$out/msm.log" 2>&1
        rc=$?
        echo "msm: rc=$rc"
        grep -E '^(G1|G2|roof) |^Fp products|^legend|steps|FAIL' "$out/msm.log"
        ;;
    engine)
        mkdir -p "$out/engine"
        BIN="$bin" OUT="$out/engine" timeout 200 sh tools/gpu_engine_run.sh 22 32 4 8 2 \
            >"$out/engine/run.out" 2>&1
        rc=$?
        echo "engine: rc=$rc"
        tail -8 "$out/engine/run.out"
        ;;
    memcheck)
        cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
        timeout 400 "$cs" --tool memcheck --error-exitcode 9 --print-limit 20 \
            "$bin/czk_gpu_test" --max-msm-lg 14 >"$out/memcheck.log" 2>&1
        rc=$?
        echo "memcheck: rc=$rc, $(grep -c '^ok' "$out/memcheck.log") ok"
        grep -E 'ERROR SUMMARY' "$out/memcheck.log"
        ;;
    rates)
        timeout 120 "$bin/bench_gpu_rates" >"$out/rates.log" 2>&1
        rc=$?
        echo "rates: rc=$rc"
        grep -E '^kernel|L2 table|chain|inv' "$out/rates.log"
        ;;
    *)
        echo "gpu_session.sh: unknown step $s (checks, partition, ntt, msm, engine, memcheck, rates)"
        rc=2
        ;;
    esac
    [ "$rc" -eq 0 ] || failed=$((failed + 1))
done
exit "$failed"
