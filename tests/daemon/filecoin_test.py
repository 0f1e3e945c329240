"""czk daemon proving Filecoin PoSt from what Curio sends (run by run.sh in mode filecoin).

2 KiB WindowPoSt and WinningPoSt and a 32 GiB WinningPoSt over gRPC, as Curio sends them: DEV
keys from `czk setup --filecoin` in the directory srs.param_cache names, vanilla proofs and
Curio's public JSON from `czk post gen` (Python has no Poseidon), a WINDOW_POST_PARTITION or
WINNING_POST request with registered_proof, randomness, miner_id, partition_index and
vanilla_proofs, and the 192-byte proof back, which `czk post verify` then accepts against the
public JSON and refuses against tampered public data. Bad requests are INVALID_ARGUMENT naming
the fault; a tampered leaf passes submit (its path is only hashed in the circuit) and fails the
job; with no key files the message names the path searched and the file expected. The czk
command sends the same requests (`czk submit --post`, `czk bench --post`).
"""
import base64
import json
import os
import shutil
import time

import grpc

import daemon_test as dt
from daemon_test import check

ARGS = None
pb = None
rpc = None


def gen(kind, size, out, *args):
    """czk post gen: Curio's public JSON and one vanilla proof per sector, read back."""
    rc, msg = dt.run_cli("post", "gen", kind, size, "--out", out, "--seed", "5", *args)
    check(rc == 0, f"czk post gen {kind} {size} (rc {rc}: {msg[-300:]})")
    pub = json.load(open(os.path.join(out, "post.pub.json")))
    rnd = base64.b64decode(pub["Randomness"])
    proofs = [open(os.path.join(out, f"sector-{c['SectorNumber']}.vproof"), "rb").read()
              for c in pub["ChallengedSectors"]]
    return rnd, proofs


def make_inputs():
    keys = os.path.join(ARGS.work, "params")
    # A key left by an earlier run in this build tree would hide the missing-key case below.
    shutil.rmtree(keys, ignore_errors=True)
    rc, out = dt.run_cli("setup", "--filecoin", "window-post", "2KiB", "--out", keys,
                         "--seed", "1")
    check(rc == 0, f"czk setup --filecoin window-post 2KiB (rc {rc}: {out[-300:]})")
    rnd, proofs = gen("window-post", "2KiB", os.path.join(ARGS.work, "wpost"), "--sectors", "2",
                      "--registered-proof", "5")
    return keys, rnd, proofs


def winning_32g(s, keys):
    """32 GiB WinningPoSt: keys made here (about 30 s on 2 cores), the proof checked by the CLI
    against Curio's public JSON and refused for tampered public data."""
    t0 = time.time()
    rc, out = dt.run_cli("setup", "--filecoin", "winning-post", "32GiB", "--out", keys,
                         "--seed", "3", timeout=1200)
    check(rc == 0, f"czk setup --filecoin winning-post 32GiB (rc {rc}: {out[-300:]})")
    print(f"winning-post 32GiB keys: {time.time() - t0:.1f} s", flush=True)
    d = os.path.join(ARGS.work, "win32")
    rnd, proofs = gen("winning-post", "32GiB", d)
    t0 = time.time()
    r = s.Prove(pb.ProveRequest(submit=post_req("win32-1", rnd, proofs, registered_proof=3,
                                                proof_kind=pb.WINNING_POST)),
                timeout=1200).result
    check(r.status == r.COMPLETED and len(r.proof) == 192,
          f"32 GiB WinningPoSt proves over gRPC: 192 bytes ({r.status}: {r.error_message})")
    print(f"winning-post 32GiB proof over gRPC: {time.time() - t0:.1f} s", flush=True)
    proof = os.path.join(d, "proof")
    with open(proof, "wb") as f:
        f.write(r.proof)
    pub = os.path.join(d, "post.pub.json")
    rc, out = dt.run_cli("post", "verify", pub, proof, "--params", keys)
    check(rc == 0 and "OK" in out, f"czk post verify accepts the daemon's proof ({rc}: {out})")
    data = json.load(open(pub))
    for what, edit in (("randomness", lambda d: d.update(
            Randomness=base64.b64encode(bytes([rnd[0] ^ 1]) + rnd[1:]).decode())),
            ("sector number", lambda d: d["ChallengedSectors"][0].update(
                SectorNumber=d["ChallengedSectors"][0]["SectorNumber"] + 1))):
        bad = json.loads(json.dumps(data))
        edit(bad)
        path = os.path.join(d, "tampered.json")
        json.dump(bad, open(path, "w"))
        rc, out = dt.run_cli("post", "verify", path, proof, "--params", keys)
        check(rc == 1 and "INVALID" in out,
              f"the proof fails against another {what} (rc {rc}: {out})")


