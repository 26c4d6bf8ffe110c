/* The AES-GCM and AES-ECB oracle where OpenSSL is not (the AArch64 replay under qemu-aarch64): the
 * portable drops, which tests/fuzz/gcm_portable.c fuzzes against OpenSSL on the host. Same
 * interface as tests/fuzz/ossl_gcm.h; needs the three portable headers included before it. */
#ifndef SG_ORACLE_PORTABLE_H
#define SG_ORACLE_PORTABLE_H

#include <stdio.h>
#include <stdlib.h>

#define SG_ORACLE_KEY(p, key, keylen)                                                \
    static p##_ctx ctx;                                                              \
    if (p##_init(&ctx, key, keylen) != 0) { fputs("oracle init\n", stderr); abort(); }

static inline void sg_oracle_gcm(const uint8_t *key, size_t keylen, const uint8_t *iv, size_t ivlen,
                          const uint8_t *aad, size_t aadlen, const uint8_t *msg, size_t len,
                          uint8_t *ct, uint8_t tag[16])
{
    int rc;
    if (keylen == 16u) {
        SG_ORACLE_KEY(aes128gcm_portable, key, keylen)
        rc = aes128gcm_portable_encrypt(&ctx, iv, ivlen, aad, aadlen, msg, len, ct, tag, 16);
    } else if (keylen == 24u) {
        SG_ORACLE_KEY(aes192gcm_portable, key, keylen)
        rc = aes192gcm_portable_encrypt(&ctx, iv, ivlen, aad, aadlen, msg, len, ct, tag, 16);
    } else {
        SG_ORACLE_KEY(aes256gcm_portable, key, keylen)
        rc = aes256gcm_portable_encrypt(&ctx, iv, ivlen, aad, aadlen, msg, len, ct, tag, 16);
    }
    if (rc != 0) { fputs("oracle encrypt\n", stderr); abort(); }
}

static inline void sg_oracle_ecb(const uint8_t *key, size_t keylen, const uint8_t *in, size_t nblocks, uint8_t *out)
{
    if (keylen == 16u) {
        SG_ORACLE_KEY(aes128gcm_portable, key, keylen)
        aes128gcm_portable_ecb_encrypt(&ctx, out, in, nblocks);
    } else if (keylen == 24u) {
        SG_ORACLE_KEY(aes192gcm_portable, key, keylen)
        aes192gcm_portable_ecb_encrypt(&ctx, out, in, nblocks);
    } else {
        SG_ORACLE_KEY(aes256gcm_portable, key, keylen)
        aes256gcm_portable_ecb_encrypt(&ctx, out, in, nblocks);
    }
}

#endif
