#!/bin/sh
# czk daemon end to end: run.sh CZK_BINARY WORK_DIR MODE (rpc, sigterm, bench, security, jobs,
# filecoin, porep, snap; tests/daemon/ctest.cmake).
# Generates the Python stubs from proto/ with Debian's grpc_tools, then runs daemon_test.py.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
czk=$1
work=$2
mode=$3
py=/usr/bin/python3 # Debian's python: it has grpcio and grpc_tools
mkdir -p "$work/$mode"
gen="$work/$mode/gen"
rm -rf "$gen"
mkdir -p "$gen"
"$py" -m grpc_tools.protoc -I"$root/proto" --python_out="$gen" --grpc_python_out="$gen" \
    "$root/proto/cuzk/v1/proving.proto"
script=daemon_test.py
[ "$mode" = security ] && script=security_test.py # listening rules, TLS, limits, SIGHUP
[ "$mode" = jobs ] && script=jobs_test.py         # job semantics, metrics, status JSON
[ "$mode" = filecoin ] && script=filecoin_test.py # WindowPoSt from vanilla proofs
[ "$mode" = porep ] && script=porep_test.py       # PoRep C2 from a C1 output
[ "$mode" = snap ] && script=snap_test.py         # SnapDeals from vanilla partition proofs
exec "$py" "$here/$script" --czk "$czk" --work "$work/$mode" --gen "$gen" \
    --data "$root/tests/interop/data" --mode "$mode"
