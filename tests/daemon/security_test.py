"""czk daemon's listening rules and service life (run by run.sh in mode security).

One daemon per address: a second daemon on a unix socket, a TCP port or an HTTP port already
in use is refused ("address in use") and the first keeps answering; a stale socket file is
replaced, a file that is not a socket is not. Nobody gets in where they do not belong: the
socket file is 0660, a non-loopback TCP address needs TLS or --insecure, mutual TLS refuses a
client without a certificate from the configured CA (checked with `czk status` and with
Python's grpc), and one client may hold only daemon.max_jobs_per_client unfinished jobs.
SIGHUP is logged and ignored, losing no job. Certificates are made here with `openssl`.
"""
import fcntl
import os
import signal
import socket
import stat
import subprocess
import threading
import time

import grpc

import daemon_test as dt
from daemon_test import check, free_port

ARGS = None
pb = None
rpc = None

BASE = ["--synthetic", "syn8=8", "--synthetic", "syn12=12",
        "--set", "memory.total_budget=2GiB", "--set", "gpus.vram_budget=16GiB",
        "--set", "memory.lock_budget=32GiB", "--status-listen", ""]


class Proc:
    """A `czk daemon` with its own log; ready() waits for its "ready" line or its exit."""

    def __init__(self, name, args, env=None):
        self.log_path = os.path.join(ARGS.work, f"{name}.log")
        self.log = open(self.log_path, "w")
        self.proc = subprocess.Popen([ARGS.czk, "daemon", *args], stdout=self.log,
                                     stderr=self.log, env=env)

    def text(self):
        self.log.flush()
        return open(self.log_path).read()

    def ready(self, timeout=90):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if "czk daemon: ready" in self.text():
                return True
            if self.proc.poll() is not None:
                return False
            time.sleep(0.05)
        return False

    def refused(self, timeout=90):
        """The exit code when the daemon stops by itself within timeout, else None."""
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            return None

    def stop(self, sig=signal.SIGTERM):
        if self.proc.poll() is not None:
            return self.proc.returncode
        self.proc.send_signal(sig)
        try:
            return self.proc.wait(timeout=120)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            return -999


def start(name, args):
    d = Proc(name, [*BASE, *args])
    if not d.ready():
        print(d.text())
        d.stop(signal.SIGKILL)
        raise SystemExit(f"daemon {name} did not start")
    return d


def cli(*args):
    p = subprocess.run([ARGS.czk, *args], capture_output=True, text=True, timeout=120)
    return p.returncode, p.stdout + p.stderr


def status_ok(addr, *extra):
    rc, out = cli("status", "--addr", addr, *extra)
    return rc == 0 and '"circuits"' in out  # czk status prints GET /status's JSON


def submit_req(rid, circuit="syn8", parts=1, seed=1):
    return pb.SubmitProofRequest(request_id=rid, circuit_id=circuit, num_partitions=parts,
                                 synth_seed=seed)


def code_of(fn, *a, **kw):
    try:
        fn(*a, **kw)
        return grpc.StatusCode.OK
    except grpc.RpcError as e:
        return e.code()


def test_one_per_address():
    sock = os.path.join(ARGS.work, "one.sock")
    port = free_port()
    first = start("first", ["--listen", f"unix://{sock}", "--listen", f"127.0.0.1:{port}"])
    mode = stat.S_IMODE(os.stat(sock).st_mode)
    check(mode & 0o007 == 0 and mode & ~0o660 == 0,
          f"the unix socket file is owner/group only ({oct(mode)})")

    second = Proc("second-unix", [*BASE, "--listen", f"unix://{sock}"])
    rc = second.refused()
    check(rc == 2 and "address in use" in second.text(),
          f"a second daemon on the same unix socket is refused: address in use (exit {rc})")
    check(os.path.exists(sock) and status_ok(f"unix://{sock}"),
          "the first daemon still answers on its unix socket")

    second = Proc("second-tcp", [*BASE, "--listen", f"127.0.0.1:{port}"])
    rc = second.refused()
    check(rc == 2 and "address in use" in second.text(),
          f"a second daemon on the same TCP port is refused: address in use (exit {rc})")
    # A socket that asks for SO_REUSEPORT could share the port only if the daemon's listener
    # had it too (gRPC's default): it must not.
    probe = socket.socket()
    probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    try:
        probe.bind(("127.0.0.1", port))
        shared = True
    except OSError:
        shared = False
    probe.close()
    check(not shared, "the daemon's TCP listener has no SO_REUSEPORT")
    # With SO_REUSEPORT both would listen and share the connections; each of these fresh
    # connections must reach the first daemon.
    good = sum(status_ok(f"127.0.0.1:{port}") for _ in range(4))
    check(good == 4, f"the first daemon still answers on its TCP port ({good}/4)")

    # An HTTP status port in use is refused the same way.
    busy = socket.socket()
    busy.bind(("127.0.0.1", 0))
    busy.listen(1)
    hport = busy.getsockname()[1]
    third = Proc("http-busy", [*BASE, "--listen", f"127.0.0.1:{free_port()}",
                               "--status-listen", f"127.0.0.1:{hport}"])
    rc = third.refused()
    busy.close()
    check(rc == 2 and "address in use" in third.text() and "status_listen" in third.text(),
          f"an HTTP status port in use is refused: address in use (exit {rc})")
    rc = first.stop()
    check(rc == 0, f"the first daemon exits 0 on SIGTERM (got {rc})")


