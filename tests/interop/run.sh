#!/bin/sh
# Interop test: czk against snarkjs on one circuit, both ways, plus tampering and czk's own
# setups. Run by ctest (tests/interop/ctest.cmake) as:
#
#   run.sh <czk binary> <work dir> <circuit>       circuit: mul3, bits or squares
#   run.sh <czk binary> <work dir> --errors        corrupted files give clean errors
#   run.sh <czk binary> <work dir> --synth         czk's own formats end to end
#   run.sh <czk binary> <work dir> --daemon        a daemon's proof as snarkjs JSON files
#
# Data: tests/interop/data (made once with snarkjs; see its README). Tools: the pinned
# snarkjs in tests/snarkjs/node_modules (tools/setup.sh installs it). Fails on the first
# step that does not do what it should.
set -eu
czk=$1
work=$2
what=$3
root=$(cd "$(dirname "$0")/../.." && pwd)
data=$root/tests/interop/data
snarkjs=$root/tests/snarkjs/node_modules/.bin/snarkjs
if [ ! -x "$snarkjs" ]; then
    echo "interop: snarkjs is missing at $snarkjs; run tools/setup.sh (make test does)" >&2
    exit 1
fi
mkdir -p "$work"
w=$work/$(echo "$what" | tr -d -)
lib_merge_stderr=1 # the checks below grep $w/out for what czk and snarkjs print on stderr
. "$root/tests/lib.sh"
fresh_dir "$w"

# snarkjs's verdict: it prints OK! and exits 0 for a valid proof.
sj_valid() {
    expect 0 "$snarkjs" groth16 verify "$@"
    grep -q 'OK!' "$w/out" || fail "snarkjs did not say OK: $*"
}
sj_invalid() {
    capture "$snarkjs" groth16 verify "$@"
    if [ "$got" = 0 ] || grep -q 'OK!' "$w/out"; then fail "snarkjs accepted: $*"; fi
}
# Rewrites the first public input of a public.json (adds one to the decimal string's last digit
# or changes it to a different digit).
tamper_public() {
    node -e '
        const fs = require("fs");
        const p = JSON.parse(fs.readFileSync(process.argv[1]));
        p[0] = (BigInt(p[0]) + 1n).toString();
        fs.writeFileSync(process.argv[2], JSON.stringify(p));' "$1" "$2"
}
# Replaces pi_a of a proof.json by pi_c (a valid point, but the wrong one).
tamper_proof() {
    node -e '
        const fs = require("fs");
        const p = JSON.parse(fs.readFileSync(process.argv[1]));
        p.pi_a = p.pi_c;
        fs.writeFileSync(process.argv[2], JSON.stringify(p));' "$1" "$2"
}

if [ "$what" = "--errors" ]; then
    c=mul3
    step "truncated and corrupted inputs give exit 2 and name the file"
    head -c 1000 "$data/squares.zkey" >"$w/trunc.zkey"
    expect 2 "$czk" prove "$w/trunc.zkey" "$data/squares.wtns" "$w/p.json" "$w/pub.json"
    grep -q 'trunc.zkey' "$w/out" || fail "the error does not name the file"
    head -c 100 "$data/$c.wtns" >"$w/trunc.wtns"
    expect 2 "$czk" prove "$data/$c.zkey" "$w/trunc.wtns" "$w/p.json" "$w/pub.json"
    grep -q 'trunc.wtns' "$w/out" || fail "the error does not name the file"
    expect 2 "$czk" prove "$data/$c.zkey" "$data/bits.wtns" "$w/p.json" "$w/pub.json"
    printf '{"protocol": "groth16", "curve": "bls12381", "pi_a": [' >"$w/bad.json"
    expect 2 "$czk" verify "$data/$c.vk.json" "$data/$c.vk.json" "$w/bad.json"
    expect 2 "$czk" verify "$w/missing.json" "$w/missing.json" "$w/missing.json"
    head -c 2000 "$data/squares.r1cs" >"$w/trunc.r1cs"
    expect 2 "$czk" setup "$w/trunc.r1cs" "$w/x.params" "$w/x.vk"
    expect 2 "$czk" prove --bogus
    expect 0 "$czk" prove --help
    [ ! -e "$w/p.json" ] || fail "a failed prove left a proof behind"
    echo "interop --errors: ok"
    exit 0
fi

if [ "$what" = "--synth" ]; then
    step "czk synth -> czk prove (bellperson format, czk R1CS file) -> czk verify"
    expect 0 "$czk" synth --porep-shaped 10 --out "$w/s" --keys dev --seed 3
    expect 0 "$czk" prove --params "$w/s/dev.params" --r1cs "$w/s/circuit.czkr1cs" \
        --wtns "$w/s/witness.wtns" --out "$w/s/proof.bin" --public "$w/s/public2.json"
    cmp "$w/s/public.json" "$w/s/public2.json" || fail "public inputs differ"
    expect 0 "$czk" verify --vk "$w/s/dev.vk" --proof "$w/s/proof.bin" --public "$w/s/public.json"
    step "benchmark keys are refused by czk prove: their proofs cannot verify"
    expect 0 "$czk" synth --porep-shaped 10 --out "$w/b" --keys bench --seed 3
    expect 2 "$czk" prove --params "$w/b/bench.params" --r1cs "$w/b/circuit.czkr1cs" \
        --wtns "$w/b/witness.wtns" --out "$w/b/proof.bin" --public "$w/b/p.json"
    [ ! -e "$w/b/proof.bin" ] || fail "an unverifiable proof was written"
    echo "interop --synth: ok"
    exit 0
