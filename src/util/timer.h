/* Monotonic time for benchmarks and per-step timing lines. */
#ifndef CZK_UTIL_TIMER_H
#define CZK_UTIL_TIMER_H

#include <stdint.h>
#include <time.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Nanoseconds from CLOCK_MONOTONIC. */
static inline uint64_t czk_time_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

#ifdef __cplusplus
}
#endif

#endif /* CZK_UTIL_TIMER_H */
