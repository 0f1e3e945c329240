// DESIGN
//
// The listening side of the gRPC server, apart from the service (server.cpp): which addresses
// are served how, and the checks that keep two daemons off one address. gRPC itself would share
// a TCP port (SO_REUSEPORT) and unlink a live daemon's unix socket file, and it logs raw core
// errors for a bad address, so every address is checked here before gRPC sees it: its shape,
// its security mode (plaintext only on a unix socket, on loopback, or where the operator said
// --insecure), and that nothing else listens on it. A unix socket gets a PATH.lock held for the
// server's life and mode CZK_GRPC_UNIX_SOCKET_MODE from the moment it exists.
#include "server/grpc/listen.h"

#include <grpcpp/security/server_credentials.h>

#include <arpa/inet.h>
#include <cerrno>
#include <fcntl.h>
#include <fstream>
#include <netdb.h>
#include <netinet/in.h>
#include <sstream>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <string>

#include "util/status.h"

namespace {

// What is wrong with a listen address, or "" when it has the shape gRPC takes: unix:PATH,
// unix:///PATH, or HOST:PORT (HOST may be [v6]) with PORT a number in 0..65535 (0: any free
// port). Checked before gRPC sees it: gRPC would log a raw core error for a bad one, and it
// takes a port above 65535 without complaint and listens on some other port.
std::string listen_fault(const std::string &a) {
    if (a.rfind("unix:", 0) == 0) {
        bool uri = a.rfind("unix://", 0) == 0;
        std::string path = uri ? a.substr(7) : a.substr(5);
        if (path.empty())
            return "no socket path after unix:";
        // gRPC reads unix://x/y as host x, path /y: a relative path is unix:PATH.
        return uri && path[0] != '/' ? "unix:// takes an absolute path (unix:///run/czk.sock); "
                                       "a relative one is unix:PATH"
                                     : "";
    }
    size_t colon = a.rfind(':');
    if (colon == std::string::npos || colon == 0)
        return "not HOST:PORT or unix:PATH";
    std::string host = a.substr(0, colon), port = a.substr(colon + 1);
    if (host.front() == '[' ? host.back() != ']' || host.size() < 3
                            : host.find(':') != std::string::npos)
        return "an IPv6 host must be in brackets, as [::1]:9820";
    if (port.empty() || port.size() > 5 ||
        port.find_first_not_of("0123456789") != std::string::npos || std::stoul(port) > 65535)
        return "the port must be a number in 0..65535";
    return "";
}

// The path of "unix:PATH" or "unix:///PATH"; "" for a TCP address.
std::string unix_path(const std::string &a) {
    if (a.rfind("unix:", 0) != 0)
        return "";
    return a.rfind("unix://", 0) == 0 ? a.substr(7) : a.substr(5);
}

// The host (without a v6 address's brackets) and port of a TCP address that listen_fault
// accepted.
void split_host_port(const std::string &a, std::string *host, std::string *port) {
    size_t colon = a.rfind(':');
    *host = a.substr(0, colon);
    *port = a.substr(colon + 1);
    if (host->size() >= 2 && host->front() == '[')
        *host = host->substr(1, host->size() - 2);
}

// The addresses a TCP host:port resolves to for listening, or nullptr with err set.
addrinfo *resolve(const std::string &addr, czk_err *err) {
    std::string host, port;
    split_host_port(addr, &host, &port);
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
    addrinfo *ai = nullptr;
    int gai = getaddrinfo(host.c_str(), port.c_str(), &hints, &ai);
    if (gai != 0) {
        czk_err_set(err, CZK_EINVAL, "listen address '%s': %s", addr.c_str(), gai_strerror(gai));
        return nullptr;
    }
    return ai;
}

bool is_loopback(const sockaddr *sa) {
    if (sa->sa_family == AF_INET) {
        uint32_t a = ntohl(reinterpret_cast<const sockaddr_in *>(sa)->sin_addr.s_addr);
        return (a >> 24) == 127;
    }
    if (sa->sa_family == AF_INET6) {
        const in6_addr &a = reinterpret_cast<const sockaddr_in6 *>(sa)->sin6_addr;
        return IN6_IS_ADDR_LOOPBACK(&a) || (IN6_IS_ADDR_V4MAPPED(&a) && a.s6_addr[12] == 127);
    }
    return false;
}

// A TCP address another socket listens on. SO_REUSEADDR as gRPC and libmicrohttpd set it, so
// that connections of an earlier run in TIME_WAIT do not count; a listener still does.
int tcp_check(const std::string &addr, czk_err *err) {
    std::string host, port;
    split_host_port(addr, &host, &port);
    if (port == "0")
        return CZK_OK;
    addrinfo *ai = resolve(addr, err);
    if (ai == nullptr)
        return CZK_EINVAL;
    int rc = CZK_OK;
    for (addrinfo *p = ai; p != nullptr && rc == CZK_OK; p = p->ai_next) {
        int fd = socket(p->ai_family, p->ai_socktype | SOCK_CLOEXEC, p->ai_protocol);
        if (fd < 0)
            continue;
        int one = 1;
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        if (bind(fd, p->ai_addr, p->ai_addrlen) != 0 && errno == EADDRINUSE)
            rc = czk_err_set(err, CZK_EIO,
                             "listen address '%s': address in use (another czk daemon, or "
                             "another program, listens on it)",
                             addr.c_str());
        close(fd);
    }
    freeaddrinfo(ai);
    return rc;
}

// A unix socket path: free when absent or stale (a connect is refused: the daemon that made it
// is gone; the file is removed when remove_stale); in use when something accepts or queues the
// connect.
int unix_check(const std::string &addr, bool remove_stale, czk_err *err) {
    std::string path = unix_path(addr);
    sockaddr_un sun{};
    if (path.size() >= sizeof sun.sun_path)
        return czk_err_set(err, CZK_EINVAL, "listen address '%s': the path is longer than %zu",
                           addr.c_str(), sizeof sun.sun_path - 1);
    struct stat st;
    if (lstat(path.c_str(), &st) != 0)
        return errno == ENOENT ? CZK_OK
                               : czk_err_set(err, CZK_EINVAL, "listen address '%s': %s",
                                             addr.c_str(), std::strerror(errno));
    if (!S_ISSOCK(st.st_mode))
        return czk_err_set(err, CZK_EINVAL,
                           "listen address '%s': %s exists and is not a socket (not replaced)",
                           addr.c_str(), path.c_str());
    sun.sun_family = AF_UNIX;
    std::memcpy(sun.sun_path, path.c_str(), path.size() + 1);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return czk_err_set(err, CZK_EIO, "listen address '%s': socket: %s", addr.c_str(),
                           std::strerror(errno));
    int rc = connect(fd, reinterpret_cast<const sockaddr *>(&sun), sizeof sun);
    int e = errno;
    close(fd);
    if (rc == 0 || e == EAGAIN)
        return czk_err_set(err, CZK_EIO,
                           "listen address '%s': address in use (a daemon answers on this "
                           "socket; it is left alone)",
                           addr.c_str());
    if (e != ECONNREFUSED)
        return czk_err_set(err, CZK_EIO,
                           "listen address '%s': cannot tell whether it is in use: %s",
                           addr.c_str(), std::strerror(e));
    if (remove_stale && unlink(path.c_str()) != 0 && errno != ENOENT)
        return czk_err_set(err, CZK_EIO, "listen address '%s': cannot remove the stale socket: %s",
                           addr.c_str(), std::strerror(errno));
    return CZK_OK;
}

// Locks PATH.lock beside a unix socket for the server's life. Of two daemons started at once on
// one path, both may find no socket yet; the lock makes the second fail here instead of
// unlinking the first one's socket between its bind and its listen.
int unix_lock(const std::string &addr, std::vector<int> *fds, czk_err *err) {
    std::string lock = unix_path(addr) + ".lock";
    int fd = open(lock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0660);
    if (fd < 0)
        return czk_err_set(err, CZK_EIO, "listen address '%s': cannot open %s: %s", addr.c_str(),
                           lock.c_str(), std::strerror(errno));
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        int e = errno;
        close(fd);
        if (e == EWOULDBLOCK)
            return czk_err_set(err, CZK_EIO,
                               "listen address '%s': address in use (another daemon holds %s)",
                               addr.c_str(), lock.c_str());
        return czk_err_set(err, CZK_EIO, "listen address '%s': cannot lock %s: %s", addr.c_str(),
                           lock.c_str(), std::strerror(e));
    }
    fds->push_back(fd);
    return CZK_OK;
}