def cli_requests(d, keys):
    """The czk command as a Curio-shaped client: `czk submit --post` sends the public JSON's
    request with the vanilla proofs beside it (or named by --vproof), and the proof it writes
    verifies; `czk bench --post` times several; a vanilla proof of another sector is refused
    before anything is sent, naming the file."""
    wp = os.path.join(ARGS.work, "wpost")
    pub = os.path.join(wp, "post.pub.json")
    proof = os.path.join(wp, "cli.proof")
    rc, out = dt.run_cli("submit", "--addr", d.addr, "--post", pub, "--wait", "--out", proof)
    check(rc == 0 and "COMPLETED" in out, f"czk submit --post --wait proves ({rc}: {out})")
    rc, out = dt.run_cli("post", "verify", pub, proof, "--params", keys)
    check(rc == 0 and "OK" in out, f"czk post verify accepts czk submit's proof ({rc}: {out})")
    v1, v2 = (os.path.join(wp, f"sector-{n}.vproof") for n in (1, 2))
    rc, out = dt.run_cli("bench", "--addr", d.addr, "--post", pub, "--vproof", v1, "--vproof",
                         v2, "-c", "2", "-j", "2")
    check(rc == 0 and "completed=2 failed=0" in out and "median_wall_ms=" in out,
          f"czk bench --post: 2 proofs and their median ({rc}: {out[-300:]})")
    rc, out = dt.run_cli("submit", "--addr", d.addr, "--post", pub, "--vproof", v2, "--vproof",
                         v1)
    check(rc == 2 and "sector-2.vproof is not a proof of ChallengedSectors[0]" in out,
          f"czk submit --post: proofs out of order are refused, naming the file ({rc}: {out})")
    rc, out = dt.run_cli("submit", "--addr", d.addr, "--circuit", "x", "--vproof", v1)
    check(rc == 2 and "--vproof and --partition-index go with --post" in out,
          f"czk submit: --vproof without --post is refused ({rc}: {out})")


def post_req(rid, rnd, proofs, **kw):
    args = dict(request_id=rid, proof_kind=pb.WINDOW_POST_PARTITION, registered_proof=5,
                randomness=rnd, miner_id=1234, partition_index=0, vanilla_proofs=proofs)
    args.update(kw)
    return pb.SubmitProofRequest(**args)


def details_of(fn, *a, **kw):
    try:
        fn(*a, **kw)
        return grpc.StatusCode.OK, ""
    except grpc.RpcError as e:
        return e.code(), e.details()


