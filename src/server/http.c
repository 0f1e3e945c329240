/*
 * GET /status and GET /metrics over libmicrohttpd (http.h). Responses are built into a
 * growing buffer and handed to libmicrohttpd, which frees them.
 */
#include "server/http.h"

#include <microhttpd.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "util/status.h"

struct czk_http {
    struct MHD_Daemon *mhd;
    czk_engine *engine;
    czk_grpc_server *grpc;
};

/* GET /status: the engine's JSON (czk_engine_status_json, which GetStatus sends too, so that
 * `czk status` prints the same object), copied into memory that libmicrohttpd can free(). */
int czk_http_status_json(czk_engine *engine, char **json) {
    *json = NULL;
    czk_engine_status st;
    int rc = czk_engine_get_status(engine, &st);
    if (rc != CZK_OK)
        return rc;
    char *text = NULL;
    rc = czk_engine_status_json(&st, &text);
    czk_engine_status_clear(&st);
    if (rc != CZK_OK)
        return rc;
    *json = strdup(text);
    czk_free(text);
    return *json != NULL ? CZK_OK : CZK_ENOMEM;
}

static int metrics_text(czk_http *h, char **text) {
    *text = NULL;
    char *engine_text = NULL;
    char *grpc_text = NULL;
    int rc = czk_engine_metrics(h->engine, &engine_text);
    if (rc == CZK_OK && h->grpc != NULL)
        rc = czk_grpc_server_metrics(h->grpc, &grpc_text);
    if (rc == CZK_OK) {
        /* One body, in memory libmicrohttpd can free(). */
        size_t ne = strlen(engine_text), ng = grpc_text != NULL ? strlen(grpc_text) : 0;
        char *body = malloc(ne + ng + 1);
        if (body == NULL) {
            rc = CZK_ENOMEM;
        } else {
            memcpy(body, engine_text, ne);
            memcpy(body + ne, grpc_text != NULL ? grpc_text : "", ng + 1);
            *text = body;
        }
    }
    czk_free(engine_text);
    free(grpc_text);
    return rc;
}

static enum MHD_Result reply(struct MHD_Connection *conn, unsigned code, const char *type,
                             char *body) {
    struct MHD_Response *r =
        MHD_create_response_from_buffer(strlen(body), body, MHD_RESPMEM_MUST_FREE);
    if (r == NULL) {
        free(body);
        return MHD_NO;
    }
    MHD_add_response_header(r, "Content-Type", type);
    enum MHD_Result ok = MHD_queue_response(conn, code, r);
    MHD_destroy_response(r);
    return ok;
}

/* A body libmicrohttpd can free(): plain malloc, so not czk_strdup. */
static char *text_copy(const char *s) {
    return strdup(s);
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *conn, const char *url,
                              const char *method, const char *version, const char *upload_data,
                              size_t *upload_data_size, void **con_cls) {
    (void)version;
    (void)upload_data;
    (void)upload_data_size;
    (void)con_cls;
    czk_http *h = cls;
    char *body = NULL;
    if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0) {
        body = text_copy("only GET\n");
        return body != NULL ? reply(conn, MHD_HTTP_METHOD_NOT_ALLOWED, "text/plain", body) : MHD_NO;
    }
    if (strcmp(url, "/status") == 0) {
        if (czk_http_status_json(h->engine, &body) == CZK_OK)
            return reply(conn, MHD_HTTP_OK, "application/json", body);
    } else if (strcmp(url, "/metrics") == 0) {
        if (metrics_text(h, &body) == CZK_OK)
            return reply(conn, MHD_HTTP_OK, "text/plain; version=0.0.4", body);
    } else {
        body = text_copy("not found: GET /status or /metrics\n");
        return body != NULL ? reply(conn, MHD_HTTP_NOT_FOUND, "text/plain", body) : MHD_NO;
    }
    body = text_copy("out of memory\n");
    return body != NULL ? reply(conn, MHD_HTTP_INTERNAL_SERVER_ERROR, "text/plain", body) : MHD_NO;
}

int czk_http_start(czk_http **out, int *bound_port, const char *listen, czk_engine *engine,
                   czk_grpc_server *grpc, czk_err *err) {
    *out = NULL;
    if (bound_port != NULL)
        *bound_port = 0;
    int rc = CZK_OK;
    struct addrinfo *ai = NULL;
    czk_http *h = NULL;
    char host[256];
    const char *colon = strrchr(listen, ':');
    size_t hlen = colon != NULL ? (size_t)(colon - listen) : 0;
    if (colon == NULL || hlen == 0 || hlen >= sizeof host || colon[1] == '\0') {
        rc = czk_err_set(err, CZK_EINVAL, "status address '%s' is not host:port", listen);
        goto out;
    }
    memcpy(host, listen, hlen);
    host[hlen] = '\0';
    if (host[0] == '[' && hlen > 2 && host[hlen - 1] == ']') { /* [::1]:9821 */
        memmove(host, host + 1, hlen - 2);
        host[hlen - 2] = '\0';
    }
    struct addrinfo hints;
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
    int gai = getaddrinfo(host, colon + 1, &hints, &ai);
    if (gai != 0) {
        rc = czk_err_set(err, CZK_EINVAL, "status address '%s': %s", listen, gai_strerror(gai));
        goto out;
    }
    h = calloc(1, sizeof *h);
    if (h == NULL) {
        rc = czk_err_set(err, CZK_ENOMEM, "no memory");
        goto out;
    }
    h->engine = engine;
    h->grpc = grpc;
    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION;
    if (ai->ai_family == AF_INET6)
        flags |= MHD_USE_IPv6;
    h->mhd = MHD_start_daemon(flags, 0, NULL, NULL, handle, h, MHD_OPTION_SOCK_ADDR, ai->ai_addr,
                              MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)30, MHD_OPTION_END);
    if (h->mhd == NULL) {
        rc = czk_err_set(err, CZK_EINVAL, "cannot serve HTTP on %s", listen);
        goto out;
    }
    if (bound_port != NULL) {
        const union MHD_DaemonInfo *info = MHD_get_daemon_info(h->mhd, MHD_DAEMON_INFO_BIND_PORT);
        *bound_port = info != NULL ? (int)info->port : 0;
    }
    *out = h;
    h = NULL;
out:
    if (ai != NULL)
        freeaddrinfo(ai);
    czk_http_stop(h);
    return rc;
}

void czk_http_stop(czk_http *h) {
    if (h == NULL)
        return;
    if (h->mhd != NULL)
        MHD_stop_daemon(h->mhd);
    free(h);
}