bool given(const char *s) {
    return s != nullptr && s[0] != '\0';
}

// A PEM file's text, or an error naming the config key it came from.
int read_pem(const char *path, const char *key, std::string *out, czk_err *err) {
    std::ifstream f(path, std::ios::binary);
    std::stringstream ss;
    if (f)
        ss << f.rdbuf();
    if (!f || f.bad())
        return czk_err_set(err, CZK_EINVAL, "%s: cannot read '%s': %s", key, path,
                           std::strerror(errno));
    *out = ss.str();
    if (out->find("-----BEGIN ") == std::string::npos)
        return czk_err_set(err, CZK_EINVAL, "%s: '%s' is not a PEM file", key, path);
    return CZK_OK;
}

} // namespace

extern "C" const char *czk_grpc_security_name(czk_grpc_security sec) {
    switch (sec) {
    case CZK_GRPC_SEC_UNIX:
        return "insecure (unix socket, mode 0660)";
    case CZK_GRPC_SEC_LOOPBACK:
        return "insecure (loopback)";
    case CZK_GRPC_SEC_INSECURE_PUBLIC:
        return "INSECURE on a non-loopback address";
    case CZK_GRPC_SEC_TLS:
        return "TLS";
    case CZK_GRPC_SEC_MUTUAL_TLS:
        return "mutual TLS";
    case CZK_GRPC_SEC_REFUSED:
        break;
    }
    return "refused";
}

