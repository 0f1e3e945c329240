"""czk daemon proving Filecoin PoRep C2 from what Curio sends (run by run.sh in mode porep).

A 2 KiB sector sealed by `czk c2 gen` (the SDR sealer: graph, labels, trees, the C1 output in
filecoin-ffi's JSON inside Curio's wrapper), DEV keys from `czk setup --filecoin porep 2KiB` in
the directory srs.param_cache names, a POREP_SEAL_COMMIT request as Curio fills it
(request_id, sector_size, registered_proof, vanilla_proof, sector_number, miner_id), and the
192-byte proof back, which `czk c2 verify` accepts against the C1 output's public data and
refuses against tampered public data. Bad requests are INVALID_ARGUMENT naming the fault, before
any proving: a truncated or non-base64 Phase1Out, a wrong sector size, a C1 output of another
sector (replica id), a tampered label, an unknown registered proof.
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
MINER, SECTOR = 1234, 7


def porep_req(rid, vanilla, **kw):
    args = dict(request_id=rid, proof_kind=pb.POREP_SEAL_COMMIT, sector_size=2048,
                registered_proof=5, vanilla_proof=vanilla, sector_number=SECTOR, miner_id=MINER)
    args.update(kw)
    return pb.SubmitProofRequest(**args)


def details_of(fn, *a, **kw):
    try:
        fn(*a, **kw)
        return grpc.StatusCode.OK, ""
    except grpc.RpcError as e:
        return e.code(), e.details()


def rewrap(wrapper, edit):
    """Curio's wrapper with its Phase1Out JSON edited by `edit` (a function of the dict)."""
    w = json.loads(wrapper)
    c1 = json.loads(base64.b64decode(w["Phase1Out"]))
    edit(c1)
    w["Phase1Out"] = base64.b64encode(json.dumps(c1, separators=(",", ":")).encode()).decode()
    return json.dumps(w).encode()


