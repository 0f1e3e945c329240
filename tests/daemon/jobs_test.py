"""czk daemon's job semantics, metrics and status (run by run.sh in mode jobs).

A request id names one request: the same request again attaches (idempotent), another request
under the id is ALREADY_EXISTS, before and after the job finished, and never gets the old
job's proof. Cancelling a finished job changes nothing and says so; an unknown job is
NOT_FOUND to AwaitProof and CancelProof. `czk await` exits 0 COMPLETED, 1 FAILED or CANCELLED,
3 TIMEOUT (the job goes on), 4 NOT_FOUND. GET /metrics (and GetMetrics) follows Prometheus'
conventions; GET /status and `czk status` print one JSON shape.
"""
import json
import os
import re

import grpc

import daemon_test as dt
from daemon_test import check, code_of

ARGS = None
pb = None
rpc = None


def submit_req(rid, **kw):
    return dt.submit_req(rid, **kw)


def mul3_wtns(bump=0):
    """mul3's witness; bump != 0 adds it to the last value's low byte (still below r), which
    makes the witness another one that does not satisfy the circuit."""
    w = bytearray(open(os.path.join(ARGS.data, "mul3.wtns"), "rb").read())
    if bump:
        w[-32] = (w[-32] + bump) % 256
    return bytes(w)


def test_request_identity(d):
    s = d.stub
    a = s.SubmitProof(submit_req("id-1", parts=2, seed=7), timeout=30)
    check(not a.attached, "a new request id starts a job")
    b = s.SubmitProof(submit_req("id-1", parts=2, seed=7, priority=pb.HIGH), timeout=30)
    check(b.attached and b.job_id == "id-1",
          "the same request again (another priority) attaches to the job")
    others = [
        ("another seed", submit_req("id-1", parts=2, seed=8)),
        ("another partition count", submit_req("id-1", parts=3, seed=7)),
        ("another circuit", submit_req("id-1", circuit="syn12", parts=2, seed=7)),
        ("another proof kind", submit_req("id-1", parts=2, seed=7, proof_kind=pb.WINNING_POST)),
    ]
    for what, req in others:
        got = code_of(s.SubmitProof, req, timeout=30)
        check(got == grpc.StatusCode.ALREADY_EXISTS,
              f"the id with {what} while the job runs: ALREADY_EXISTS (got {got.name})")
    r = s.AwaitProof(pb.AwaitProofRequest(job_id="id-1"), timeout=300)
    check(r.status == r.COMPLETED and len(r.proof) == 384, "the job completes")
    c = s.SubmitProof(submit_req("id-1", parts=2, seed=7), timeout=30)
    check(c.attached, "after it finished, the same request attaches")
    try:
        s.Prove(pb.ProveRequest(submit=submit_req("id-1", parts=2, seed=9)), timeout=60)
        check(False, "Prove with the id and another seed after it finished: ALREADY_EXISTS")
    except grpc.RpcError as e:
        check(e.code() == grpc.StatusCode.ALREADY_EXISTS and "differs" in e.details(),
              f"Prove with the id and another seed after it finished: ALREADY_EXISTS "
              f"({e.code().name}: {e.details()})")
    r2 = s.AwaitProof(pb.AwaitProofRequest(job_id="id-1"), timeout=30)
    check(r2.proof == r.proof, "the refused request left the job's proof as it was")

    # Witness bytes are part of the request: another witness under the id is refused.
    m = pb.SubmitProofRequest(request_id="id-mul3", circuit_id="mul3", witness=[mul3_wtns()])
    r = s.Prove(pb.ProveRequest(submit=m), timeout=120).result
    check(r.status == r.COMPLETED, "mul3 proves")
    again = s.SubmitProof(m, timeout=30)
    check(again.attached, "the same witness again attaches")
    other = pb.SubmitProofRequest(request_id="id-mul3", circuit_id="mul3",
                                  witness=[mul3_wtns(bump=1)])
    got = code_of(s.SubmitProof, other, timeout=30)
    check(got == grpc.StatusCode.ALREADY_EXISTS,
          f"another witness under the id: ALREADY_EXISTS (got {got.name})")
    rc, out = dt.run_cli("submit", "--addr", d.addr, "--circuit", "syn8", "--request-id", "id-1",
                         "--partitions", "2", "--seed", "10")
    check(rc == 2 and "differs" in out, f"czk submit of a re-used id with another seed fails "
          f"(rc {rc}): {out.strip()}")