extern "C" int czk_grpc_listen_security(czk_grpc_security *sec, const char *addr,
                                        const czk_grpc_server_opts *opts, czk_err *err) {
    *sec = CZK_GRPC_SEC_REFUSED;
    std::string a = addr != nullptr ? addr : "";
    std::string fault = a.empty() ? "empty" : listen_fault(a);
    if (!fault.empty())
        return czk_err_set(err, CZK_EINVAL, "listen address '%s': %s", a.c_str(), fault.c_str());
    czk_grpc_server_opts none{};
    if (opts == nullptr)
        opts = &none;
    if (given(opts->tls_cert) != given(opts->tls_key))
        return czk_err_set(err, CZK_EINVAL,
                           "TLS needs both daemon.tls_cert and daemon.tls_key (--tls-cert, "
                           "--tls-key)");
    if (given(opts->tls_client_ca) && !given(opts->tls_cert))
        return czk_err_set(err, CZK_EINVAL,
                           "daemon.tls_client_ca (mutual TLS) needs daemon.tls_cert and "
                           "daemon.tls_key");
    if (a.rfind("unix:", 0) == 0) {
        *sec = CZK_GRPC_SEC_UNIX;
        return CZK_OK;
    }
    if (given(opts->tls_cert)) {
        *sec = given(opts->tls_client_ca) ? CZK_GRPC_SEC_MUTUAL_TLS : CZK_GRPC_SEC_TLS;
        return CZK_OK;
    }
    addrinfo *ai = resolve(a, err);
    if (ai == nullptr)
        return CZK_EINVAL;
    bool loopback = true;
    for (addrinfo *p = ai; p != nullptr; p = p->ai_next)
        loopback = loopback && is_loopback(p->ai_addr);
    freeaddrinfo(ai);
    if (loopback) {
        *sec = CZK_GRPC_SEC_LOOPBACK;
        return CZK_OK;
    }
    if (opts->insecure) {
        *sec = CZK_GRPC_SEC_INSECURE_PUBLIC;
        return CZK_OK;
    }
    return czk_err_set(err, CZK_EINVAL,
                       "listen address '%s' is not a loopback address: serving it needs TLS "
                       "(daemon.tls_cert and daemon.tls_key; daemon.tls_client_ca for mutual "
                       "TLS), or plaintext said explicitly with --insecure (daemon.insecure)",
                       a.c_str());
}

extern "C" int czk_grpc_listen_check(const char *addr, czk_err *err) {
    std::string a = addr != nullptr ? addr : "";
    std::string fault = a.empty() ? "empty" : listen_fault(a);
    if (!fault.empty())
        return czk_err_set(err, CZK_EINVAL, "listen address '%s': %s", a.c_str(), fault.c_str());
    return a.rfind("unix:", 0) == 0 ? unix_check(a, false, err) : tcp_check(a, err);
}