def main():
    global ARGS, pb, rpc
    ARGS, pb, rpc = dt.setup("filecoin")
    keys, rnd, proofs = make_inputs()
    d = dt.Daemon("filecoin", extra=("--set", f"srs.param_cache={keys}"))
    s = d.stub

    # Curio's id: fmt.Sprintf("wdpost-%d-%d-%d", minerID, partitionIdx, randomness[:8]).
    wd_id = f"wdpost-1234-0-[{' '.join(str(b) for b in rnd[:8])}]"
    r = s.Prove(pb.ProveRequest(submit=post_req(wd_id, rnd, proofs)), timeout=300).result
    check(r.status == r.COMPLETED and len(r.proof) == 192 and r.job_id == wd_id,
          f"2 KiB WindowPoSt proves over gRPC under Curio's id {wd_id!r}: 192 bytes "
          f"({r.status}: {r.error_message})")
    check(len(r.proof_json) == 0 and len(r.public_json) == 0,
          "a Filecoin result carries no snarkjs JSON (its clients read the 192 bytes)")

    cli_requests(d, keys)

    bad_rnd = bytes([rnd[0] ^ 1]) + rnd[1:]
    tampered = bytearray(proofs[0])
    tampered[92] ^= 1  # the first inclusion proof's leaf: still a field element
    long_path = bytearray(proofs[0])
    long_path[124] = 3  # the first base path's level count (2 at 2 KiB)
    cases = [
        ("randomness >= r", post_req("bad-0", b"\xff" * 32, proofs), "randomness"),
        ("a path of the wrong length", post_req("bad-7", rnd, [bytes(long_path), proofs[1]]),
         "inclusion proof 0 base path length is 3, expected 2"),
        ("2 KiB proofs under the 8 MiB registered proof",
         post_req("bad-8", rnd, proofs, registered_proof=6),
         "base path length is 2, expected 6"),
        ("another randomness", post_req("bad-1", bad_rnd, proofs), "vanilla proof 0"),
        ("randomness of 31 bytes", post_req("bad-2", rnd[:31], proofs), "randomness"),
        ("a WinningPoSt registered proof", post_req("bad-3", rnd, proofs, registered_proof=0),
         "registered_proof"),
        ("not a PoSt proof", post_req("bad-4", rnd, proofs, registered_proof=99),
         "registered_proof"),
        ("a truncated vanilla proof", post_req("bad-5", rnd, [proofs[0][:-1], proofs[1]]),
         "vanilla proof 0"),
        ("three sectors in a 2-sector partition", post_req("bad-6", rnd, proofs + proofs[:1]),
         "3 vanilla proofs"),
    ]
    for what, req, want in cases:
        code, msg = details_of(s.SubmitProof, req, timeout=30)
        check(code == grpc.StatusCode.INVALID_ARGUMENT and want in msg,
              f"{what}: INVALID_ARGUMENT naming it ({code.name}: {msg})")

    a = s.SubmitProof(post_req("leaf-1", rnd, [bytes(tampered), proofs[1]]), timeout=30)
    r = s.AwaitProof(pb.AwaitProofRequest(job_id=a.job_id), timeout=300)
    check(r.status == r.FAILED, f"a tampered leaf fails the job ({r.status}: {r.error_message})")

    code, msg = details_of(s.SubmitProof, post_req("win-1", rnd, proofs[:1], registered_proof=0,
                                                   proof_kind=pb.WINNING_POST), timeout=30)
    check(code == grpc.StatusCode.INVALID_ARGUMENT and "vanilla proof 0" in msg,
          f"a WindowPoSt proof sent as WinningPoSt: INVALID_ARGUMENT ({code.name}: {msg})")

    # A WinningPoSt 2 KiB request, whose key was never made: refused at submit, naming the
    # directory searched and the file expected.
    wrnd, win = gen("winning-post", "2KiB", os.path.join(ARGS.work, "win2k"))
    code, msg = details_of(s.SubmitProof, post_req("nokey-1", wrnd, win, registered_proof=0,
                                                   proof_kind=pb.WINNING_POST), timeout=30)
    check(code == grpc.StatusCode.INVALID_ARGUMENT and keys in msg
          and "v28-proof-of-spacetime-fallback" in msg and ".params" in msg,
          f"no key file: the message names {keys} and the v28 file ({code.name}: {msg})")

    # Its keys made, the same request proves (the daemon looks the file up again at submit).
    rc, out = dt.run_cli("setup", "--filecoin", "winning-post", "2KiB", "--out", keys,
                         "--seed", "2")
    check(rc == 0, f"czk setup --filecoin winning-post 2KiB (rc {rc}: {out[-300:]})")
    # Curio's id: fmt.Sprintf("winpost-%d-%x", minerID, randomness[:8]).
    win_id = f"winpost-1234-{wrnd[:8].hex()}"
    r = s.Prove(pb.ProveRequest(submit=post_req(win_id, wrnd, win, registered_proof=0,
                                                proof_kind=pb.WINNING_POST)),
                timeout=300).result
    check(r.status == r.COMPLETED and len(r.proof) == 192 and r.job_id == win_id,
          f"2 KiB WinningPoSt proves over gRPC under Curio's id {win_id!r}: 192 bytes "
          f"({r.status}: {r.error_message})")

    winning_32g(s, keys)

    rc = d.stop()
    check(rc == 0, f"daemon exits 0 on SIGTERM (got {rc})")
    dt.finish()


if __name__ == "__main__":
    main()