def busy(d, rid):
    """Keeps the workers busy for a while, so that the next job waits in the queue."""
    d.stub.SubmitProof(submit_req(rid, circuit="syn12", parts=6, seed=3), timeout=30)


def test_cancel_and_not_found(d):
    s = d.stub
    r = s.Prove(pb.ProveRequest(submit=submit_req("done-1", seed=11)), timeout=120).result
    check(r.status == r.COMPLETED, "a job completes")
    cr = s.CancelProof(pb.CancelProofRequest(job_id="done-1"), timeout=30)
    check(not cr.was_running and cr.already_finished and cr.status == pb.AwaitProofResponse.COMPLETED,
          f"cancel of a finished job: was_running false, already_finished, status COMPLETED "
          f"({cr})")
    r2 = s.AwaitProof(pb.AwaitProofRequest(job_id="done-1"), timeout=30)
    check(r2.status == r2.COMPLETED and r2.proof == r.proof, "the finished job stays COMPLETED")
    rc, out = dt.run_cli("cancel", "--addr", d.addr, "done-1")
    check(rc == 0 and "already finished" in out and "COMPLETED" in out,
          f"czk cancel of a finished job says so: {out.strip()}")

    busy(d, "busy-c")
    s.SubmitProof(submit_req("queued-c", circuit="syn12", parts=4, seed=5, priority=pb.LOW),
                  timeout=30)
    cr = s.CancelProof(pb.CancelProofRequest(job_id="queued-c"), timeout=30)
    check(not cr.already_finished and cr.status == pb.AwaitProofResponse.CANCELLED,
          "cancel of an unfinished job: CANCELLED, not already finished")
    cr = s.CancelProof(pb.CancelProofRequest(job_id="queued-c"), timeout=30)
    check(cr.already_finished and not cr.was_running and
          cr.status == pb.AwaitProofResponse.CANCELLED,
          "cancel again: already finished (CANCELLED), was_running false")

    for rpc_name, call in (("AwaitProof", lambda: s.AwaitProof(
            pb.AwaitProofRequest(job_id="never-1"), timeout=30)),
            ("AwaitProof with a timeout", lambda: s.AwaitProof(
                pb.AwaitProofRequest(job_id="never-1", timeout_ms=100), timeout=30)),
            ("CancelProof", lambda: s.CancelProof(pb.CancelProofRequest(job_id="never-1"),
                                                  timeout=30))):
        try:
            call()
            check(False, f"{rpc_name} of an unknown job: NOT_FOUND (got OK)")
        except grpc.RpcError as e:
            check(e.code() == grpc.StatusCode.NOT_FOUND and "never-1" in e.details(),
                  f"{rpc_name} of an unknown job: NOT_FOUND ({e.code().name}: {e.details()})")
    s.AwaitProof(pb.AwaitProofRequest(job_id="busy-c"), timeout=300)


def go_bytes_d(b):
    """Go's fmt %d of a byte slice: "[12 200 3]"."""
    return "[" + " ".join(str(x) for x in b) + "]"


