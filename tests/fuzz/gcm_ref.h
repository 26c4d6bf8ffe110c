/* AES-GCM as NIST SP 800-38D writes it (§7.1, Algorithm 4 GCM-AE_K): the oracle for IVs over 128
 * bytes, which OpenSSL refuses (and pyca with it). Each step is the standard's: H = CIPH_K(0^128);
 * J0 = IV || 0^31 || 1 for a 96-bit IV, else GHASH_H(IV || 0^(s+64) || [len(IV)]_64); C =
 * GCTR_K(inc32(J0), P); S = GHASH_H(A || 0^v || C || 0^u || [len(A)]_64 || [len(C)]_64); T =
 * GCTR_K(J0, S). GHASH is tests/fuzz/ghash_ref.h (Algorithm 1, bit by bit), the block cipher
 * OpenSSL's AES-ECB (sg_oracle_ecb, defined before this header). Slow and plain, on purpose:
 * nothing here is shared with the drops or with OpenSSL's GCM. */
#ifndef SG_GCM_REF_H
#define SG_GCM_REF_H

#include <stdint.h>
#include <stddef.h>
#include <string.h>
#include "ghash_ref.h"

/* GHASH_H over a string padded with zeros to whole blocks */
static inline void sg_ghash_ref_padded(const uint8_t h[16], uint8_t y[16], const uint8_t *x, size_t n)
{
    uint8_t last[16] = {0};
    sg_ghash_ref(h, y, x, n / 16u);
    if (n % 16u) {
        memcpy(last, x + n - n % 16u, n % 16u);
        sg_ghash_ref(h, y, last, 1);
    }
}

static inline void sg_put64(uint8_t *p, uint64_t v)
{
    int i;
    for (i = 7; i >= 0; i--, v >>= 8) p[i] = (uint8_t)v;
}

static inline void sg_gcm_ref(const uint8_t *key, size_t keylen, const uint8_t *iv, size_t ivlen,
                              const uint8_t *aad, size_t aadlen, const uint8_t *msg, size_t len,
                              uint8_t *ct, uint8_t tag[16])
{
    uint8_t h[16] = {0}, j0[16] = {0}, cb[16], ks[16], lens[16];
    uint32_t c;
    size_t i;
    int k;
    sg_oracle_ecb(key, keylen, h, 1, h);
    if (ivlen == 12u) {
        memcpy(j0, iv, 12);
        j0[15] = 1;
    } else {
        sg_ghash_ref_padded(h, j0, iv, ivlen);
        memset(lens, 0, 8);
        sg_put64(lens + 8, (uint64_t)ivlen * 8u);
        sg_ghash_ref(h, j0, lens, 1);
    }
    memcpy(cb, j0, 16);
    for (i = 0; i < len; i++) {
        if (i % 16u == 0) {                    /* inc32: the low 32 bits, modulo 2^32 */
            c = ((uint32_t)cb[12] << 24 | (uint32_t)cb[13] << 16 | (uint32_t)cb[14] << 8 | cb[15]) + 1u;
            for (k = 0; k < 4; k++) cb[12 + k] = (uint8_t)(c >> (24 - 8 * k));
            sg_oracle_ecb(key, keylen, cb, 1, ks);
        }
        ct[i] = (uint8_t)(msg[i] ^ ks[i % 16u]);
    }
    memset(tag, 0, 16);
    sg_ghash_ref_padded(h, tag, aad, aadlen);
    sg_ghash_ref_padded(h, tag, ct, len);
    sg_put64(lens, (uint64_t)aadlen * 8u);
    sg_put64(lens + 8, (uint64_t)len * 8u);
    sg_ghash_ref(h, tag, lens, 1);
    sg_oracle_ecb(key, keylen, j0, 1, ks);
    for (k = 0; k < 16; k++) tag[k] ^= ks[k];
}

#endif
