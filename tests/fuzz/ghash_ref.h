/* GHASH as SP 800-38D defines it (Algorithm 1, bit by bit, "right shift" of the reflected
 * polynomial R = 11100001 || 0^120): the reference for a drop's ghash() layer. Slow and plain. */
#ifndef SG_GHASH_REF_H
#define SG_GHASH_REF_H

#include <stdint.h>
#include <stddef.h>

/* z = x * y in GF(2^128), bit 0 = the most significant bit of byte 0 */
static inline void sg_gf_mul(uint8_t z[16], const uint8_t x[16], const uint8_t y[16])
{
    uint8_t v[16], r[16] = {0};
    int i, j, lsb;
    for (i = 0; i < 16; i++) v[i] = y[i];
    for (i = 0; i < 128; i++) {
        if ((x[i / 8] >> (7 - i % 8)) & 1)
            for (j = 0; j < 16; j++) r[j] ^= v[j];
        lsb = v[15] & 1;
        for (j = 15; j > 0; j--) v[j] = (uint8_t)((v[j] >> 1) | (v[j - 1] << 7));
        v[0] >>= 1;
        if (lsb) v[0] ^= 0xe1;
    }
    for (i = 0; i < 16; i++) z[i] = r[i];
}

/* y = (y ^ x_i) * H for each 16-byte block x_i */
static inline void sg_ghash_ref(const uint8_t h[16], uint8_t y[16], const uint8_t *in, size_t nblocks)
{
    size_t b;
    int i;
    for (b = 0; b < nblocks; b++) {
        for (i = 0; i < 16; i++) y[i] ^= in[16 * b + i];
        sg_gf_mul(y, y, h);
    }
}

#endif
