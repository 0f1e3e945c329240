#!/bin/sh
# Runs one libFuzzer target for a bounded time: run_fuzz.sh <binary> <corpus-dir> <seconds>.
# The corpus starts from tests/fuzz/<name>/ when present and grows in the build tree.
set -eu
bin=$1 corpus=$2 secs=$3
name=$(basename "$bin")
seeds="$(cd "$(dirname "$0")/.." && pwd)/tests/fuzz/$name"
mkdir -p "$corpus"
if [ -d "$seeds" ]; then
    set -- "$corpus" "$seeds"
else
    set -- "$corpus"
fi
exec "$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 "$@"
