#!/bin/sh
# czk prove against snarkjs groth16 prove on the same 2^16-constraint BLS12-381 circuit (a
# chain of squarings: dense witness values), alternating runs, medians and their ratio.
#
#   bench/compare_snarkjs.sh [ROUNDS] [THREADS]     (default 3 rounds, all CPUs)
#
# The key is a czk development .zkey (`czk setup --zkey`): snarkjs's own powers of tau for
# 2^17 would take hours here, and snarkjs proves with czk's key as with its own (the interop
# tests check that). Both provers read the same .zkey and .wtns and their proofs are verified.
set -eu
cd "$(dirname "$0")/.."
rounds=${1:-3}
threads=${2:-0}
make -s build >/dev/null
B=tests/snarkjs/node_modules/.bin
czk=build/czk
w=build/compare_snarkjs
mkdir -p "$w"
if [ ! -f "$w/sq.zkey" ]; then
    sed 's/Squares(10000)/Squares(65530)/' tests/interop/circuits/squares.circom >"$w/sq.circom"
    "$B/circom2" "$w/sq.circom" --r1cs --wasm --prime bls12381 -o "$w" >/dev/null
    "$B/snarkjs" wtns calculate "$w/sq_js/sq.wasm" tests/interop/circuits/squares.input.json "$w/sq.wtns"
    "$czk" setup --zkey --seed 7 "$w/sq.r1cs" "$w/sq.zkey" "$w/sq.vk.json"
fi
now() { date +%s.%N; }
i=0
: >"$w/times"
while [ "$i" -lt "$rounds" ]; do
    t0=$(now)
    "$B/snarkjs" groth16 prove "$w/sq.zkey" "$w/sq.wtns" "$w/sj.proof.json" "$w/sj.public.json"
    t1=$(now)
    "$czk" prove --threads "$threads" "$w/sq.zkey" "$w/sq.wtns" "$w/czk.proof.json" "$w/czk.public.json"
    t2=$(now)
    echo "$t0 $t1 $t2" | awk '{ printf "%.3f %.3f\n", $2 - $1, $3 - $2 }' >>"$w/times"
    i=$((i + 1))
done
"$B/snarkjs" groth16 verify "$w/sq.vk.json" "$w/czk.public.json" "$w/czk.proof.json" | grep -q OK
"$czk" verify "$w/sq.vk.json" "$w/sj.public.json" "$w/sj.proof.json" >/dev/null
echo "# czk $(git rev-parse --short=12 HEAD) vs snarkjs 0.7.6, squaring chain of 65,531 constraints" \
    "(domain 2^16), $rounds rounds, czk --threads $threads, $(nproc) CPUs; wall seconds incl. loading"
sort -n -k1 "$w/times" | awk '{ s[NR] = $1 } END { printf "snarkjs median %.3f s\n", s[int((NR + 1) / 2)] }'
sort -n -k2 "$w/times" | awk '{ c[NR] = $2 } END { printf "czk     median %.3f s\n", c[int((NR + 1) / 2)] }'
awk '{ print $1 / $2 }' "$w/times" | sort -n | awk '{ r[NR] = $1 } END { printf "ratio (snarkjs / czk) median %.1fx\n", r[int((NR + 1) / 2)] }'