fi

if [ "$what" = "--daemon" ]; then
    c=mul3
    sock="unix://$w/d.sock"
    expect 0 "$czk" setup "$data/$c.r1cs" "$w/c.params" "$w/c.vk"
    step "czk daemon with $c.zkey (and bellperson keys for it) on $sock"
    "$czk" daemon --listen "$sock" --status-listen "" --circuit "$c=$data/$c.zkey" \
        --circuit "bp=$w/c.params,$data/$c.r1cs" \
        --set memory.total_budget=1GiB >"$w/daemon.log" 2>&1 &
    dpid=$!
    trap 'kill $dpid 2>/dev/null || true' EXIT
    tries=0
    until "$czk" status --addr "$sock" >/dev/null 2>&1; do
        tries=$((tries + 1))
        [ $tries -lt 120 ] || { cat "$w/daemon.log"; fail "the daemon did not start"; }
        kill -0 $dpid 2>/dev/null || { cat "$w/daemon.log"; fail "the daemon exited"; }
        sleep 0.5
    done
    step "czk submit --wait --out DIR -> proof.json, public.json -> snarkjs and czk verify"
    expect 0 "$czk" submit --addr "$sock" --circuit $c --wtns "$data/$c.wtns" --wait --out "$w/one/"
    sj_valid "$data/$c.vk.json" "$w/one/public.json" "$w/one/proof.json"
    expect 0 "$czk" verify "$data/$c.vk.json" "$w/one/public.json" "$w/one/proof.json"
    tamper_public "$w/one/public.json" "$w/bad.public.json"
    expect 1 "$czk" verify "$data/$c.vk.json" "$w/bad.public.json" "$w/one/proof.json"
    sj_invalid "$data/$c.vk.json" "$w/bad.public.json" "$w/one/proof.json"
    step "two partitions: one verifiable pair of files per partition"
    mkdir -p "$w/two"
    expect 0 "$czk" submit --addr "$sock" --circuit $c --wtns "$data/$c.wtns" \
        --wtns "$data/$c.wtns" --request-id two --wait --out "$w/two"
    for i in 0 1; do
        sj_valid "$data/$c.vk.json" "$w/two/public_$i.json" "$w/two/proof_$i.json"
        expect 0 "$czk" verify "$data/$c.vk.json" "$w/two/public_$i.json" "$w/two/proof_$i.json"
    done
    [ ! -e "$w/two/proof.json" ] || fail "a multi-partition result wrote proof.json"
    step "czk await --out DIR on the finished job gives the same files"
    expect 0 "$czk" await --addr "$sock" two --out "$w/again/"
    cmp "$w/two/proof_1.json" "$w/again/proof_1.json" || fail "await wrote another proof"
    step "--out FILE still writes the raw 192-byte proofs; czk verify --partition splits them"
    expect 0 "$czk" submit --addr "$sock" --circuit bp --wtns "$data/$c.wtns" \
        --wtns "$data/$c.wtns" --wait --out "$w/bp.bin"
    [ "$(wc -c <"$w/bp.bin")" -eq 384 ] || fail "the raw proofs are not 2 x 192 bytes"
    expect 0 "$czk" await --addr "$sock" two --out "$w/two.bin"
    [ "$(wc -c <"$w/two.bin")" -eq 384 ] || fail "the raw proofs are not 2 x 192 bytes"
    expect 2 "$czk" verify --vk "$w/c.vk" --proof "$w/bp.bin" --public "$w/two/public_0.json"
    grep -q -- '--partition' "$w/out" || fail "the error does not say how to pick a partition"
    for i in 0 1; do
        expect 0 "$czk" verify --vk "$w/c.vk" --proof "$w/bp.bin" --partition $i \
            --public "$w/two/public_$i.json"
    done
    expect 1 "$czk" verify --vk "$w/c.vk" --proof "$w/bp.bin" --partition 1 \
        --public "$w/bad.public.json"
    kill $dpid
    wait $dpid || true
    trap - EXIT
    echo "interop --daemon: ok"
    exit 0
fi

c=$what
[ -f "$data/$c.zkey" ] || fail "no test data for circuit '$c'"

step "$c: circom2 --prime bls12381 and snarkjs wtns calculate reproduce the committed files"
circom2=$root/tests/snarkjs/node_modules/.bin/circom2
expect 0 "$circom2" "$root/tests/interop/circuits/$c.circom" --r1cs --wasm --prime bls12381 -o "$w"
expect 0 "$snarkjs" wtns calculate "$w/${c}_js/$c.wasm" "$root/tests/interop/circuits/$c.input.json" "$w/$c.wtns"
cmp "$w/$c.r1cs" "$data/$c.r1cs" || fail "circom's $c.r1cs differs from the committed one"
cmp "$w/$c.wtns" "$data/$c.wtns" || fail "snarkjs's $c.wtns differs from the committed one"
expect 0 "$snarkjs" wtns check "$data/$c.r1cs" "$data/$c.wtns"