def main():
    global ARGS, pb, rpc
    ARGS, pb, rpc = dt.setup("porep")
    keys = os.path.join(ARGS.work, "params")
    t0 = time.time()
    rc, out = dt.run_cli("setup", "--filecoin", "porep", "2KiB", "--out", keys, "--seed", "1",
                         timeout=1200)
    check(rc == 0, f"czk setup --filecoin porep 2KiB (rc {rc}: {out[-300:]})")
    print(f"porep 2KiB keys: {time.time() - t0:.1f} s", flush=True)
    c1_path = os.path.join(ARGS.work, "c1.json")
    rc, out = dt.run_cli("c2", "gen", "2KiB", "--out", c1_path, "--wrap", "--miner-id",
                         str(MINER), "--sector-id", str(SECTOR), "--seed", "5")
    check(rc == 0, f"czk c2 gen 2KiB --wrap (rc {rc}: {out[-300:]})")
    wrapper = open(c1_path, "rb").read()
    w = json.loads(wrapper)
    check(set(w) == {"SectorNum", "Phase1Out", "SectorSize"} and w["SectorSize"] == 2048,
          "the C1 file is Curio's wrapper")

    d = dt.Daemon("porep", extra=("--set", f"srs.param_cache={keys}",
                                  "--set", "memory.total_budget=6GiB"))
    s = d.stub
    t0 = time.time()
    r = s.Prove(pb.ProveRequest(submit=porep_req(f"porep-{MINER}-{SECTOR}", wrapper)),
                timeout=1200).result
    check(r.status == r.COMPLETED and len(r.proof) == 192,
          f"2 KiB PoRep C2 proves over gRPC: 192 bytes ({r.status}: {r.error_message})")
    print(f"porep 2KiB proof over gRPC: {time.time() - t0:.1f} s", flush=True)
    proof = os.path.join(ARGS.work, "proof")
    with open(proof, "wb") as f:
        f.write(r.proof)
    rc, out = dt.run_cli("c2", "verify", "--c1", c1_path, proof, "--params", keys,
                         "--miner-id", str(MINER), "--sector-id", str(SECTOR))
    check(rc == 0 and "OK" in out, f"czk c2 verify accepts the daemon's proof ({rc}: {out})")
    # The czk command as Curio's client: the C1 file sent as it is, with the sector's ids.
    cli_proof = os.path.join(ARGS.work, "cli.proof")
    rc, out = dt.run_cli("submit", "--addr", d.addr, "--c1", c1_path, "--miner-id", str(MINER),
                         "--sector-id", str(SECTOR), "--wait", "--out", cli_proof, timeout=1200)
    check(rc == 0 and "COMPLETED" in out, f"czk submit --c1 --wait proves ({rc}: {out})")
    rc, out = dt.run_cli("c2", "verify", "--c1", c1_path, cli_proof, "--params", keys,
                         "--miner-id", str(MINER), "--sector-id", str(SECTOR))
    check(rc == 0 and "OK" in out, f"czk c2 verify accepts czk submit's proof ({rc}: {out})")
    # The replica id made from another sector's number: the proof is not that sector's.
    rc, out = dt.run_cli("c2", "verify", "--c1", c1_path, cli_proof, "--params", keys,
                         "--miner-id", str(MINER), "--sector-id", str(SECTOR + 1))
    check(rc == 1 and "INVALID" in out, f"czk c2 verify with another sector's id ({rc}: {out})")
    rc, out = dt.run_cli("submit", "--addr", d.addr, "--c1", c1_path, "--miner-id", str(MINER),
                         "--sector-id", str(SECTOR + 1))
    check(rc == 2 and "replica id" in out,
          f"czk submit --c1 for another sector: refused by the daemon ({rc}: {out})")
    # Tampered public data: another seed (other challenges), another comm_r.
    for what, edit in (("seed", lambda c: c["seed"].__setitem__(0, c["seed"][0] ^ 1)),
                       ("comm_r", lambda c: c["comm_r"].__setitem__(0, c["comm_r"][0] ^ 1))):
        path = os.path.join(ARGS.work, "tampered.json")
        open(path, "wb").write(rewrap(wrapper, edit))
        rc, out = dt.run_cli("c2", "verify", "--c1", path, proof, "--params", keys)
        check(rc == 1 and "INVALID" in out, f"the proof fails against another {what} ({rc}: {out})")

    p1 = w["Phase1Out"]

    def label(c):
        rows = c["vanilla_proofs"]["StackedDrg2KiBV1"][0][0]["replica_column_proofs"]["c_x"][
            "column"]["rows"]
        rows[0][0] ^= 1  # a label of the challenged node: still a field element

    cases = [
        ("a truncated Phase1Out", porep_req("bad-1", json.dumps(dict(w, Phase1Out=p1[:-40]))
                                            .encode()), "Phase1Out"),
        ("a Phase1Out that is not base64",
         porep_req("bad-2", json.dumps(dict(w, Phase1Out="*" + p1[1:])).encode()), "base64"),
        ("a wrong sector size", porep_req("bad-3", wrapper, sector_size=8 << 20), "sector_size"),
        ("another sector's C1 output", porep_req("bad-4", wrapper, sector_number=SECTOR + 1),
         "replica id"),
        # The label's column no longer hashes to its leaf: the first check it meets.
        ("a tampered label", porep_req("bad-5", rewrap(wrapper, label)),
         "challenge 0: the challenged column"),
        ("an unknown registered proof", porep_req("bad-6", wrapper, registered_proof=99),
         "registered_proof"),
        ("a registered proof that is not the C1 output's",
         porep_req("bad-7", wrapper, registered_proof=0), "registered_proof 0"),
    ]
    for what, req, want in cases:
        t0 = time.time()
        code, msg = details_of(s.SubmitProof, req, timeout=60)
        check(code == grpc.StatusCode.INVALID_ARGUMENT and want in msg and time.time() - t0 < 10,
              f"{what}: INVALID_ARGUMENT naming it at once ({code.name}: {msg})")

    # filecoin-ffi's JSON without the wrapper is taken too (the kind recognises both).
    plain = base64.b64decode(p1)
    r = s.Prove(pb.ProveRequest(submit=porep_req("plain-1", plain)), timeout=1200).result
    check(r.status == r.COMPLETED and len(r.proof) == 192,
          f"the unwrapped C1 JSON proves too ({r.status}: {r.error_message})")

    # Synthetic PoRep (Curio's UseSyntheticPoRep): a sector sealed as
    # StackedDrg2KiBV1_1_Feat_SyntheticPoRep (abi 10), its C1 output proving the challenges the
    # seed selects from comm_r's synthetic set; the same circuit and keys.
    syn_path = os.path.join(ARGS.work, "c1-synthetic.json")
    rc, out = dt.run_cli("c2", "gen", "2KiB", "--synthetic", "--out", syn_path, "--wrap",
                         "--miner-id", str(MINER), "--sector-id", str(SECTOR + 1), "--seed", "6")
    check(rc == 0, f"czk c2 gen 2KiB --synthetic --wrap (rc {rc}: {out[-300:]})")
    syn = open(syn_path, "rb").read()
    r = s.Prove(pb.ProveRequest(submit=porep_req(f"porep-{MINER}-{SECTOR + 1}", syn,
                                                 registered_proof=10,
                                                 sector_number=SECTOR + 1)),
                timeout=1200).result
    check(r.status == r.COMPLETED and len(r.proof) == 192,
          f"a synthetic 2 KiB C1 output proves over gRPC ({r.status}: {r.error_message})")
    syn_proof = os.path.join(ARGS.work, "synthetic.proof")
    with open(syn_proof, "wb") as f:
        f.write(r.proof)
    rc, out = dt.run_cli("c2", "verify", "--c1", syn_path, syn_proof, "--params", keys,
                         "--miner-id", str(MINER), "--sector-id", str(SECTOR + 1))
    check(rc == 0 and "OK" in out, f"czk c2 verify accepts the synthetic proof ({rc}: {out})")
    w = json.loads(syn)
    inner = json.loads(base64.b64decode(w["Phase1Out"]))
    inner["registered_proof"] = "StackedDrg2KiBV1_2_Feat_NonInteractivePoRep"
    ni = json.dumps(dict(w, Phase1Out=base64.b64encode(json.dumps(inner).encode()).decode()))
    code, msg = details_of(s.SubmitProof, porep_req("ni-1", ni.encode(), registered_proof=15,
                                                    sector_number=SECTOR + 1), timeout=60)
    check(code == grpc.StatusCode.INVALID_ARGUMENT and "non-interactive" in msg,
          f"NI-PoRep is refused, saying why ({code.name}: {msg})")

    rc = d.stop()
    check(rc == 0, f"daemon exits 0 on SIGTERM (got {rc})")
    dt.finish()


if __name__ == "__main__":
    main()
