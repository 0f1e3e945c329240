#include "util/memclear.h"

#include <string.h>

void czk_memclear_explicit(void *p, size_t len) {
    memset(p, 0, len);
    /* The empty asm that takes p as input makes the memset observable. */
    __asm__ __volatile__("" : : "r"(p) : "memory");
}
