#!/bin/sh
# The Filecoin commands end to end, without a GPU. Run by ctest (tests/filecoin/ctest.cmake):
#
#   run.sh <czk binary> <work dir>
#
# czk circuit info --json must give doc/FILECOIN.md §5's figures (constraints and nnz_a with the
# prover's input rows) and §8's digests, exactly as one line; bad arguments exit 2 with a clear
# message; czk setup --filecoin must write the two files under rust-fil-proofs' v28 names
# (parameters.json), with n_ic = inputs and the sizes circuit info announces. Fails on the first
# step that does not do what it should.
set -eu
czk=$1
work=$2
w=$work/run
. "$(cd "$(dirname "$0")/.." && pwd)/lib.sh"
fresh_dir "$w"

# info KIND SIZE JSON: czk circuit info --json prints exactly JSON.
info() {
    expect 0 "$czk" circuit info "$1" "$2" --json
    [ "$(cat "$w/out")" = "$3" ] || fail "circuit info $1 $2: got $(cat "$w/out"), wanted $3"
}

P=v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher
WIN2K=$P-8-0-0-3ea05428c9d11689f23529cde32fd30aabd50f7d2c93657c1d3650bca3e8ea9e
WIN32G=$P-8-8-0-559e581f022bb4e4ec6e719e563bf0e026ad6de42e56c18714a2c692b1b88d7e
WDW2K=$P-8-0-0-0170db1f394b35d995252228ee359194b13199d259380541dc529fb0099096b0

step "circuit info: FILECOIN.md §5 and §12 figures, §8 and §12 digests"
info window-post 2KiB '{"constraints": 21889, "inputs": 23, "aux": 22128, "nnz_a": 150285, "nnz_b": 22230, "nnz_c": 27456, "a_aux_density": 16770, "b_input_density": 1, "b_aux_density": 16028, "digest": "337e786ad1306f56f1e6762ae36ccb4ed07e9305d835960ad36ad9a52c07c805"}'
info winning-post 2KiB '{"constraints": 90883, "inputs": 133, "aux": 91674, "nnz_a": 621985, "nnz_b": 92070, "nnz_c": 113652, "a_aux_density": 69300, "b_input_density": 1, "b_aux_density": 66792, "digest": "e5413103701313236ffc97a6cfa34095321ad8cc3495124a5b465d9411279e41"}'
info porep 2KiB '{"constraints": 2687961, "inputs": 40, "aux": 2685673, "nnz_a": 6421005, "nnz_b": 2689006, "nnz_c": 5824682, "a_aux_density": 2674908, "b_input_density": 1, "b_aux_density": 685521, "digest": "16f31e3127e4e1c34e79d246ee05e6888d71e431db5ddcf0c903c586562872b5"}'
info winning-post 32GiB '{"constraints": 370723, "inputs": 133, "aux": 375210, "nnz_a": 2549185, "nnz_b": 376662, "nnz_c": 465300, "a_aux_density": 284196, "b_input_density": 1, "b_aux_density": 272184, "digest": "141218939cac1296332934212ffde0beea79dd58de0af156d3eb672ae7605b19"}'

step "circuit info: the human form names the v28 files"
expect 0 "$czk" circuit info window-post 2KiB
grep -q "^constraints  *21,889 (21,866 rows + 23 input rows), domain 2^15$" "$w/out" ||
    fail "human form: constraints line"
grep -q "^digest  *337e786ad1306f56f1e6762ae36ccb4ed07e9305d835960ad36ad9a52c07c805$" "$w/out" ||
    fail "human form: digest line"
grep -q "^params  *$WDW2K\.params (" "$w/out" || fail "human form: .params name"
grep -q "^vk  *$WDW2K\.vk (" "$w/out" || fail "human form: .vk name"
expect 0 "$czk" circuit info winning-post 32GiB
grep -q "^params  *$WIN32G\.params (" "$w/out" || fail "human form: winning 32GiB .params name"

step "circuit info: bad arguments"
expect 2 "$czk" circuit info window-post 4KiB
err_has "unknown sector size '4KiB'"
expect 2 "$czk" circuit info stacked-drg 2KiB
err_has "unknown circuit kind 'stacked-drg'"
expect 2 "$czk" circuit info porep 4KiB
err_has "unknown sector size '4KiB'"
expect 2 "$czk" circuit info window-post
err_has "KIND and SIZE"
expect 2 "$czk" circuit info window-post 2KiB --yaml
err_has "bad argument '--yaml'"
expect 2 "$czk" circuit frobnicate
err_has "unknown subcommand 'frobnicate'"
expect 0 "$czk" circuit info --help

