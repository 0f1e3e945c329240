/* Clearing secrets so that the compiler cannot drop the stores (secp256k1's memclear). */
#ifndef CZK_UTIL_MEMCLEAR_H
#define CZK_UTIL_MEMCLEAR_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Overwrites `p[0..len)` with zeros; never optimized away. */
void czk_memclear_explicit(void *p, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* CZK_UTIL_MEMCLEAR_H */
