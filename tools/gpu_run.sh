#!/bin/sh
# Runs the GPU checks (czk_gpu_test: the CUDA backend against the CPU, module by module) on a
# machine with an NVIDIA GPU and prints, before them, the GPUs nvidia-smi sees.
#
# Build first (nvcc from the CUDA toolkit is enough; the build machine needs no GPU, and the
# binary links the CUDA runtime statically, so it runs wherever the NVIDIA driver is):
#
#   cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DCZK_CUDA=on
#   cmake --build build -j --target czk_gpu_test
#
# then, from the repository root:
#
#   sh tools/gpu_run.sh                 # every check at its usual sizes (~1 min on an H200)
#   sh tools/gpu_run.sh --big           # also the NTT at lg 25, 27, 28 (several minutes more)
#   sh tools/gpu_run.sh --only msm      # one module: field, ntt, msm or prover (repeatable)
#
# Arguments are czk_gpu_test's (also --seed N, --threads N, --max-msm-lg N). The test prints
# one line per check ("ok" or "FAIL") and ends with a table of checks passed and failed per
# module.
#
# Environment: BIN, the directory holding czk_gpu_test (default: build); OUT, where the
# output goes (default /tmp/czk-gpu-out): gpu_run.out (everything printed), gpu_test.log (the
# test's own log) and gpu_test.rc (its exit status). Exit status: the test's (0 all checks
# passed, 1 a check failed, 2 bad usage, 77 no CUDA device).
set -u
cd "$(dirname "$0")/.."
bin=${BIN:-build}/czk_gpu_test
out=${OUT:-/tmp/czk-gpu-out}
mkdir -p "$out"
nvidia-smi -L 2>&1 | tee "$out/gpu_run.out"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,memory.used,memory.total \
    --format=csv 2>&1 | tee -a "$out/gpu_run.out"
if [ ! -x "$bin" ]; then
    echo "gpu_run.sh: $bin is missing: build it as the top of this script says (or set BIN)" |
        tee -a "$out/gpu_run.out"
    exit 2
fi
# tee would hide the test's exit status: record it in a file beside the log.
{
    "$bin" --log "$out/gpu_test.log" "$@"
    echo $? >"$out/gpu_test.rc"
} 2>&1 | tee -a "$out/gpu_run.out"
rc=$(cat "$out/gpu_test.rc" 2>/dev/null || echo 1)
echo "gpu_run.sh: czk_gpu_test exited with $rc" | tee -a "$out/gpu_run.out"
exit "$rc"
