/* The fuzzer's bytes as a stream of choices: take() reads the next bytes (zeros once the input
 * is used up, so every input is a valid case), and a xorshift generator seeded from the input
 * fills long buffers (message and AAD contents matter little to constant-time code; their
 * lengths and splits are what the fuzzer steers). */
#ifndef SG_FUZZ_INPUT_H
#define SG_FUZZ_INPUT_H

#include <stdint.h>
#include <stddef.h>

typedef struct {
    const uint8_t *p;
    size_t n;
} sg_input;

static inline uint32_t sg_take(sg_input *in, unsigned nbytes)   /* up to 4 bytes, big-endian */
{
    uint32_t v = 0;
    while (nbytes--) {
        v = (v << 8) | (in->n ? *in->p : 0u);
        if (in->n) { in->p++; in->n--; }
    }
    return v;
}

static inline void sg_take_bytes(sg_input *in, uint8_t *d, size_t n)
{
    while (n--) *d++ = (uint8_t)sg_take(in, 1);
}

static inline void sg_fill(uint64_t seed, uint8_t *d, size_t n)
{
    uint64_t x = seed | 1u;
    while (n--) {
        x ^= x << 13; x ^= x >> 7; x ^= x << 17;
        *d++ = (uint8_t)(x >> 24);
    }
}

/* A length with most of the weight on small values: v < 3/4 of the range gives v % small. */
static inline size_t sg_len(sg_input *in, size_t small, size_t big)
{
    uint32_t v = sg_take(in, 2);
    return v < 0xC000u ? v % (small + 1u) : v % (big + 1u);
}

/* The next piece of a split message (0 .. 39 bytes, or a multiple of 64 up to 3520). */
static inline size_t sg_piece(sg_input *in)
{
    uint32_t b = sg_take(in, 1);
    return b < 200u ? b % 40u : (b - 200u) * 64u;
}

#endif
