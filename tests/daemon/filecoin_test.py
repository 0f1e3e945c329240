"""czk daemon proving Filecoin PoSt from what Curio sends (run by run.sh in mode filecoin).

A 2 KiB WindowPoSt partition over gRPC: DEV keys from `czk setup --filecoin` in the directory
srs.param_cache names, vanilla proofs of a real 2 KiB sector tree written by the unit-test
runner (czk_tests --only filecoin_post_fixture: Python has no Poseidon), a WINDOW_POST_PARTITION
request with registered_proof, randomness, miner_id, partition_index and vanilla_proofs, and the
192-byte proof back. Bad requests are INVALID_ARGUMENT naming the fault; a tampered leaf passes
submit (its path is only hashed in the circuit) and fails the job.
"""
import os
import subprocess

import grpc

import daemon_test as dt
from daemon_test import check

ARGS = None
pb = None
rpc = None


def make_inputs():
    keys = os.path.join(ARGS.work, "params")
    fixture = os.path.join(ARGS.work, "fixture")
    os.makedirs(fixture, exist_ok=True)
    rc, out = dt.run_cli("setup", "--filecoin", "window-post", "2KiB", "--out", keys,
                         "--seed", "1")
    check(rc == 0, f"czk setup --filecoin window-post 2KiB (rc {rc}: {out[-300:]})")
    tests = os.path.join(os.path.dirname(os.path.abspath(ARGS.czk)), "czk_tests")
    p = subprocess.run([tests, "--only", "filecoin_post_fixture"], capture_output=True,
                       text=True, timeout=300,
                       env={**os.environ, "CZK_FILECOIN_FIXTURE_DIR": fixture})
    check(p.returncode == 0, f"czk_tests writes the vanilla proofs ({p.stdout[-300:]})")
    rnd = open(os.path.join(fixture, "randomness.bin"), "rb").read()
    proofs = [open(os.path.join(fixture, f"vanilla-{i}.bin"), "rb").read() for i in range(2)]
    return keys, rnd, proofs


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

    r = s.Prove(pb.ProveRequest(submit=post_req("wpost-1", rnd, proofs)), timeout=300).result
    check(r.status == r.COMPLETED and len(r.proof) == 192,
          f"2 KiB WindowPoSt proves over gRPC: 192 bytes ({r.status}: {r.error_message})")

    bad_rnd = bytes([rnd[0] ^ 1]) + rnd[1:]
    tampered = bytearray(proofs[0])
    tampered[92] ^= 1  # the first inclusion proof's leaf: still a field element
    cases = [
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

    rc = d.stop()
    check(rc == 0, f"daemon exits 0 on SIGTERM (got {rc})")
    dt.finish()


if __name__ == "__main__":
    main()
