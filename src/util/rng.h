/*
 * Random numbers.
 *
 * czk_rng is xoshiro256** (Blackman and Vigna, "Scrambled linear pseudorandom number
 * generators", 2018): fast and reproducible from a 64-bit seed, for tests, benchmarks and
 * dev-only setups. It is NOT cryptographic. Secrets of real proofs (r, s) come from
 * czk_rng_os, the operating system's random source.
 */
#ifndef CZK_UTIL_RNG_H
#define CZK_UTIL_RNG_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct czk_rng {
    uint64_t s[4];
} czk_rng;

/* Seeds `rng` from `seed` through splitmix64, so that nearby seeds give unrelated streams. */
void czk_rng_seed(czk_rng *rng, uint64_t seed);

/* Returns the next 64 pseudo-random bits. */
uint64_t czk_rng_u64(czk_rng *rng);

/* Fills `out[0..len)` with pseudo-random bytes. */
void czk_rng_bytes(czk_rng *rng, void *out, size_t len);

/*
 * Fills `out[0..len)` from the operating system (getrandom(2)).
 * Returns CZK_OK, or CZK_EIO when the OS source fails.
 */
int czk_rng_os(void *out, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* CZK_UTIL_RNG_H */