def test_stale_socket():
    sock = os.path.join(ARGS.work, "stale.sock")
    if os.path.exists(sock):
        os.unlink(sock)
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(sock)
    s.close()  # the file stays, with no listener behind it: a crashed daemon's socket
    d = start("stale", ["--listen", f"unix://{sock}"])
    check(status_ok(f"unix://{sock}"), "a stale socket file is replaced and the daemon answers")
    d.stop()

    # Two daemons started at once: the one that holds PATH.lock wins, the other is refused.
    locked = os.path.join(ARGS.work, "locked.sock")
    with open(locked + ".lock", "w") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        p = Proc("locked", [*BASE, "--listen", f"unix://{locked}"])
        rc = p.refused()
    check(rc == 2 and "address in use" in p.text() and not os.path.exists(locked),
          f"a socket path whose .lock another daemon holds is refused (exit {rc})")

    plain = os.path.join(ARGS.work, "not-a-socket")
    with open(plain, "w") as f:
        f.write("keep me\n")
    p = Proc("not-socket", [*BASE, "--listen", f"unix://{plain}"])
    rc = p.refused()
    check(rc == 2 and "not a socket" in p.text() and open(plain).read() == "keep me\n",
          f"a path that is not a socket is refused and left alone (exit {rc})")


def test_non_loopback():
    port = free_port()
    p = Proc("public-plain", [*BASE, "--listen", f"0.0.0.0:{port}"])
    rc = p.refused()
    check(rc == 2 and "not a loopback address" in p.text() and "--insecure" in p.text(),
          f"0.0.0.0 without TLS or --insecure is refused (exit {rc})")
    d = start("public-insecure", ["--listen", f"0.0.0.0:{port}", "--insecure"])
    check("INSECURE on a non-loopback address" in d.text() and status_ok(f"127.0.0.1:{port}"),
          "with --insecure it serves plaintext and the log says INSECURE")
    d.stop()
    d = start("loopback", ["--listen", f"127.0.0.1:{port}"])
    check("insecure (loopback)" in d.text(), "a loopback address: insecure (loopback) in the log")
    d.stop()


def openssl(*args):
    subprocess.run(["openssl", *args], check=True, capture_output=True, timeout=60)


def make_certs(dirname):
    """A CA; the daemon's certificate for 127.0.0.1/localhost; a client certificate; and a
    client certificate from another CA."""
    os.makedirs(dirname, exist_ok=True)
    p = lambda n: os.path.join(dirname, n)  # noqa: E731
    key = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
    for ca in ("ca", "rogue-ca"):
        openssl("req", "-x509", *key, "-keyout", p(f"{ca}.key"), "-out", p(f"{ca}.pem"),
                "-days", "2", "-subj", f"/CN=czk test {ca}")
    with open(p("server.ext"), "w") as f:
        f.write("subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n")
    with open(p("client.ext"), "w") as f:
        f.write("extendedKeyUsage=clientAuth\n")
    for name, ca, ext in (("server", "ca", "server.ext"), ("client", "ca", "client.ext"),
                          ("rogue", "rogue-ca", "client.ext")):
        openssl("req", "-new", *key, "-keyout", p(f"{name}.key"), "-out", p(f"{name}.csr"),
                "-subj", f"/CN=czk test {name}")
        openssl("x509", "-req", "-in", p(f"{name}.csr"), "-CA", p(f"{ca}.pem"), "-CAkey",
                p(f"{ca}.key"), "-CAcreateserial", "-out", p(f"{name}.pem"), "-days", "2",
                "-extfile", p(ext))
    return p


