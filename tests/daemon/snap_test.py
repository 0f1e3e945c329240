"""czk daemon proving Filecoin SnapDeals from what Curio sends (run by run.sh in mode snap).

A consistent 2 KiB sector update from `czk snap gen` (Python has no Poseidon): the vanilla
partition proofs as Curio keeps them (a JSON list of base64 strings) and the public data
(the three commitments in hex); DEV keys from `czk setup --filecoin snap 2KiB` in the directory
srs.param_cache names (kept between runs in the build tree: making them takes some 90 s on 2
cores); a SNAP_DEALS_UPDATE request as Curio's ProveUpdateCuzk fills it (request_id
snap-{miner}-{sector}, sector_size, registered_proof = abi RegisteredUpdateProof 0,
vanilla_proofs, sector_number, miner_id, comm_r_old, comm_r_new, comm_d_new as raw 32 bytes),
and the 192-byte proof back, which `czk snap verify` accepts against the public data and refuses
against tampered public data. Bad requests are INVALID_ARGUMENT naming the fault, at once:
missing or short commitments, another update's commitment, a flipped byte of a vanilla proof
(naming the partition), the wrong number of vanilla proofs, an unknown registered proof, a
sector size that is not the registered proof's.
"""
import base64
import json
import os
import time

import grpc

import daemon_test as dt
from daemon_test import check

ARGS = None
pb = None
rpc = None
MINER, SECTOR = 1000, 7


def details_of(fn, *a, **kw):
    try:
        fn(*a, **kw)
        return grpc.StatusCode.OK, ""
    except grpc.RpcError as e:
        return e.code(), e.details()


def snap_req(rid, vproofs, pub, **kw):
    """A SNAP_DEALS_UPDATE request with Curio's fields (lib/ffi/cuzk_funcs.go ProveUpdateCuzk)."""
    args = dict(request_id=rid, proof_kind=pb.SNAP_DEALS_UPDATE, sector_size=2048,
                registered_proof=0, priority=pb.NORMAL, vanilla_proofs=vproofs,
                sector_number=SECTOR, miner_id=MINER,
                comm_r_old=bytes.fromhex(pub["comm_r_old"]),
                comm_r_new=bytes.fromhex(pub["comm_r_new"]),
                comm_d_new=bytes.fromhex(pub["comm_d_new"]))
    args.update(kw)
    return pb.SubmitProofRequest(**args)


def flip(b, i):
    return b[:i] + bytes([b[i] ^ 1]) + b[i + 1:]