def curio_ids(miner, sector, partition, rnd):
    """The request ids Curio's lib/ffi/cuzk_funcs.go (at e0294b0f) builds, format by format:
    porep-%d-%d, snap-%d-%d, wdpost-%d-%d-%d with randomness[:8] (a byte slice under %d) and
    winpost-%d-%x with randomness[:8]."""
    return {"porep": f"porep-{miner}-{sector}",
            "snap": f"snap-{miner}-{sector}",
            "wdpost": f"wdpost-{miner}-{partition}-{go_bytes_d(rnd[:8])}",
            "winpost": f"winpost-{miner}-{rnd[:8].hex()}"}


def status_jobs(d):
    st = d.stub.GetStatus(pb.GetStatusRequest(), timeout=30)
    return [j["job_id"] for j in json.loads(st.status_json)["active_jobs"]]


def test_curio_ids(d):
    """Each of Curio's four id formats, with real values (f01000, Curio's golden sector 1, a
    PoSt randomness masked as Curio masks it), is proved, awaited, cancelled and listed by its
    id; the log quotes it; `czk submit/await/cancel` take it as it is."""
    import hashlib
    s = d.stub
    rnd = [bytearray(hashlib.sha256(b"czk curio ids %d" % i).digest()) for i in range(3)]
    for r in rnd:
        r[31] &= 0x3F  # Curio: randomness[31] &= 0x3f (an Fr element)
    sets = [curio_ids(1000, 1 + i, i, bytes(rnd[i])) for i in range(3)]
    check(sets[0]["wdpost"].startswith("wdpost-1000-0-[") and " " in sets[0]["wdpost"],
          f"the WindowPoSt id has Go's slice form: {sets[0]['wdpost']}")
    for n, kind in enumerate(("porep", "snap", "wdpost", "winpost")):
        prove_id, await_id, cancel_id = (ids[kind] for ids in sets)
        r = s.Prove(pb.ProveRequest(submit=submit_req(prove_id, seed=40 + n)), timeout=120).result
        check(r.status == r.COMPLETED and r.job_id == prove_id and len(r.proof) == 192,
              f"{kind}: proved under its id {prove_id!r} ({r.status}: {r.error_message})")
        busy(d, f"busy-curio-{n}")
        a = s.SubmitProof(submit_req(await_id, circuit="syn12", parts=2, seed=50 + n,
                                     priority=pb.LOW), timeout=30)
        c = s.SubmitProof(submit_req(cancel_id, circuit="syn12", parts=2, seed=60 + n,
                                     priority=pb.LOW), timeout=30)
        check(a.job_id == await_id and c.job_id == cancel_id,
              f"{kind}: SubmitProof answers with the ids as sent")
        listed = status_jobs(d)
        check(await_id in listed and cancel_id in listed,
              f"{kind}: GetStatus lists both queued jobs by id ({listed})")
        cr = s.CancelProof(pb.CancelProofRequest(job_id=cancel_id), timeout=30)
        check(cr.status == pb.AwaitProofResponse.CANCELLED,
              f"{kind}: cancelled by its id {cancel_id!r} ({cr})")
        r = s.AwaitProof(pb.AwaitProofRequest(job_id=await_id), timeout=300)
        check(r.status == r.COMPLETED and r.job_id == await_id and len(r.proof) == 2 * 192,
              f"{kind}: awaited by its id {await_id!r} ({r.status}: {r.error_message})")
        r = s.AwaitProof(pb.AwaitProofRequest(job_id=cancel_id), timeout=30)
        check(r.status == r.CANCELLED, f"{kind}: the cancelled job awaits as CANCELLED")
        s.AwaitProof(pb.AwaitProofRequest(job_id=f"busy-curio-{n}"), timeout=300)
        check(cancel_id not in status_jobs(d), f"{kind}: finished jobs leave the listing")

    # The czk command takes such an id as one argument, and prints it back.
    wid = curio_ids(1000, 9, 7, bytes(rnd[0]))["wdpost"]
    rc, out = dt.run_cli("submit", "--addr", d.addr, "--circuit", "syn8", "--request-id", wid,
                         "--wait")
    check(rc == 0 and wid in out, f"czk submit --request-id {wid!r} --wait (rc {rc}: {out})")
    rc, out = dt.run_cli("await", "--addr", d.addr, wid)
    check(rc == 0 and "COMPLETED" in out, f"czk await of it (rc {rc}: {out})")
    rc, out = dt.run_cli("cancel", "--addr", d.addr, wid)
    check(rc == 0 and "already finished" in out, f"czk cancel of it (rc {rc}: {out})")

    # The engine's log lines keep their key=value shape: the id is quoted there.
    wd = sets[1]["wdpost"]
    log = open(d.log_path).read()
    check(f'job="{wd}" ' in log or f'id="{wd}" ' in log,
          f"the daemon's log quotes {wd!r}")

    # What no client id may carry: control characters, broken UTF-8, more than 255 bytes.
    for what, rid in (("a newline", "wdpost-1\nfake=1"), ("a tab", "a\tb"),
                      ("256 bytes", "x" * 256), ("a C1 control", "a\u0085b")):
        try:
            s.SubmitProof(submit_req(rid), timeout=30)
            code, msg = grpc.StatusCode.OK, ""
        except grpc.RpcError as e:
            code, msg = e.code(), e.details()
        check(code == grpc.StatusCode.INVALID_ARGUMENT and "request_id" in msg,
              f"an id with {what}: INVALID_ARGUMENT naming request_id ({code.name}: {msg})")
    r = s.Prove(pb.ProveRequest(submit=submit_req("y" * 255, seed=70)), timeout=120).result
    check(r.status == r.COMPLETED, "a 255-byte id is proved")
    r = s.Prove(pb.ProveRequest(submit=submit_req("caf\u00e9-\u20ac", seed=71)),
                timeout=120).result
    check(r.status == r.COMPLETED and r.job_id == "caf\u00e9-\u20ac", "a UTF-8 id is proved")


