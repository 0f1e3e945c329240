/*
 * A progress line for long commands (cli.h: czk_cli_progress). A thread redraws the line
 * every 250 ms so that the elapsed time moves while a stage runs without reporting anything
 * itself (loading a key, one engine proof): the engine has no step callbacks, so the stage is
 * all the command knows, and the line says no more than that.
 */
#include "cli/cli.h"

#include "util/timer.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#define TICK_NS 250000000L

/* Draws the line; the caller holds p->mu. "\r" then the text then "erase to the end of the
 * line", so a shorter line leaves nothing of a longer one behind. */
static void draw(czk_cli_progress *p) {
    double el = (double)(czk_time_ns() - p->t0_ns) / 1e9;
    char line[256], step[32] = "";
    if (p->steps > 0)
        snprintf(step, sizeof step, "[%d/%d] ", p->step, p->steps);
    /* The elapsed time first: a line cut to the terminal's width (a wrapped line would not
     * be rewritten by \r) keeps it. */
    int n = snprintf(line, sizeof line, "czk %s: %.1f s %s%s", p->cmd, el, step, p->text);
    struct winsize ws;
    if (n > 0 && ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 1 &&
        (size_t)n >= ws.ws_col && ws.ws_col < sizeof line)
        line[ws.ws_col - 1] = '\0';
    fprintf(stderr, "\r%s\033[K", line);
    fflush(stderr);
    p->drawn = 1;
}

static void *ticker(void *arg) {
    czk_cli_progress *p = arg;
    pthread_mutex_lock(&p->mu);
    while (!p->quit) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += TICK_NS;
        if (ts.tv_nsec >= 1000000000L) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&p->cv, &p->mu, &ts);
        if (!p->quit && p->text[0] != '\0')
            draw(p);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

void czk_cli_progress_start(czk_cli_progress *p, const char *cmd, int steps) {
    memset(p, 0, sizeof *p);
    p->cmd = cmd;
    p->steps = steps;
    p->t0_ns = czk_time_ns();
    p->on = isatty(STDERR_FILENO);
    if (!p->on)
        return;
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->cv, NULL);
    p->inited = 1;
    p->thread_started = pthread_create(&p->thread, NULL, ticker, p) == 0;
}

/* Sets the line's text, advancing the step count for a new stage, and draws it. */
static void set_text(czk_cli_progress *p, int next_step, const char *fmt, va_list ap) {
    if (!p->inited)
        return;
    pthread_mutex_lock(&p->mu);
    vsnprintf(p->text, sizeof p->text, fmt, ap);
    if (next_step && p->steps > 0 && p->step < p->steps)
        p->step++;
    if (p->on)
        draw(p);
    pthread_mutex_unlock(&p->mu);
}

void czk_cli_progress_stage(czk_cli_progress *p, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    set_text(p, 1, fmt, ap);
    va_end(ap);
}

void czk_cli_progress_count(czk_cli_progress *p, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    set_text(p, 0, fmt, ap);
    va_end(ap);
}

void czk_cli_progress_lock(czk_cli_progress *p) {
    if (!p->inited)
        return;
    pthread_mutex_lock(&p->mu);
    if (p->drawn) {
        fputs("\r\033[K", stderr);
        fflush(stderr);
        p->drawn = 0;
    }
}

void czk_cli_progress_unlock(czk_cli_progress *p) {
    if (!p->inited)
        return;
    fflush(stdout);
    if (p->on && p->text[0] != '\0')
        draw(p);
    pthread_mutex_unlock(&p->mu);
}

/* The mutex and condition variable are not destroyed: an engine thread may still log (through
 * _lock) after the display ends, and default ones hold no resources. */
void czk_cli_progress_end(czk_cli_progress *p) {
    if (!p->inited)
        return;
    pthread_mutex_lock(&p->mu);
    int join = p->on && p->thread_started;
    p->on = 0;
    p->quit = 1;
    pthread_cond_signal(&p->cv);
    if (p->drawn)
        fputs("\r\033[K", stderr);
    fflush(stderr);
    p->drawn = 0;
    pthread_mutex_unlock(&p->mu);
    if (join)
        pthread_join(p->thread, NULL);
}