step "$c: czk prove (snarkjs key) -> snarkjs verify"
expect 0 "$czk" prove --timings "$data/$c.zkey" "$data/$c.wtns" "$w/czk.proof.json" "$w/czk.public.json"
sj_valid "$data/$c.vk.json" "$w/czk.public.json" "$w/czk.proof.json"
expect 0 "$czk" verify "$data/$c.vk.json" "$w/czk.public.json" "$w/czk.proof.json"

step "$c: snarkjs prove -> czk verify"
expect 0 "$snarkjs" groth16 prove "$data/$c.zkey" "$data/$c.wtns" "$w/sj.proof.json" "$w/sj.public.json"
expect 0 "$czk" verify "$data/$c.vk.json" "$w/sj.public.json" "$w/sj.proof.json"
cmp -s "$w/sj.public.json" "$w/czk.public.json" ||
    node -e 'const f=require("fs");const a=JSON.parse(f.readFileSync(process.argv[1])),b=JSON.parse(f.readFileSync(process.argv[2]));if(JSON.stringify(a)!==JSON.stringify(b))process.exit(1)' "$w/sj.public.json" "$w/czk.public.json" ||
    fail "czk and snarkjs disagree on the public inputs"

step "$c: tampered public inputs and proofs are rejected by both"
tamper_public "$w/czk.public.json" "$w/bad.public.json"
expect 1 "$czk" verify "$data/$c.vk.json" "$w/bad.public.json" "$w/czk.proof.json"
sj_invalid "$data/$c.vk.json" "$w/bad.public.json" "$w/czk.proof.json"
expect 1 "$czk" verify "$data/$c.vk.json" "$w/bad.public.json" "$w/sj.proof.json"
tamper_proof "$w/czk.proof.json" "$w/bad.proof.json"
expect 1 "$czk" verify "$data/$c.vk.json" "$w/czk.public.json" "$w/bad.proof.json"
sj_invalid "$data/$c.vk.json" "$w/czk.public.json" "$w/bad.proof.json"
tamper_proof "$w/sj.proof.json" "$w/bad.sj.proof.json"
expect 1 "$czk" verify "$data/$c.vk.json" "$w/sj.public.json" "$w/bad.sj.proof.json"

step "$c: czk setup --zkey -> snarkjs proves and verifies with czk's key"
expect 0 "$czk" setup --zkey "$data/$c.r1cs" "$w/czk.zkey" "$w/czk.vk.json"
expect 0 "$snarkjs" groth16 prove "$w/czk.zkey" "$data/$c.wtns" "$w/sj2.proof.json" "$w/sj2.public.json"
sj_valid "$w/czk.vk.json" "$w/sj2.public.json" "$w/sj2.proof.json"
expect 0 "$czk" verify "$w/czk.vk.json" "$w/sj2.public.json" "$w/sj2.proof.json"
expect 0 "$czk" prove "$w/czk.zkey" "$data/$c.wtns" "$w/czk2.proof.json" "$w/czk2.public.json"
sj_valid "$w/czk.vk.json" "$w/czk2.public.json" "$w/czk2.proof.json"
# A proof under one key is not a proof under another.
expect 1 "$czk" verify "$data/$c.vk.json" "$w/czk2.public.json" "$w/czk2.proof.json"

step "$c: bellperson format: czk setup -> prove -> verify"
expect 0 "$czk" setup "$data/$c.r1cs" "$w/c.params" "$w/c.vk"
expect 0 "$czk" prove --params "$w/c.params" --r1cs "$data/$c.r1cs" --wtns "$data/$c.wtns" \
    --out "$w/c.proof.bin" --public "$w/c.public.json"
[ "$(wc -c <"$w/c.proof.bin")" -eq 192 ] || fail "the bellperson proof is not 192 bytes"
expect 0 "$czk" verify --vk "$w/c.vk" --proof "$w/c.proof.bin" --public "$w/c.public.json"
tamper_public "$w/c.public.json" "$w/c.bad.public.json"
expect 1 "$czk" verify --vk "$w/c.vk" --proof "$w/c.proof.bin" --public "$w/c.bad.public.json"
# Flip one bit of C's x coordinate: it decodes to another point or none; both are invalid.
# (A flip, not a byte written over: writing 0x01 left the proof unchanged whenever the random
# key made that byte 0x01 already, 1 run in 256.)
node -e '
    const fs = require("fs");
    const b = fs.readFileSync(process.argv[1]);
    b[191] ^= 1;
    fs.writeFileSync(process.argv[2], b);' "$w/c.proof.bin" "$w/c.bad.bin"
cmp -s "$w/c.proof.bin" "$w/c.bad.bin" && fail "the tampered bellperson proof equals the proof"
expect 1 "$czk" verify --vk "$w/c.vk" --proof "$w/c.bad.bin" --public "$w/c.public.json"

echo "interop $c: ok"