def main():
    global ARGS, pb, rpc
    ARGS, pb, rpc = dt.setup("snap")
    keys = os.path.join(ARGS.work, "params")
    have = os.path.isdir(keys) and sum(f.startswith("v28-empty-sector-update")
                                       for f in os.listdir(keys)) == 2
    t0 = time.time()
    if not have:
        rc, out = dt.run_cli("setup", "--filecoin", "snap", "2KiB", "--out", keys, "--seed", "1",
                             timeout=1200)
        check(rc == 0, f"czk setup --filecoin snap 2KiB (rc {rc}: {out[-300:]})")
        print(f"snap 2KiB keys: {time.time() - t0:.1f} s", flush=True)
    else:
        print("snap 2KiB keys: kept from an earlier run", flush=True)
    gen = os.path.join(ARGS.work, "update")
    rc, out = dt.run_cli("snap", "gen", "2KiB", "--out", gen, "--miner-id", str(MINER),
                         "--sector-id", str(SECTOR), "--seed", "5")
    check(rc == 0, f"czk snap gen 2KiB (rc {rc}: {out[-300:]})")
    listed = json.load(open(os.path.join(gen, "vanilla_proofs.json")))
    check(isinstance(listed, list) and len(listed) == 1 and all(isinstance(x, str)
                                                                for x in listed),
          "vanilla_proofs.json is Go's [][]byte: a list of base64 strings")
    vproofs = [base64.b64decode(x, validate=True) for x in listed]
    pub_path = os.path.join(gen, "public.json")
    pub = json.load(open(pub_path))
    check(pub["registered_proof"] == 0 and pub["h"] == 1 and len(vproofs[0]) == 15064,
          f"public.json: registered proof 0, h 1; a 15,064-byte partition proof ({pub})")

    d = dt.Daemon("snap", extra=("--set", f"srs.param_cache={keys}",
                                 "--set", "memory.total_budget=6GiB"))
    s = d.stub
    t0 = time.time()
    rid = f"snap-{MINER}-{SECTOR}"
    r = s.Prove(pb.ProveRequest(submit=snap_req(rid, vproofs, pub)), timeout=1200).result
    check(r.status == r.COMPLETED and len(r.proof) == 192,
          f"2 KiB SnapDeals proves over gRPC: 192 bytes ({r.status}: {r.error_message})")
    print(f"snap 2KiB proof over gRPC: {time.time() - t0:.1f} s", flush=True)
    proof = os.path.join(ARGS.work, "snap.proof")
    with open(proof, "wb") as f:
        f.write(r.proof)
    rc, out = dt.run_cli("snap", "verify", gen, proof, "--params", keys)
    check(rc == 0 and "OK" in out, f"czk snap verify accepts the daemon's proof ({rc}: {out})")
    # The czk command as Curio's client: the same files sent as SNAP_DEALS_UPDATE; without
    # --request-id it takes Curio's id, snap-MINER-SECTOR, and so attaches to the job above.
    cli_proof = os.path.join(ARGS.work, "cli.proof")
    rc, out = dt.run_cli("submit", "--addr", d.addr, "--snap", gen, "--wait", "--out", cli_proof)
    check(rc == 0 and f"job {rid} " in out and "COMPLETED" in out,
          f"czk submit --snap --wait: Curio's id, COMPLETED ({rc}: {out})")
    rc, out = dt.run_cli("snap", "verify", gen, cli_proof, "--params", keys)
    check(rc == 0 and "OK" in out, f"czk snap verify accepts czk submit's proof ({rc}: {out})")
    rc, out = dt.run_cli("submit", "--addr", d.addr, "--snap", ARGS.work)
    check(rc == 2 and "public.json" in out,
          f"czk submit --snap without the files names the one missing ({rc}: {out})")
    # The proof against tampered public data: another update's commitments.
    bad_dir = os.path.join(ARGS.work, "tampered")
    os.makedirs(bad_dir, exist_ok=True)
    for what in ("comm_r_old", "comm_r_new", "comm_d_new"):
        bad = dict(pub)
        bad[what] = flip(bytes.fromhex(pub[what]), 0).hex()
        with open(os.path.join(bad_dir, "public.json"), "w") as f:
            json.dump(bad, f)
        rc, out = dt.run_cli("snap", "verify", bad_dir, proof, "--params", keys)
        check(rc == 1 and "INVALID" in out, f"the proof fails against another {what} ({rc}: {out})")

    v = vproofs[0]
    cases = [
        ("a missing comm_r_old", snap_req("bad-1", vproofs, pub, comm_r_old=b""),
         "comm_r_old is 0 bytes"),
        ("a 31-byte comm_d_new", snap_req("bad-2", vproofs, pub,
                                          comm_d_new=bytes.fromhex(pub["comm_d_new"])[:31]),
         "comm_d_new is 31 bytes"),
        ("another update's comm_r_new",
         snap_req("bad-3", vproofs, pub, comm_r_new=flip(bytes.fromhex(pub["comm_r_new"]), 0)),
         "comm_r_new"),
        ("another update's comm_d_new",
         snap_req("bad-4", vproofs, pub, comm_d_new=flip(bytes.fromhex(pub["comm_d_new"]), 0)),
         "comm_d_new"),
        ("a flipped byte of a TreeROld sibling", snap_req("bad-5", [flip(v, 388)], pub),
         "vanilla proof 0: snap partition 0"),
        ("a flipped byte of comm_c", snap_req("bad-6", [flip(v, 0)], pub),
         "vanilla proof 0: snap partition 0"),
        ("a truncated vanilla proof", snap_req("bad-7", [v[:-1]], pub),
         "snap partition proof 0"),
        ("two vanilla proofs", snap_req("bad-8", vproofs * 2, pub), "2 vanilla_proofs"),
        ("no vanilla proof", snap_req("bad-9", [], pub, vanilla_proof=v), "vanilla_proofs"),
        ("an unknown registered proof", snap_req("bad-10", vproofs, pub, registered_proof=7),
         "registered_proof 7"),
        ("a sector size that is not the registered proof's",
         snap_req("bad-11", vproofs, pub, sector_size=8 << 20), "sector_size 8388608"),
        ("8 MiB's registered proof for 2 KiB proofs",
         snap_req("bad-12", vproofs, pub, sector_size=0, registered_proof=1),
         "vanilla_proofs"),
    ]
    for what, req, want in cases:
        t0 = time.time()
        code, msg = details_of(s.SubmitProof, req, timeout=60)
        check(code == grpc.StatusCode.INVALID_ARGUMENT and want in msg and time.time() - t0 < 10,
              f"{what}: INVALID_ARGUMENT naming it at once ({code.name}: {msg})")

    rc = d.stop()
    check(rc == 0, f"daemon exits 0 on SIGTERM (got {rc})")
    dt.finish()


if __name__ == "__main__":
    main()