def test_await_exit_codes(d):
    s = d.stub
    s.Prove(pb.ProveRequest(submit=submit_req("ok-1", seed=12)), timeout=120)
    rc, out = dt.run_cli("await", "--addr", d.addr, "ok-1")
    check(rc == 0 and "COMPLETED" in out, f"czk await of a COMPLETED job exits 0 (rc {rc})")

    busy(d, "busy-a")
    s.SubmitProof(submit_req("slow-a", circuit="syn12", parts=2, seed=6, priority=pb.LOW),
                  timeout=30)
    rc, out = dt.run_cli("await", "--addr", d.addr, "--timeout-ms", "50", "slow-a")
    check(rc == 3 and "TIMEOUT" in out, f"czk await past its timeout exits 3 (rc {rc}): "
          f"{out.strip()}")
    rc, out = dt.run_cli("await", "--addr", d.addr, "slow-a")
    check(rc == 0 and "COMPLETED" in out, "the timed-out job goes on and completes")

    busy(d, "busy-b")
    s.SubmitProof(submit_req("cancel-a", circuit="syn12", parts=2, seed=7, priority=pb.LOW),
                  timeout=30)
    s.CancelProof(pb.CancelProofRequest(job_id="cancel-a"), timeout=30)
    rc, out = dt.run_cli("await", "--addr", d.addr, "cancel-a")
    check(rc == 1 and "CANCELLED" in out, f"czk await of a CANCELLED job exits 1 (rc {rc})")

    bad = pb.SubmitProofRequest(request_id="fail-a", circuit_id="mul3",
                                witness=[mul3_wtns(bump=1)])
    r = s.Prove(pb.ProveRequest(submit=bad), timeout=120).result
    check(r.status == r.FAILED, f"a witness that does not satisfy mul3: FAILED ({r.error_message})")
    rc, out = dt.run_cli("await", "--addr", d.addr, "fail-a")
    check(rc == 1 and "FAILED" in out, f"czk await of a FAILED job exits 1 (rc {rc})")

    rc, out = dt.run_cli("await", "--addr", d.addr, "--timeout-ms", "50", "never-a")
    check(rc == 4 and "NOT_FOUND" in out, f"czk await of an unknown job exits 4 (rc {rc})")
    rc, out = dt.run_cli("await", "--help")
    check(rc == 0 and all(f"  {c}  " in out for c in "01234") and "TIMEOUT" in out,
          "czk await --help lists the exit codes")
    s.AwaitProof(pb.AwaitProofRequest(job_id="busy-b"), timeout=300)


