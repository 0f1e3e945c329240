"""czk daemon end to end over gRPC (run by run.sh; see ctest.cmake).

Starts `czk daemon` on 127.0.0.1 with random free ports and a unix socket, with tiny
synthetic circuits and the committed snarkjs circuit mul3, and checks every RPC of
cuzk.v1.ProvingEngine, the HTTP endpoint, the client commands and a drain on SIGTERM.
"""
import argparse
import json
import os
import re
import signal
import socket
import statistics
import subprocess
import sys
import threading
import time
import traceback
import urllib.request

import grpc

ARGS = None
pb = None
rpc = None
FAILURES = []


def check(cond, what):
    if cond:
        print(f"ok: {what}", flush=True)
    else:
        print(f"FAIL: {what}", flush=True)
        FAILURES.append(what)


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class Daemon:
    def __init__(self, name, extra=()):
        # Port 0: the daemon binds free ports itself and logs them. A port picked here and
        # closed again could be taken before the daemon binds it (by another test's client
        # connection, whose local port comes from the same range): that made daemon_rpc fail
        # now and then in ctest -j 2.
        self.sock = os.path.join(ARGS.work, f"{name}.sock")
        self.log_path = os.path.join(ARGS.work, f"{name}.log")
        data = ARGS.data
        cmd = [ARGS.czk, "daemon",
               "--listen", "127.0.0.1:0", "--listen", f"unix://{self.sock}",
               "--status-listen", "127.0.0.1:0",
               "--synthetic", "syn8=8", "--synthetic", "syn12=12",
               "--circuit", f"mul3={data}/mul3.zkey",
               "--set", "daemon.max_message_size=4MiB",
               "--set", "memory.total_budget=2GiB",
               "--set", "gpus.vram_budget=16GiB",
               "--set", "memory.lock_budget=32GiB", *extra]
        self.log = open(self.log_path, "w")
        self.proc = subprocess.Popen(cmd, stderr=self.log, stdout=self.log)
        self.port, self.http = self.wait_ready(120)
        self.addr = f"127.0.0.1:{self.port}"
        opts = [("grpc.max_send_message_length", 64 << 20),
                ("grpc.max_receive_message_length", 64 << 20)]
        self.channel = grpc.insecure_channel(self.addr, options=opts)
        try:
            grpc.channel_ready_future(self.channel).result(timeout=60)
        except grpc.FutureTimeoutError:
            self.proc.kill()
            print(self.log_text())
            raise SystemExit(f"daemon {name}: no gRPC connection to {self.addr}")
        self.stub = rpc.ProvingEngineStub(self.channel)

    def wait_ready(self, timeout):
        """The gRPC and HTTP ports from the daemon's log, once it says it is ready."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            text = self.log_text()
            if "czk daemon: ready" in text:
                grpc_port = re.search(r"czk daemon: gRPC port (\d+)", text)
                http_port = re.search(r"HTTP /status and /metrics on \S+ \(port (\d+)\)", text)
                if grpc_port and http_port:
                    return int(grpc_port.group(1)), int(http_port.group(1))
                break
            if self.proc.poll() is not None:
                break
            time.sleep(0.05)
        self.proc.kill()
        print(self.log_text())
        raise SystemExit("daemon did not start, or did not log its ports")

    def stop(self, sig=signal.SIGTERM, timeout=120):
        self.proc.send_signal(sig)
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            return -999

    def log_text(self):
        self.log.flush()
        return open(self.log_path).read()


def code_of(fn, *a, **kw):
    try:
        fn(*a, **kw)
        return grpc.StatusCode.OK
    except grpc.RpcError as e:
        return e.code()


def submit_req(rid, circuit="syn8", parts=1, seed=1, **kw):
    return pb.SubmitProofRequest(request_id=rid, circuit_id=circuit, num_partitions=parts,
                                 synth_seed=seed, **kw)


def mul3_req(rid):
    wtns = open(os.path.join(ARGS.data, "mul3.wtns"), "rb").read()
    return pb.SubmitProofRequest(request_id=rid, circuit_id="mul3", witness=[wtns])


def http_get(d, path):
    with urllib.request.urlopen(f"http://127.0.0.1:{d.http}{path}", timeout=30) as r:
        return r.status, r.read().decode()


def run_cli(*args, timeout=300):
    p = subprocess.run([ARGS.czk, *args], capture_output=True, text=True, timeout=timeout)
    return p.returncode, p.stdout + p.stderr


def prove_ok(d, what):
    r = d.stub.Prove(pb.ProveRequest(submit=submit_req(f"alive-{time.monotonic_ns()}")),
                     timeout=120)
    check(r.result.status == pb.AwaitProofResponse.COMPLETED and len(r.result.proof) == 192,
          f"daemon still proves after {what}")


def test_rpc():
    d = Daemon("rpc")
    st = d.stub.GetStatus(pb.GetStatusRequest(), timeout=30)
    ids = {s.circuit_id for s in st.loaded_srs}
    check({"syn8", "syn12", "mul3"} <= ids, f"GetStatus lists the circuits ({sorted(ids)})")

    r = d.stub.PreloadSRS(pb.PreloadSrsRequest(circuit_id="syn8"), timeout=120)
    check(not r.already_loaded, "PreloadSRS loads syn8")
    r = d.stub.PreloadSRS(pb.PreloadSrsRequest(circuit_id="syn8"), timeout=120)
    check(r.already_loaded, "PreloadSRS again: already loaded")
    check(code_of(d.stub.PreloadSRS, pb.PreloadSrsRequest(circuit_id="nope"), timeout=30)
          == grpc.StatusCode.INVALID_ARGUMENT, "PreloadSRS of an unknown circuit: INVALID_ARGUMENT")

    # Several concurrent Prove calls, on two circuits.
    results = {}

    def prove(i):
        req = mul3_req(f"conc-mul3-{i}") if i % 2 else submit_req(f"conc-syn-{i}", parts=2, seed=i)
        try:
            results[i] = d.stub.Prove(pb.ProveRequest(submit=req), timeout=300).result
        except grpc.RpcError as e:
            results[i] = e
    threads = [threading.Thread(target=prove, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    good = 0
    for i, res in sorted(results.items()):
        want = 192 if i % 2 else 384
        if isinstance(res, pb.AwaitProofResponse) and res.status == res.COMPLETED and \
                len(res.proof) == want:
            good += 1
        else:
            print(f"  prove {i}: {res}")
    check(good == 8, f"8 concurrent Prove calls completed with 192-byte partition proofs ({good})")
    js = [res for i, res in results.items() if i % 2 and isinstance(res, pb.AwaitProofResponse)]
    check(js and all(len(r.proof_json) == 1 and '"pi_a"' in r.proof_json[0] for r in js),
          "a snarkjs circuit's result carries the proof as snarkjs JSON")

    # The same request id twice: one job.
    a = d.stub.SubmitProof(submit_req("dup-1", parts=2, seed=7), timeout=30)
    b = d.stub.SubmitProof(submit_req("dup-1", parts=2, seed=7), timeout=30)
    check(a.job_id == b.job_id == "dup-1" and not a.attached and b.attached,
          "a duplicate request id attaches to the same job")
    r = d.stub.AwaitProof(pb.AwaitProofRequest(job_id="dup-1"), timeout=300)
    check(r.status == r.COMPLETED and len(r.proof) == 384, "the duplicated job completes once")
    c = d.stub.SubmitProof(submit_req("dup-1", parts=2, seed=7), timeout=30)
    r2 = d.stub.AwaitProof(pb.AwaitProofRequest(job_id="dup-1"), timeout=300)
    check(c.attached and r2.proof == r.proof, "after it finished, the id returns the stored proof")

    # Await with a timeout, and cancel of a queued job, behind a busy queue.
    d.stub.SubmitProof(submit_req("busy-1", circuit="syn12", parts=6, seed=3), timeout=30)
    d.stub.SubmitProof(submit_req("slow-1", circuit="syn12", parts=2, seed=4), timeout=30)
    t0 = time.monotonic()
    r = d.stub.AwaitProof(pb.AwaitProofRequest(job_id="slow-1", timeout_ms=200), timeout=60)
    waited = time.monotonic() - t0
    check(r.status == r.TIMEOUT and 0.15 < waited < 5,
          f"AwaitProof timeout_ms=200 gives TIMEOUT after {waited:.3f} s")
    q = d.stub.SubmitProof(submit_req("queued-1", circuit="syn12", parts=4, seed=5,
                                      priority=pb.LOW), timeout=30)
    cr = d.stub.CancelProof(pb.CancelProofRequest(job_id="queued-1"), timeout=30)
    r = d.stub.AwaitProof(pb.AwaitProofRequest(job_id="queued-1"), timeout=300)
    check(r.status == r.CANCELLED, f"a queued job cancelled: CANCELLED (position "
          f"{q.queue_position}, was_running={cr.was_running})")
    check(code_of(d.stub.CancelProof, pb.CancelProofRequest(job_id="never-submitted"),
                  timeout=30) == grpc.StatusCode.NOT_FOUND,
          "CancelProof of an unknown job: NOT_FOUND")
    r = d.stub.AwaitProof(pb.AwaitProofRequest(job_id="slow-1", timeout_ms=0), timeout=300)
    check(r.status == r.COMPLETED and len(r.proof) == 384, "the timed-out job completes later")
    check(code_of(d.stub.AwaitProof, pb.AwaitProofRequest(job_id="never-submitted",
                                                          timeout_ms=100), timeout=30)
          == grpc.StatusCode.NOT_FOUND, "AwaitProof of an unknown id: NOT_FOUND")

    # Priority 0 is the kind's default; a synthetic circuit may be asked for as WinningPoSt.
    r = d.stub.Prove(pb.ProveRequest(submit=submit_req("winning-1",
                                                       proof_kind=pb.WINNING_POST)), timeout=120)
    check(r.result.status == r.result.COMPLETED, "a WINNING_POST-kind request on a czk circuit")

    # Malformed and oversized requests; the daemon keeps serving after each.
    bad = [
        ("no circuit_id", pb.SubmitProofRequest(request_id="bad-1"),
         grpc.StatusCode.INVALID_ARGUMENT),
        ("unknown circuit", submit_req("bad-2", circuit="nope"), grpc.StatusCode.INVALID_ARGUMENT),
        ("request id too long", submit_req("x" * 300), grpc.StatusCode.INVALID_ARGUMENT),
        ("too many partitions", submit_req("bad-3", parts=5000), grpc.StatusCode.INVALID_ARGUMENT),
        ("witness count != partitions", pb.SubmitProofRequest(
            request_id="bad-4", circuit_id="mul3", num_partitions=2, witness=[b"x"]),
         grpc.StatusCode.INVALID_ARGUMENT),
        ("bad enum value", pb.SubmitProofRequest(request_id="bad-5", circuit_id="syn8",
                                                 priority=9), grpc.StatusCode.INVALID_ARGUMENT),
        ("PoRep with a vanilla proof that is no C1 output", pb.SubmitProofRequest(
            request_id="porep-1000-1", proof_kind=pb.POREP_SEAL_COMMIT, vanilla_proof=b"{}"),
         grpc.StatusCode.INVALID_ARGUMENT),
        ("PoRep without a vanilla proof", pb.SubmitProofRequest(
            request_id="porep-1000-2", proof_kind=pb.POREP_SEAL_COMMIT),
         grpc.StatusCode.INVALID_ARGUMENT),
        ("a synthetic circuit with a witness", pb.SubmitProofRequest(
            request_id="bad-6", circuit_id="syn8", witness=[b"junk"]),
         grpc.StatusCode.INVALID_ARGUMENT),
    ]
    for what, req, want in bad:
        got = code_of(d.stub.SubmitProof, req, timeout=30)
        check(got == want, f"{what}: {want.name} (got {got.name})")
    got = code_of(d.stub.AwaitProof, pb.AwaitProofRequest(), timeout=30)
    check(got == grpc.StatusCode.INVALID_ARGUMENT, "AwaitProof without a job id: INVALID_ARGUMENT")
    # A witness that is not a .wtns: refused at submit or failed as a job, never a crash.
    try:
        r = d.stub.Prove(pb.ProveRequest(submit=pb.SubmitProofRequest(
            request_id="bad-wtns", circuit_id="mul3", witness=[b"not a wtns file" * 10])),
            timeout=60)
        check(r.result.status == r.result.FAILED, "a garbage witness: the job FAILED")
    except grpc.RpcError as e:
        check(e.code() == grpc.StatusCode.INVALID_ARGUMENT,
              f"a garbage witness: INVALID_ARGUMENT (got {e.code().name})")
    # Bytes that are not a protobuf message at all.
    raw = d.channel.unary_unary("/cuzk.v1.ProvingEngine/SubmitProof",
                                request_serializer=lambda b: b,
                                response_deserializer=lambda b: b)
    got = code_of(raw, b"\xff\xff\xff\xff\x0f\x0a", timeout=30)
    check(got in (grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.INTERNAL),
          f"an unparseable message is refused ({got.name})")
    # Above daemon.max_message_size (4 MiB here): gRPC itself refuses it.
    big = pb.SubmitProofRequest(request_id="big-1", circuit_id="mul3", witness=[b"\0" * (5 << 20)])
    got = code_of(d.stub.SubmitProof, big, timeout=60)
    check(got in (grpc.StatusCode.RESOURCE_EXHAUSTED, grpc.StatusCode.INVALID_ARGUMENT),
          f"a message above the size limit is refused ({got.name})")
    prove_ok(d, "malformed and oversized requests")

    # Metrics, evict, HTTP, unix socket.
    m = d.stub.GetMetrics(pb.GetMetricsRequest(), timeout=30).prometheus_text
    check("czk_grpc_requests_total" in m and "czk_" in m.replace("czk_grpc", ""),
          "GetMetrics: engine metrics and the server's request counters")
    r = d.stub.EvictSRS(pb.EvictSrsRequest(circuit_id="syn8"), timeout=30)
    check(r.was_loaded, f"EvictSRS syn8: was loaded, freed {r.freed_bytes} bytes")
    r = d.stub.EvictSRS(pb.EvictSrsRequest(circuit_id="syn8"), timeout=30)
    check(not r.was_loaded, "EvictSRS again: was not loaded")
    check(code_of(d.stub.EvictSRS, pb.EvictSrsRequest(circuit_id="nope"), timeout=30)
          == grpc.StatusCode.INVALID_ARGUMENT, "EvictSRS of an unknown circuit: INVALID_ARGUMENT")
    prove_ok(d, "an eviction (the key loads again)")
    st = d.stub.GetStatus(pb.GetStatusRequest(), timeout=30)
    check(st.total_proofs_completed >= 10, f"GetStatus counts proofs ({st.total_proofs_completed})")

    code, body = http_get(d, "/status")
    js = json.loads(body)
    check(code == 200 and js["jobs"]["completed"] >= 10 and
          any(c["circuit_id"] == "mul3" for c in js["circuits"]), "HTTP GET /status is JSON")
    code, body = http_get(d, "/metrics")
    check(code == 200 and "czk_grpc_requests_total" in body, "HTTP GET /metrics")
    try:
        http_get(d, "/nope")
        check(False, "HTTP 404 for other paths")
    except urllib.error.HTTPError as e:
        check(e.code == 404, "HTTP 404 for other paths")

    uch = grpc.insecure_channel(f"unix://{d.sock}")
    ustub = rpc.ProvingEngineStub(uch)
    r = ustub.Prove(pb.ProveRequest(submit=submit_req("unix-1")), timeout=120)
    check(r.result.status == r.result.COMPLETED, "Prove over the unix socket")

    # The client commands.
    rc, out = run_cli("status", "--addr", d.addr)
    check(rc == 0 and json.loads(out)["circuits"], "czk status prints the status as JSON")
    proof = os.path.join(ARGS.work, "cli-proof.bin")
    rc, out = run_cli("submit", "--addr", d.addr, "--circuit", "mul3", "--request-id", "cli-1",
                      "--wtns", os.path.join(ARGS.data, "mul3.wtns"), "--wait", "--out", proof)
    check(rc == 0 and os.path.getsize(proof) == 192, "czk submit --wait --out writes the proof")
    rc, out = run_cli("await", "--addr", d.addr, "cli-1")
    check(rc == 0 and "COMPLETED" in out, "czk await of a finished job")
    rc, out = run_cli("cancel", "--addr", d.addr, "cli-1")
    check(rc == 0, "czk cancel of a finished job changes nothing")
    rc, out = run_cli("await", "--addr", d.addr, "--timeout-ms", "50", "no-such-job")
    check(rc == 4 and "NOT_FOUND" in out, "czk await of an unknown job exits 4 (NOT_FOUND)")

    # Request overhead: Prove round trip minus the engine's own total, on a 2^8 circuit.
    over, totals = [], []
    for i in range(30):
        t0 = time.perf_counter()
        r = d.stub.Prove(pb.ProveRequest(submit=submit_req(f"ovh-{i}", seed=100 + i)), timeout=60)
        wall_ms = (time.perf_counter() - t0) * 1e3
        over.append(wall_ms - r.result.total_ms)
        totals.append(r.result.total_ms)
    print(f"overhead: Prove round trip minus engine total_ms on syn8 (2^8, 1 partition), "
          f"30 calls: median {statistics.median(over):.2f} ms, min {min(over):.2f} ms "
          f"(engine median {statistics.median(totals)} ms)", flush=True)

    rc = d.stop()
    check(rc == 0, f"daemon exits 0 on SIGTERM (got {rc})")
    log = d.log_text()
    check("partition job=" in log, "the engine's per-partition log lines reach stderr")


def test_sigterm():
    d = Daemon("sigterm")
    n = 12
    accepted = []
    for i in range(n):
        # Enough work that the drain outlasts the late submit below: on an idle machine two
        # partitions of syn8 each were done 0.2 s after SIGTERM, and the late submit met the
        # servers stopping (CANCELLED) instead of stopped intake.
        r = d.stub.SubmitProof(submit_req(f"drain-{i}", circuit="syn12", parts=4, seed=i),
                               timeout=30)
        accepted.append(r.job_id)
    answers = {}

    def wait(jid):
        try:
            answers[jid] = d.stub.AwaitProof(pb.AwaitProofRequest(job_id=jid), timeout=300)
        except grpc.RpcError as e:
            answers[jid] = e
    # Prove calls in flight too: they were accepted if they get any answer but UNAVAILABLE.
    proves = {}

    def prove(i):
        try:
            proves[i] = d.stub.Prove(pb.ProveRequest(submit=submit_req(f"drain-p{i}", parts=2,
                                                                       seed=50 + i)), timeout=300)
        except grpc.RpcError as e:
            proves[i] = e
    threads = [threading.Thread(target=wait, args=(j,)) for j in accepted]
    threads += [threading.Thread(target=prove, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    time.sleep(0.3)
    d.proc.send_signal(signal.SIGTERM)
    end = time.monotonic() + 10
    while "intake stopped" not in d.log_text() and time.monotonic() < end:
        time.sleep(0.01)
    got = code_of(d.stub.SubmitProof, submit_req("late-1"), timeout=10)
    check(got in (grpc.StatusCode.UNAVAILABLE,), f"a submit after SIGTERM: UNAVAILABLE ({got.name})")
    for t in threads:
        t.join(timeout=300)
    done = [j for j, r in answers.items()
            if isinstance(r, pb.AwaitProofResponse) and r.status == r.COMPLETED]
    check(len(done) == n, f"every accepted job answered COMPLETED after SIGTERM ({len(done)}/{n})")
    bad = [r for r in proves.values()
           if not (isinstance(r, pb.ProveResponse) and r.result.status == r.result.COMPLETED)
           and not (isinstance(r, grpc.RpcError) and r.code() == grpc.StatusCode.UNAVAILABLE)]
    check(len(proves) == 4 and not bad, "in-flight Prove calls: completed or refused UNAVAILABLE")
    try:
        rc = d.proc.wait(timeout=120)
    except subprocess.TimeoutExpired:
        d.proc.kill()
        rc = -999
    check(rc == 0, f"daemon exits 0 after the drain (got {rc})")

    # A zero grace period: what is left is cancelled, and its waiters hear so.
    d = Daemon("sigterm0", ["--set", "daemon.shutdown_grace_ms=0"])
    for i in range(4):
        d.stub.SubmitProof(submit_req(f"zero-{i}", circuit="syn12", parts=4, seed=i), timeout=30)
    answers.clear()
    threads = [threading.Thread(target=wait, args=(f"zero-{i}",)) for i in range(4)]
    for t in threads:
        t.start()
    time.sleep(0.2)
    rc = d.stop()
    for t in threads:
        t.join(timeout=60)
    ok = [r for r in answers.values() if isinstance(r, pb.AwaitProofResponse)
          and r.status in (r.COMPLETED, r.CANCELLED)]
    check(len(ok) == 4, f"grace 0: every waiter answered COMPLETED or CANCELLED ({len(ok)}/4)")
    check(rc == 0, f"grace 0: daemon exits 0 (got {rc})")


def test_bench():
    d = Daemon("bench")
    rc, out = run_cli("bench", "--addr", d.addr, "-c", "20", "-j", "4", "--circuit", "syn8",
                      "--partitions", "2")
    print(out)
    lines = [l for l in out.splitlines() if l.startswith("proof ")]
    check(rc == 0 and len(lines) == 20 and "s/proof" in out and "completed=20" in out,
          "czk bench -c 20 -j 4: 20 proofs and a throughput line")
    rc, out = run_cli("bench", "--addr", d.addr, "-c", "4", "-j", "2", "--circuit", "mul3",
                      "--wtns", os.path.join(ARGS.data, "mul3.wtns"))
    check(rc == 0 and "completed=4" in out, "czk bench with a witness file")
    rc = d.stop()
    check(rc == 0, f"daemon exits 0 on SIGTERM (got {rc})")


def setup(mode=None, modes=None):
    """Parses the runner's arguments (tests/daemon/run.sh) and loads the generated stubs: the
    start of every test file here. mode: the default --mode; modes: the ones allowed."""
    global ARGS, pb, rpc
    ap = argparse.ArgumentParser()
    ap.add_argument("--czk", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--gen", required=True)
    ap.add_argument("--data", required=True)
    ap.add_argument("--mode", required=mode is None, default=mode, choices=modes)
    ARGS = ap.parse_args()
    ARGS.work = os.path.abspath(ARGS.work)  # unix:// takes an absolute path
    sys.excepthook = uncaught
    sys.path.insert(0, ARGS.gen)
    from cuzk.v1 import proving_pb2, proving_pb2_grpc
    pb, rpc = proving_pb2, proving_pb2_grpc
    return ARGS, pb, rpc


def uncaught(kind, value, tb):
    """An exception no check caught (a gRPC deadline, a daemon that died): the traceback, then
    the failed checks and the logs as finish() prints them, so that ctest's output says which
    step broke and what the daemon said meanwhile."""
    traceback.print_exception(kind, value, tb)
    FAILURES.append(f"uncaught {kind.__name__}: {value}")
    finish()


def finish():
    """Ends a test file: the failed checks with the last lines of every log in the work
    directory, exit 1; or "all checks passed"."""
    if FAILURES:
        print(f"{len(FAILURES)} check(s) failed:\n  " + "\n  ".join(FAILURES))
        for f in sorted(os.listdir(ARGS.work)):
            if f.endswith(".log"):
                print(f"--- {f} (last 40 lines)")
                print("\n".join(open(os.path.join(ARGS.work, f)).read().splitlines()[-40:]))
        sys.exit(1)
    print("all checks passed")


def main():
    setup(modes=["rpc", "sigterm", "bench"])
    {"rpc": test_rpc, "sigterm": test_sigterm, "bench": test_bench}[ARGS.mode]()
    finish()


if __name__ == "__main__":
    main()