def grpc_status_code(addr, ca, cert=None, key=None):
    read = lambda f: open(f, "rb").read() if f else None  # noqa: E731
    creds = grpc.ssl_channel_credentials(read(ca), read(key), read(cert))
    with grpc.secure_channel(addr, creds) as ch:
        return code_of(rpc.ProvingEngineStub(ch).GetStatus, pb.GetStatusRequest(), timeout=15)


def test_tls():
    p = make_certs(os.path.join(ARGS.work, "certs"))
    port = free_port()
    addr = f"127.0.0.1:{port}"
    d = start("mtls", ["--listen", f"0.0.0.0:{port}", "--tls-cert", p("server.pem"),
                       "--tls-key", p("server.key"), "--tls-client-ca", p("ca.pem")])
    check("mutual TLS" in d.text(), "0.0.0.0 with a certificate and a client CA: mutual TLS")
    check(not status_ok(addr, "--tls-ca", p("ca.pem")),
          "mutual TLS: czk status without a client certificate is refused")
    check(status_ok(addr, "--tls-ca", p("ca.pem"), "--tls-cert", p("client.pem"),
                    "--tls-key", p("client.key")),
          "mutual TLS: czk status with a client certificate works")
    check(not status_ok(addr), "mutual TLS: a plaintext client is refused")
    got = grpc_status_code(addr, p("ca.pem"))
    check(got != grpc.StatusCode.OK, f"mutual TLS: Python grpc without a certificate: {got.name}")
    got = grpc_status_code(addr, p("ca.pem"), p("rogue.pem"), p("rogue.key"))
    check(got != grpc.StatusCode.OK,
          f"mutual TLS: a certificate from another CA is refused ({got.name})")
    got = grpc_status_code(addr, p("ca.pem"), p("client.pem"), p("client.key"))
    check(got == grpc.StatusCode.OK, f"mutual TLS: Python grpc with a certificate: {got.name}")
    rc = d.stop()
    check(rc == 0, f"the TLS daemon exits 0 (got {rc})")

    d = start("tls", ["--listen", f"0.0.0.0:{port}", "--tls-cert", p("server.pem"),
                      "--tls-key", p("server.key")])
    check("on 0.0.0.0:%d: TLS" % port in d.text(), "a certificate without a client CA: TLS")
    check(status_ok(addr, "--tls-ca", p("ca.pem")), "TLS: czk status with the CA works")
    check(not status_ok(addr), "TLS: a plaintext client is refused")
    d.stop()
    bad = Proc("tls-no-key", [*BASE, "--listen", f"127.0.0.1:{port}",
                              "--tls-cert", p("server.pem")])
    rc = bad.refused()
    check(rc == 2 and "tls_key" in bad.text(), f"a certificate without its key is refused ({rc})")


def test_sighup():
    port = free_port()
    addr = f"127.0.0.1:{port}"
    d = start("sighup", ["--listen", addr])
    ch = grpc.insecure_channel(addr)
    stub = rpc.ProvingEngineStub(ch)
    n = 8
    ids = [stub.SubmitProof(submit_req(f"hup-{i}", circuit="syn12" if i % 2 else "syn8",
                                       parts=2, seed=i), timeout=30).job_id for i in range(n)]
    answers = {}

    def wait(jid):
        try:
            answers[jid] = stub.AwaitProof(pb.AwaitProofRequest(job_id=jid), timeout=300)
        except grpc.RpcError as e:
            answers[jid] = e
    threads = [threading.Thread(target=wait, args=(j,)) for j in ids]
    for t in threads:
        t.start()
    time.sleep(0.2)
    d.proc.send_signal(signal.SIGHUP)
    time.sleep(0.2)
    d.proc.send_signal(signal.SIGHUP)
    for t in threads:
        t.join(timeout=300)
    done = [j for j, r in answers.items()
            if isinstance(r, pb.AwaitProofResponse) and r.status == r.COMPLETED]
    check(len(done) == n, f"SIGHUP under load: every job COMPLETED ({len(done)}/{n})")
    check(d.proc.poll() is None, "SIGHUP: the daemon keeps running")
    # The daemon logs the second SIGHUP after sigwait returns, which may be after the jobs are
    # done: wait for its line rather than read the log once.
    end = time.monotonic() + 10
    while d.text().count("SIGHUP: nothing to reload; ignored") < 2 and time.monotonic() < end:
        time.sleep(0.05)
    check(d.text().count("SIGHUP: nothing to reload; ignored") == 2, "SIGHUP is logged, twice")
    r = stub.Prove(pb.ProveRequest(submit=submit_req("after-hup")), timeout=120)
    check(r.result.status == r.result.COMPLETED, "after SIGHUP the daemon still proves")
    ch.close()
    rc = d.stop()
    check(rc == 0, f"after SIGHUP, SIGTERM still drains and exits 0 (got {rc})")