GRPC_CODES = {c.name for c in grpc.StatusCode}
SAMPLE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)$')
LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')


def parse_metrics(text):
    """{family: {"help": str, "type": str, "samples": [(name, {label: value}, value)]}} and
    the faults found: samples before their HELP and TYPE, a family without one of them."""
    fams, faults = {}, []
    for line in text.splitlines():
        if line.startswith("# HELP ") or line.startswith("# TYPE "):
            parts = line.split(" ", 3)
            f = fams.setdefault(parts[2], {"samples": []})
            f["help" if parts[1] == "HELP" else "type"] = parts[3] if len(parts) > 3 else ""
            continue
        if not line or line.startswith("#"):
            continue
        m = SAMPLE.match(line)
        if not m:
            faults.append(f"not a sample: {line}")
            continue
        name, labels = m.group(1), dict(LABEL.findall(m.group(3) or ""))
        fam = name
        for suffix in ("_bucket", "_sum", "_count"):
            base = name[:-len(suffix)]
            if name.endswith(suffix) and fams.get(base, {}).get("type") == "histogram":
                fam = base
        f = fams.get(fam)
        if f is None or "help" not in f or "type" not in f:
            faults.append(f"sample before its HELP and TYPE: {line}")
            continue
        f["samples"].append((name, labels, float(m.group(4))))
    for name, f in fams.items():
        if "help" not in f or "type" not in f:
            faults.append(f"family {name} lacks HELP or TYPE")
    return fams, faults


def check_metrics(text, where):
    fams, faults = parse_metrics(text)
    check(not faults, f"{where}: every family has HELP and TYPE, every line parses "
          f"({faults[:3]})")
    names = {s[0] for f in fams.values() for s in f["samples"]}
    ms = sorted(n for n in names | set(fams) if n.endswith("_ms") or "_ms_" in n)
    check(not ms, f"{where}: no metric in milliseconds ({ms})")
    counters = [n for n, f in fams.items() if f["type"] == "counter" and not n.endswith("_total")]
    check(not counters, f"{where}: counters end in _total ({counters})")
    hists = [n for n, f in fams.items() if f["type"] == "histogram"]
    check({"czk_proof_seconds", "czk_partition_stage_seconds"} <= set(hists),
          f"{where}: proof and partition-stage histograms ({hists})")
    for h in hists:
        series = {}
        for name, labels, v in fams[h]["samples"]:
            key = tuple(sorted((k, x) for k, x in labels.items() if k != "le"))
            series.setdefault(key, {"buckets": [], "sum": None, "count": None})
            if name.endswith("_bucket"):
                series[key]["buckets"].append((labels["le"], v))
            else:
                series[key][name[len(h) + 1:]] = v
        ok = bool(series)
        for key, sr in series.items():
            b = sr["buckets"]
            ok = ok and len(b) > 1 and b[-1][0] == "+Inf" and sr["count"] == b[-1][1] and \
                sr["sum"] is not None and all(b[i][1] <= b[i + 1][1] for i in range(len(b) - 1))
        check(ok, f"{where}: {h} has cumulative _bucket series ending in +Inf = _count, and _sum")
    stages = {s[1].get("stage") for s in fams["czk_partition_stage_seconds"]["samples"]}
    check({"queue", "synthesis", "prove", "verify"} <= stages,
          f"{where}: partition stages ({sorted(x for x in stages if x)})")
    info = fams.get("czk_build_info", {"samples": []})["samples"]
    check(len(info) == 1 and info[0][1].get("version") and info[0][2] == 1,
          f"{where}: czk_build_info{{version=...}} 1 ({info})")
    for fam in ("czk_jobs_completed_total", "czk_jobs_failed_total",
                "czk_jobs_cancelled_total"):
        samples = fams.get(fam, {"samples": []})["samples"]
        check(samples and all({"circuit", "proof_kind"} <= set(s[1]) for s in samples),
              f"{where}: {fam} carries circuit and proof_kind labels")
    done = {(s[1]["circuit"], s[1]["proof_kind"]): s[2]
            for s in fams["czk_jobs_completed_total"]["samples"]}
    check(done.get(("syn8", "winning"), 0) >= 1 and done.get(("syn8", "unspecified"), 0) >= 1,
          f"{where}: completed jobs by circuit and proof kind ({done})")
    codes = {s[1].get("code") for s in fams["czk_grpc_requests_total"]["samples"]}
    check(codes and codes <= GRPC_CODES and {"OK", "NOT_FOUND", "ALREADY_EXISTS"} <= codes,
          f"{where}: gRPC codes by name ({sorted(codes)})")
    check(not any("vram" in n for n in fams), f"{where}: no device memory series for the CPU")


