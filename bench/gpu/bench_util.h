/*
 * What the C benchmarks share (those under bench/gpu, and bench_porep_synth): wall-clock
 * seconds since a mark, the median of a run's figures, and the process's resident memory now
 * and at its peak.
 */
#ifndef CZK_BENCH_GPU_BENCH_UTIL_H
#define CZK_BENCH_GPU_BENCH_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>

#include "util/timer.h"

static inline double bench_secs(uint64_t t0) {
    return (double)(czk_time_ns() - t0) / 1e9;
}

static inline int bench_cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The median of v[0..n) (sorted in place). */
static inline double bench_median(double *v, int n) {
    qsort(v, (size_t)n, sizeof(double), bench_cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Resident memory now (/proc/self/statm), GiB; 0 when unknown. */
static inline double bench_rss_gib(void) {
    FILE *f = fopen("/proc/self/statm", "r");
    unsigned long long size = 0, res = 0;
    if (f == NULL)
        return 0;
    int n = fscanf(f, "%llu %llu", &size, &res);
    fclose(f);
    return n == 2 ? (double)res * 4096.0 / (double)(1u << 30) : 0;
}

/* The process's peak resident memory, GiB. */
static inline double bench_peak_rss_gib(void) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_maxrss * 1024.0 / (double)(1u << 30);
}

#endif /* CZK_BENCH_GPU_BENCH_UTIL_H */