# setup_check KIND SIZE NAME INPUTS DIR: czk setup --filecoin writes exactly NAME.params and NAME.vk
# into DIR,
# the .vk holds INPUTS IC points, and both sizes are the ones circuit info announces.
setup_check() {
    d=$5
    expect 0 "$czk" setup --filecoin "$1" "$2" --out "$d" --seed 7
    [ -f "$d/$3.params" ] || fail "$3.params missing in $d"
    [ -f "$d/$3.vk" ] || fail "$3.vk missing in $d"
    [ "$(ls "$d" | wc -l)" = 2 ] || fail "$d holds more than the two files: $(ls "$d")"
    n_ic=$(od -An -tu1 -j864 -N4 "$d/$3.vk" | awk '{print $1*16777216 + $2*65536 + $3*256 + $4}')
    [ "$n_ic" = "$4" ] || fail "$3.vk: n_ic $n_ic, wanted $4 inputs"
    vk_size=$(wc -c <"$d/$3.vk" | tr -d ' ')
    [ "$vk_size" = $((868 + 96 * $4)) ] || fail "$3.vk: $vk_size bytes"
    "$czk" circuit info "$1" "$2" >"$w/info"
    want=$(sed -n 's/^params .*(\([0-9,]*\) bytes)$/\1/p' "$w/info" | tr -d ,)
    got=$(wc -c <"$d/$3.params" | tr -d ' ')
    [ -n "$want" ] && [ "$got" = "$want" ] || fail "$3.params: $got bytes, circuit info says $want"
}

step "setup --filecoin window-post 2KiB"
mkdir -p "$w/keys"
setup_check window-post 2KiB "$WDW2K" 23 "$w/keys"
step "setup --filecoin winning-post 2KiB (into a directory to create, two levels deep)"
setup_check winning-post 2KiB "$WIN2K" 133 "$w/new/keys"

step "setup --filecoin: refusals"
# The 32 GiB WindowPoSt keys need some 91 GiB while they are made: a smaller host refuses
# before it writes anything (a larger one would make them: not here).
if [ "$(awk '/^MemTotal/ {print $2}' /proc/meminfo)" -lt 94371840 ]; then
    expect 2 "$czk" setup --filecoin window-post 32GiB --out "$w/big"
    err_has "GiB of memory while they are made"
    [ ! -e "$w/big" ] || fail "a refused setup created its directory"
fi
expect 2 "$czk" setup --filecoin window-post 2KiB
err_has "--out DIR"
# The 32 GiB PoRep keys need some 98 GiB (key generation's arrays and three challenges'
# rows): counted first, and refused before anything is recorded or written on a smaller host.
if [ "$(awk '/^MemTotal/ {print $2}' /proc/meminfo)" -lt 100663296 ]; then
    expect 2 "$czk" setup --filecoin porep 32GiB --out "$w/bigporep"
    err_has "GiB of memory while they are made"
    [ ! -e "$w/bigporep" ] || fail "a refused setup created its directory"
fi
expect 2 "$czk" setup --filecoin window-post 3KiB --out "$w/bad"
err_has "unknown sector size '3KiB'"
touch "$w/afile"
expect 2 "$czk" setup --filecoin window-post 2KiB --out "$w/afile"
err_has "not a directory"

# post_round KIND KEYS DIR ARGS...: czk post gen, prove and verify one partition with the keys
# in KEYS; the proof is 192 bytes and verifies.
post_round() {
    kind=$1 keys=$2 d=$3
    shift 3
    expect 0 "$czk" post gen "$kind" 2KiB --out "$d" --seed 11 "$@"
    [ -f "$d/post.pub.json" ] || fail "post gen: no post.pub.json in $d"
    expect 0 "$czk" post prove "$d/post.pub.json" --out "$d/proof" --params "$keys" --seed 2
    [ "$(wc -c <"$d/proof" | tr -d ' ')" = 192 ] || fail "post prove: proof is not 192 bytes"
    expect 0 "$czk" post verify "$d/post.pub.json" "$d/proof" --params "$keys"
    grep -q "^OK: the proof is valid$" "$w/out" || fail "post verify: no OK line"
}

step "post: WindowPoSt 2 KiB (2 sectors) and WinningPoSt 2 KiB, gen -> prove -> verify"
post_round window-post "$w/keys" "$w/wp" --sectors 2
[ -f "$w/wp/sector-1.vproof" ] && [ -f "$w/wp/sector-2.vproof" ] || fail "post gen: vproofs"
post_round winning-post "$w/new/keys" "$w/win"
# The keys from $FIL_PROOFS_PARAMETER_CACHE when --params is absent.
FIL_PROOFS_PARAMETER_CACHE=$w/keys expect 0 "$czk" post verify "$w/wp/post.pub.json" "$w/wp/proof"

step "post: WindowPoSt 512 MiB (a tree of 8 octree levels), keys to verified proof"
expect 0 "$czk" setup --filecoin window-post 512MiB --out "$w/keys512" --seed 5
expect 0 "$czk" post gen window-post 512MiB --out "$w/wp512" --seed 13 --registered-proof 7
expect 0 "$czk" post prove "$w/wp512/post.pub.json" --out "$w/wp512/proof" \
    --params "$w/keys512"