def test_client_limit():
    port = free_port()
    addr = f"127.0.0.1:{port}"
    sock = os.path.join(ARGS.work, "limit.sock")
    d = start("limit", ["--listen", addr, "--listen", f"unix://{sock}",
                        "--set", "daemon.max_jobs_per_client=2"])
    ch = grpc.insecure_channel(addr)
    stub = rpc.ProvingEngineStub(ch)
    a = stub.SubmitProof(submit_req("lim-1", circuit="syn12", parts=4, seed=1), timeout=30)
    b = stub.SubmitProof(submit_req("lim-2", circuit="syn12", parts=4, seed=2), timeout=30)
    got = code_of(stub.SubmitProof, submit_req("lim-3", seed=3), timeout=30)
    check(got == grpc.StatusCode.RESOURCE_EXHAUSTED,
          f"a third unfinished job of one client: RESOURCE_EXHAUSTED ({got.name})")
    # Another client (the unix socket's) is not held back by the first one's jobs.
    uch = grpc.insecure_channel(f"unix://{sock}")
    ustub = rpc.ProvingEngineStub(uch)
    got = code_of(ustub.SubmitProof, submit_req("lim-u", seed=4), timeout=30)
    check(got == grpc.StatusCode.OK, f"another client may still submit ({got.name})")
    for jid in (a.job_id, b.job_id, "lim-u"):
        stub.AwaitProof(pb.AwaitProofRequest(job_id=jid), timeout=300)
    got = code_of(stub.SubmitProof, submit_req("lim-4", seed=5), timeout=30)
    check(got == grpc.StatusCode.OK, f"once its jobs finished, the client may submit ({got.name})")
    ch.close()
    uch.close()
    d.stop()


def test_notify():
    """systemd's readiness protocol, with a datagram socket standing in for systemd."""
    ldd = subprocess.run(["ldd", ARGS.czk], capture_output=True, text=True).stdout
    if "libsystemd" not in ldd:
        print("skipped: czk is built without libsystemd (no sd_notify)", flush=True)
        return
    path = os.path.join(ARGS.work, "notify.sock")
    if os.path.exists(path):
        os.unlink(path)
    ns = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    ns.bind(path)
    ns.settimeout(90)
    d = Proc("notify", [*BASE, "--listen", f"127.0.0.1:{free_port()}"],
             env=dict(os.environ, NOTIFY_SOCKET=path))
    try:
        first = ns.recv(4096).decode()
    except socket.timeout:
        first = ""
    check(first == "READY=1" and "czk daemon: ready" in d.text(),
          f"systemd hears READY=1 once the daemon is ready ({first!r})")
    d.proc.send_signal(signal.SIGTERM)
    try:
        second = ns.recv(4096).decode()
    except socket.timeout:
        second = ""
    check(second == "STOPPING=1", f"systemd hears STOPPING=1 when the drain begins ({second!r})")
    rc = d.refused(timeout=120)  # the SIGTERM above drains it; a second one would not
    check(rc == 0, f"the notified daemon exits 0 ({rc})")
    ns.close()


def test_help():
    rc, out = cli("daemon", "--help-config")
    keys = ["daemon.tls_cert", "daemon.tls_key", "daemon.tls_client_ca", "daemon.insecure",
            "daemon.max_jobs_per_client", "daemon.max_message_size"]
    missing = [k for k in keys if k not in out]
    check(rc == 0 and not missing, f"--help-config lists the security keys (missing {missing})")
    line = [ln for ln in out.splitlines() if ln.strip().startswith("daemon.listen ")]
    check(line and "127.0.0.1:9820" in line[0], f"the default gRPC address is loopback ({line})")
    line = [ln for ln in out.splitlines() if ln.strip().startswith("daemon.status_listen ")]
    check(line and "127.0.0.1:" in line[0], f"the default HTTP address is loopback ({line})")


def main():
    global ARGS, pb, rpc
    ARGS, pb, rpc = dt.setup("security")
    for t in (test_help, test_one_per_address, test_stale_socket, test_non_loopback, test_tls,
              test_sighup, test_client_limit, test_notify):
        print(f"--- {t.__name__}", flush=True)
        t()
    dt.finish()


if __name__ == "__main__":
    main()