czk_grpc_listeners::~czk_grpc_listeners() {
    for (int fd : lock_fds)
        close(fd);
}

int czk_grpc_listen_prepare(czk_grpc_listeners *ls, const char *const *listen, size_t n_listen,
                            const czk_grpc_server_opts *opts, czk_err *err) {
    ls->addrs = listen;
    ls->n = n_listen;
    ls->creds.assign(n_listen, nullptr);
    std::shared_ptr<grpc::ServerCredentials> tls;
    for (size_t i = 0; i < n_listen; i++) {
        czk_grpc_security sec;
        int rc = czk_grpc_listen_security(&sec, listen[i], opts, err);
        if (rc != CZK_OK)
            return rc;
        bool use_tls = sec == CZK_GRPC_SEC_TLS || sec == CZK_GRPC_SEC_MUTUAL_TLS;
        if (use_tls && tls == nullptr) {
            grpc::SslServerCredentialsOptions ssl(
                sec == CZK_GRPC_SEC_MUTUAL_TLS
                    ? GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY
                    : GRPC_SSL_DONT_REQUEST_CLIENT_CERTIFICATE);
            grpc::SslServerCredentialsOptions::PemKeyCertPair pair;
            if ((rc = read_pem(opts->tls_cert, "daemon.tls_cert", &pair.cert_chain, err)) !=
                    CZK_OK ||
                (rc = read_pem(opts->tls_key, "daemon.tls_key", &pair.private_key, err)) != CZK_OK)
                return rc;
            if (sec == CZK_GRPC_SEC_MUTUAL_TLS &&
                (rc = read_pem(opts->tls_client_ca, "daemon.tls_client_ca", &ssl.pem_root_certs,
                               err)) != CZK_OK)
                return rc;
            ssl.pem_key_cert_pairs.push_back(pair);
            tls = grpc::SslServerCredentials(ssl);
        }
        ls->creds[i] = use_tls ? tls : grpc::InsecureServerCredentials();
        // Before gRPC binds: gRPC unlinks whatever socket file is at a unix path, a live
        // daemon's included, and would share a TCP port it can bind.
        std::string path = unix_path(listen[i]);
        if (path.empty())
            rc = tcp_check(listen[i], err);
        else if ((rc = unix_lock(listen[i], &ls->lock_fds, err)) == CZK_OK)
            rc = unix_check(listen[i], true, err);
        if (rc != CZK_OK)
            return rc;
    }
    return CZK_OK;
}

int czk_grpc_listen_start(std::unique_ptr<grpc::Server> *server, int *bound_port,
                          grpc::ServerBuilder *b, const czk_grpc_listeners *ls, czk_err *err) {
    // One daemon per address: with SO_REUSEPORT (gRPC's default) a second daemon binds the
    // same port and the kernel splits the connections between the two.
    b->AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
    std::vector<int> ports(ls->n, 0);
    for (size_t i = 0; i < ls->n; i++)
        b->AddListeningPort(ls->addrs[i], ls->creds[i], &ports[i]);
    // gRPC binds unix sockets with mode 0777 minus the umask: this umask makes them 0660 from
    // the start (no window in which anyone may connect); the chmod below makes it certain.
    mode_t old_mask = umask(0117);
    *server = b->BuildAndStart();
    umask(old_mask);
    int rc = CZK_OK;
    for (size_t i = 0; i < ls->n && rc == CZK_OK; i++) {
        const char *addr = ls->addrs[i];
        std::string path = unix_path(addr);
        if (*server == nullptr || (path.empty() && ports[i] == 0)) {
            // Another process may have taken the address since the check: say so if it did.
            rc = path.empty() ? tcp_check(addr, err) : CZK_OK;
            if (rc == CZK_OK)
                rc = czk_err_set(err, CZK_EIO, "cannot listen on %s", addr);
        } else if (!path.empty() && chmod(path.c_str(), CZK_GRPC_UNIX_SOCKET_MODE) != 0) {
            rc = czk_err_set(err, CZK_EIO, "listen address '%s': chmod: %s", addr,
                             std::strerror(errno));
        } else if (path.empty() && bound_port != nullptr && *bound_port == 0) {
            *bound_port = ports[i];
        }
    }
    if (rc != CZK_OK && *server != nullptr) {
        (*server)->Shutdown();
        server->reset();
    }
    return rc;
}