expect 0 "$czk" post verify "$w/wp512/post.pub.json" "$w/wp512/proof" --params "$w/keys512"

step "post verify: tampered public data fails (randomness, sector number, comm_r)"
sed 's/"Randomness":"./"Randomness":"A/; s/"Randomness":"AA/"Randomness":"BA/' \
    "$w/wp/post.pub.json" >"$w/t1.json"
cmp -s "$w/t1.json" "$w/wp/post.pub.json" && fail "the randomness edit changed nothing"
expect 1 "$czk" post verify "$w/t1.json" "$w/wp/proof" --params "$w/keys"
grep -q "^INVALID" "$w/out" || fail "tampered randomness: no INVALID line"
sed 's/"SectorNumber":2,/"SectorNumber":3,/' "$w/wp/post.pub.json" >"$w/t2.json"
cmp -s "$w/t2.json" "$w/wp/post.pub.json" && fail "the sector edit changed nothing"
expect 1 "$czk" post verify "$w/t2.json" "$w/wp/proof" --params "$w/keys"
# The second sector's CID taken for the first's.
python3 - "$w/wp/post.pub.json" "$w/t3.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
s = d["ChallengedSectors"]
s[0]["SealedCID"] = s[1]["SealedCID"]
json.dump(d, open(sys.argv[2], "w"))
PY
expect 1 "$czk" post verify "$w/t3.json" "$w/wp/proof" --params "$w/keys"
# A proof of the other partition's public inputs: the winning proof against window data.
expect 1 "$czk" post verify "$w/wp/post.pub.json" "$w/win/proof" --params "$w/keys"
head -c 191 "$w/wp/proof" >"$w/short"
expect 2 "$czk" post verify "$w/wp/post.pub.json" "$w/short" --params "$w/keys"
err_has "short"

step "post prove: refusals"
expect 2 "$czk" post prove "$w/wp/post.pub.json" --out "$w/p2" --params "$w/none"
err_has "$w/none"
err_has "$WDW2K.params"
expect 2 "$czk" post prove "$w/wp/post.pub.json" "$w/wp/sector-1.vproof" --out "$w/p2" \
    --params "$w/keys"
err_has "1 vanilla proofs for the 2 ChallengedSectors"
expect 2 "$czk" post prove "$w/wp/post.pub.json" "$w/wp/sector-2.vproof" \
    "$w/wp/sector-1.vproof" --out "$w/p2" --params "$w/keys"
err_has "is not a proof of ChallengedSectors[0]"
head -c 1000 "$w/wp/sector-1.vproof" >"$w/cut.vproof"
expect 2 "$czk" post prove "$w/wp/post.pub.json" "$w/cut.vproof" "$w/wp/sector-2.vproof" \
    --out "$w/p2" --params "$w/keys"
err_has "truncated"
# A leaf that is not on its path: still a field element (byte 92 is the first leaf's low
# byte), accepted as input, but no proof comes out.
python3 - "$w/wp/sector-1.vproof" "$w/leaf.vproof" <<'PY'
import sys
b = bytearray(open(sys.argv[1], "rb").read())
b[92] ^= 1
open(sys.argv[2], "wb").write(b)
PY
expect 2 "$czk" post prove "$w/wp/post.pub.json" "$w/leaf.vproof" "$w/wp/sector-2.vproof" \
    --out "$w/p2" --params "$w/keys"
err_has "nothing written"
[ ! -e "$w/p2" ] || fail "a failed proof left $w/p2"
python3 - "$w/wp/post.pub.json" "$w/t4.json" <<'PY'
import base64, json, sys
d = json.load(open(sys.argv[1]))
r = bytearray(base64.b64decode(d["Randomness"]))
r[31] = 0xFF  # the most significant byte: the value is now above r
d["Randomness"] = base64.b64encode(bytes(r)).decode()
json.dump(d, open(sys.argv[2], "w"))
PY
expect 2 "$czk" post prove "$w/t4.json" --out "$w/p2" --params "$w/keys"
err_has "Randomness is not a field element"

step "post gen: refusals"
expect 2 "$czk" post gen window-post 2KiB --out "$w/g" --sectors 3
err_has "1 to 2 sectors"
expect 2 "$czk" post gen winning-post 2KiB --out "$w/g" --partition 1
err_has "partition 0 only"
expect 2 "$czk" post gen window-post 2KiB --out "$w/g" --registered-proof 3
err_has "registered proof 3 is not window-post 2KiB"
expect 2 "$czk" post gen window-post 2KiB
err_has "--out DIR"
expect 2 "$czk" post frobnicate
err_has "unknown subcommand 'frobnicate'"

echo "filecoin cli: ok"
