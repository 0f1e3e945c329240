#!/bin/sh
# The standard validation of a session's CUDA work in one device call (the lead runs this
# through the device tool with gpu-bin in the carry list; build czk_gpu_test and bench_engine
# first, as tools/gpu_run.sh says). Prints a short summary; full logs under $OUT.
#
#   sh tools/gpu_session.sh [checks] [partition] [msm] [engine] [memcheck] [rates]
#
# With no argument it runs the first five, in this order (rates only when named):
#   checks     the quick GPU-against-CPU checks (tools/gpu_run.sh --quick), ~1 min
#   partition  the 2^27 PoRep-shaped partition (all paths, witness pinned and packed), ~2.5 min
#   msm        MSM G1 2^20..2^27 and G2 tables with the per-step profile, ~1 min
#   engine     bench_engine at 2^22 (32 jobs of 4 partitions, 2 workers a device), ~1 min
#   memcheck   compute-sanitizer memcheck over the quick checks at small sizes, ~4 min
#   rates      the arithmetic rates (mixed additions, products, inversions), ~30 s
# Exit status: the number of steps that failed.
set -u
cd "$(dirname "$0")/.."
out=${OUT:-/tmp/czk-gpu-out}
mkdir -p "$out"
steps=${*:-checks partition msm engine memcheck}
failed=0
for s in $steps; do
    case $s in
    checks)
        OUT="$out" sh tools/gpu_run.sh --quick >/dev/null 2>&1
        rc=$(cat "$out/gpu_test.rc" 2>/dev/null || echo 1)
        echo "checks: rc=$rc, $(grep -c '^ok' "$out/gpu_run.out") ok"
        grep -E '^(FAIL|fail)' "$out/gpu_run.out" | head
        mv "$out/gpu_run.out" "$out/checks.out"
        ;;
    partition)
        CZK_GPU_TEST_CHECKS=0 CZK_GPU_TEST_PARTITION=27 CZK_GPU_TEST_MAX_MSM=20 \
            CZK_GPU_TEST_MAX_NTT=20 timeout 400 gpu-bin/czk_gpu_test >"$out/partition.log" 2>&1
        rc=$?
        echo "partition: rc=$rc"
        grep -E '^2\^27|witness pack|FAIL' "$out/partition.log"
        ;;
    msm)
        CZK_GPU_TEST_CHECKS=0 CZK_GPU_TEST_PARTITION=10 CZK_GPU_TEST_MAX_NTT=27 \
            CZK_GPU_TEST_MAX_MSM=27 CZK_GPU_TEST_BIG=1 CZK_GPU_MSM_PROFILE=1 timeout 300 \
            gpu-bin/czk_gpu_test >"$out/msm.log" 2>&1
        rc=$?
        echo "msm: rc=$rc"
        grep -E '^(G1|G2|lg|2[0-7] )|steps' "$out/msm.log"
        ;;
    engine)
        mkdir -p "$out/engine"
        OUT="$out/engine" timeout 200 sh tools/gpu_engine_run.sh 22 32 4 8 2 >"$out/engine/run.out" 2>&1
        rc=$?
        echo "engine: rc=$rc"
        tail -8 "$out/engine/run.out"
        ;;
    memcheck)
        cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
        CZK_GPU_TEST_QUICK=1 CZK_GPU_TEST_MAX_NTT=14 CZK_GPU_TEST_MAX_MSM=14 timeout 300 "$cs" \
            --tool memcheck --error-exitcode 9 --print-limit 20 gpu-bin/czk_gpu_test \
            >"$out/memcheck.log" 2>&1
        rc=$?
        echo "memcheck: rc=$rc, $(grep -c '^ok' "$out/memcheck.log") ok"
        grep -E 'ERROR SUMMARY' "$out/memcheck.log"
        ;;
    rates)
        CZK_GPU_TEST_CHECKS=0 CZK_GPU_TEST_QUICK=1 CZK_GPU_TEST_ADDRATE=1 timeout 120 \
            gpu-bin/czk_gpu_test >"$out/rates.log" 2>&1
        rc=$?
        echo "rates: rc=$rc"
        grep -E '^kernel|L2 table|chain|inv' "$out/rates.log"
        ;;
    *)
        echo "gpu_session.sh: unknown step $s (checks, partition, msm, engine, memcheck, rates)"
        rc=2
        ;;
    esac
    [ "$rc" -eq 0 ] || failed=$((failed + 1))
done
exit "$failed"
