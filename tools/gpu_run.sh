#!/bin/sh
# Runs the prebuilt CUDA backend test on the GPU machine (the lead runs this through the
# device tool). It prints the GPU list, then czk_gpu_test's table; the full log goes to
# $OUT/gpu_test.log and the console output to $OUT/gpu_run.out.
#
# Build the binary on the development machine first (nvcc 13.0, no GPU needed), from the
# repository root:
#
#   cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release
#   cmake --build build-gpu -j2 --target czk_gpu_test
#   mkdir -p gpu-bin && cp build-gpu/czk_gpu_test gpu-bin/
#
# The binary links only libc, libstdc++ and a static cudart, so it runs on the GPU machine's
# Ubuntu 24.04 image. Pass gpu-bin in the device tool's `carry` list, then run:
#
#   sh tools/gpu_run.sh            # checks, then timings (about 3-5 minutes on an H200)
#   sh tools/gpu_run.sh --quick    # checks only (kernels, h bit-exact, whole proofs)
#
# The checks cover the kernels, the prover backend's h against the CPU quotient (bit-exact),
# whole proofs GPU against CPU (identical, verified) and MSMs streamed in batches under a
# small VRAM limit; the timings add h at lg 20-27 and a 2^24 PoRep-shaped partition (all
# memory, a 16 GiB limit, and the CPU). CZK_GPU_TEST_BIG=1 adds a 2^27 partition and MSMs
# up to 2^27.
#
# Environment passed through: CZK_TEST_SEED, CZK_GPU_TEST_MAX_NTT, CZK_GPU_TEST_MAX_MSM,
# CZK_GPU_TEST_MAX_H, CZK_GPU_TEST_BIG, CZK_GPU_TEST_THREADS. Exit status is the test's (0 pass, 1 fail, 77 no device).
set -u
cd "$(dirname "$0")/.."
bin=gpu-bin/czk_gpu_test
out=${OUT:-/tmp/czk-gpu-out}
mkdir -p "$out"
export OUT="$out"
if [ "${1:-}" = "--quick" ]; then
    export CZK_GPU_TEST_QUICK=1
fi
nvidia-smi -L 2>&1 | tee "$out/gpu_run.out"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,memory.used,memory.total \
    --format=csv 2>&1 | tee -a "$out/gpu_run.out"
if [ ! -x "$bin" ]; then
    echo "gpu_run.sh: $bin is missing: build it as the top of this script says" | tee -a "$out/gpu_run.out"
    exit 2
fi
# tee would hide the test's exit status: record it in a file beside the log.
{
    "$bin"
    echo $? >"$out/gpu_test.rc"
} 2>&1 | tee -a "$out/gpu_run.out"
rc=$(cat "$out/gpu_test.rc" 2>/dev/null || echo 1)
echo "gpu_run.sh: czk_gpu_test exited with $rc" | tee -a "$out/gpu_run.out"
exit "$rc"
