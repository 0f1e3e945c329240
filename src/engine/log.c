/*
 * The engine's log: lines are queued (under log_mu, a leaf lock) and handed to the config's
 * callback by one logger thread, so that the callback never runs with an engine lock held and
 * a slow sink never stalls a worker. Lines keep the order in which they were queued.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>

#include "engine/engine_internal.h"
#include "util/alloc.h"

void czk__set_msg(char *dst, size_t n, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(dst, n, fmt, ap);
    va_end(ap);
}

void czk__elog(czk_engine *e, int level, const char *fmt, ...) {
    if (e->cfg.log == NULL || level > e->cfg.log_level)
        return;
    logline *l = czk_malloc(sizeof *l);
    if (l == NULL)
        return; /* a log line is not worth failing work for */
    l->next = NULL;
    l->level = level;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(l->text, sizeof l->text, fmt, ap);
    va_end(ap);
    pthread_mutex_lock(&e->log_mu);
    if (e->log_tail != NULL)
        e->log_tail->next = l;
    else
        e->log_head = l;
    e->log_tail = l;
    pthread_cond_signal(&e->log_cv);
    pthread_mutex_unlock(&e->log_mu);
}

static void *logger_main(void *arg) {
    czk_engine *e = arg;
    pthread_mutex_lock(&e->log_mu);
    for (;;) {
        while (e->log_head == NULL && !e->log_quit)
            pthread_cond_wait(&e->log_cv, &e->log_mu);
        logline *l = e->log_head;
        if (l == NULL)
            break; /* log_quit and drained */
        e->log_head = NULL;
        e->log_tail = NULL;
        pthread_mutex_unlock(&e->log_mu);
        while (l != NULL) {
            logline *next = l->next;
            e->cfg.log(e->cfg.log_arg, l->level, l->text);
            czk_free(l);
            l = next;
        }
        pthread_mutex_lock(&e->log_mu);
    }
    pthread_mutex_unlock(&e->log_mu);
    return NULL;
}

int czk__log_start(czk_engine *e, czk_err *err) {
    if (e->cfg.log == NULL)
        return CZK_OK;
    if (pthread_create(&e->logger, NULL, logger_main, e) != 0)
        return czk_err_set(err, CZK_EINTERNAL, "cannot start the logger thread");
    e->logger_started = 1;
    return CZK_OK;
}

/* Drains the queue into the callback, then joins the logger. */
void czk__log_stop(czk_engine *e) {
    if (!e->logger_started)
        return;
    pthread_mutex_lock(&e->log_mu);
    e->log_quit = 1;
    pthread_cond_signal(&e->log_cv);
    pthread_mutex_unlock(&e->log_mu);
    pthread_join(e->logger, NULL);
    e->logger_started = 0;
}
