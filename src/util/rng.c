#include "util/rng.h"

#include "util/status.h"

#include <errno.h>
#include <string.h>
#include <sys/random.h>

static uint64_t splitmix64(uint64_t *x) {
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static inline uint64_t rotl(uint64_t x, int k) {
    return (x << k) | (x >> (64 - k));
}

void czk_rng_seed(czk_rng *rng, uint64_t seed) {
    for (int i = 0; i < 4; i++)
        rng->s[i] = splitmix64(&seed);
}

uint64_t czk_rng_u64(czk_rng *rng) {
    uint64_t *s = rng->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

void czk_rng_bytes(czk_rng *rng, void *out, size_t len) {
    unsigned char *p = out;
    while (len >= 8) {
        uint64_t v = czk_rng_u64(rng);
        memcpy(p, &v, 8);
        p += 8;
        len -= 8;
    }
    if (len > 0) {
        uint64_t v = czk_rng_u64(rng);
        memcpy(p, &v, len);
    }
}

int czk_rng_os(void *out, size_t len) {
    unsigned char *p = out;
    while (len > 0) {
        ssize_t n = getrandom(p, len, 0);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return CZK_EIO;
        }
        p += n;
        len -= (size_t)n;
    }
    return CZK_OK;
}