def test_metrics(d):
    d.stub.Prove(pb.ProveRequest(submit=submit_req("kind-1", seed=13,
                                                   proof_kind=pb.WINNING_POST)), timeout=120)
    code, text = dt.http_get(d, "/metrics")
    check(code == 200, "GET /metrics")
    check_metrics(text, "GET /metrics")
    text = d.stub.GetMetrics(pb.GetMetricsRequest(), timeout=30).prometheus_text
    check_metrics(text, "GetMetrics")


def key_paths(v, prefix=""):
    """Every key path of a JSON value; a list contributes its elements' paths under "[]"."""
    out = set()
    if isinstance(v, dict):
        for k, x in v.items():
            out.add(prefix + "." + k)
            out |= key_paths(x, prefix + "." + k)
    elif isinstance(v, list):
        for x in v:
            out |= key_paths(x, prefix + "[]")
    return out


def test_status_json(d):
    code, body = dt.http_get(d, "/status")
    http_js = json.loads(body)
    rc, out = dt.run_cli("status", "--addr", d.addr)
    check(rc == 0, f"czk status exits 0 (rc {rc})")
    cli_js = json.loads(out)
    a, b = key_paths(http_js), key_paths(cli_js)
    check(a == b and ".circuits[].circuit_id" in a and ".jobs.completed" in a,
          f"GET /status and czk status have the same keys (only HTTP: {sorted(a - b)}, "
          f"only czk status: {sorted(b - a)})")
    check(cli_js["jobs"]["completed"] >= http_js["jobs"]["completed"] >= 1,
          "czk status and GET /status count the same jobs")
    st = d.stub.GetStatus(pb.GetStatusRequest(), timeout=30)
    check(key_paths(json.loads(st.status_json)) == a and st.loaded_srs,
          "GetStatus carries the same JSON (status_json) beside cuzk's fields")
    rc, out = dt.run_cli("status", "--addr", d.addr, "--metrics")
    check(rc == 0 and "# TYPE czk_proof_seconds histogram" in out, "czk status --metrics")


def main():
    global ARGS, pb, rpc
    ARGS, pb, rpc = dt.setup("jobs")
    d = dt.Daemon("jobs")
    for t in (test_request_identity, test_cancel_and_not_found, test_curio_ids,
              test_await_exit_codes, test_metrics, test_status_json):
        print(f"--- {t.__name__}", flush=True)
        t(d)
    rc = d.stop()
    check(rc == 0, f"daemon exits 0 on SIGTERM (got {rc})")
    dt.finish()


if __name__ == "__main__":
    main()
