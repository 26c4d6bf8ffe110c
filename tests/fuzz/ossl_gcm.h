/* The oracle for AES-GCM and AES-ECB: OpenSSL's libcrypto (EVP), an implementation independent of
 * the generator, for IVs of 1..128 bytes (EVP_CTRL_GCM_SET_IVLEN refuses longer ones); the full
 * 16-byte tag. IVs over 128 bytes go to SP 800-38D's algorithm written out (tests/fuzz/gcm_ref.h),
 * which, with SG_ORACLE_CROSSCHECK (tests/fuzz/gcm_portable.c), is checked against OpenSSL on
 * every short case (AAD and message of 64 bytes at most) whose IV OpenSSL takes, so the two
 * oracles keep each other honest. */
#ifndef SG_OSSL_GCM_H
#define SG_OSSL_GCM_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <openssl/evp.h>

static inline void sg_ossl_die(const char *what)
{
    fprintf(stderr, "OpenSSL oracle: %s failed\n", what);
    abort();
}

static const EVP_CIPHER *sg_ossl_cipher(size_t keylen, int gcm)
{
    static EVP_CIPHER *c[2][3];
    static const char *names[2][3] = {{"AES-128-ECB", "AES-192-ECB", "AES-256-ECB"},
                                      {"AES-128-GCM", "AES-192-GCM", "AES-256-GCM"}};
    size_t k = (keylen - 16u) / 8u;
    if (c[gcm][k] == NULL && (c[gcm][k] = EVP_CIPHER_fetch(NULL, names[gcm][k], NULL)) == NULL)
        sg_ossl_die("EVP_CIPHER_fetch");
    return c[gcm][k];
}

/* ct = GCM-encrypt(msg), tag = the full 16-byte tag (OpenSSL: ivlen 1..128). */
static inline void sg_ossl_gcm(const uint8_t *key, size_t keylen, const uint8_t *iv, size_t ivlen,
                        const uint8_t *aad, size_t aadlen, const uint8_t *msg, size_t len,
                        uint8_t *ct, uint8_t tag[16])
{
    static EVP_CIPHER_CTX *x;
    int n;
    if (x == NULL && (x = EVP_CIPHER_CTX_new()) == NULL) sg_ossl_die("EVP_CIPHER_CTX_new");
    if (!EVP_EncryptInit_ex(x, sg_ossl_cipher(keylen, 1), NULL, NULL, NULL)
        || !EVP_CIPHER_CTX_ctrl(x, EVP_CTRL_GCM_SET_IVLEN, (int)ivlen, NULL)
        || !EVP_EncryptInit_ex(x, NULL, NULL, key, iv))
        sg_ossl_die("GCM init");
    if (aadlen && !EVP_EncryptUpdate(x, NULL, &n, aad, (int)aadlen)) sg_ossl_die("GCM AAD");
    if (len && !EVP_EncryptUpdate(x, ct, &n, msg, (int)len)) sg_ossl_die("GCM update");
    if (!EVP_EncryptFinal_ex(x, ct + len, &n) || !EVP_CIPHER_CTX_ctrl(x, EVP_CTRL_GCM_GET_TAG, 16, tag))
        sg_ossl_die("GCM final");
}

static inline void sg_oracle_ecb(const uint8_t *key, size_t keylen, const uint8_t *in, size_t nblocks, uint8_t *out)
{
    static EVP_CIPHER_CTX *x;
    int n;
    if (x == NULL && (x = EVP_CIPHER_CTX_new()) == NULL) sg_ossl_die("EVP_CIPHER_CTX_new");
    if (!EVP_EncryptInit_ex(x, sg_ossl_cipher(keylen, 0), NULL, key, NULL) || !EVP_CIPHER_CTX_set_padding(x, 0)
        || (nblocks && !EVP_EncryptUpdate(x, out, &n, in, (int)(16u * nblocks))))
        sg_ossl_die("ECB");
}

#include "gcm_ref.h"

static inline void sg_oracle_gcm(const uint8_t *key, size_t keylen, const uint8_t *iv, size_t ivlen,
                        const uint8_t *aad, size_t aadlen, const uint8_t *msg, size_t len,
                        uint8_t *ct, uint8_t tag[16])
{
    if (ivlen > 128u) {
        sg_gcm_ref(key, keylen, iv, ivlen, aad, aadlen, msg, len, ct, tag);
        return;
    }
    sg_ossl_gcm(key, keylen, iv, ivlen, aad, aadlen, msg, len, ct, tag);
#ifdef SG_ORACLE_CROSSCHECK               /* gcm_portable.c; face_portable.c's IVs stay within OpenSSL's */
    if (aadlen + len <= 64u) {
        uint8_t mct[64], mtag[16];
        sg_gcm_ref(key, keylen, iv, ivlen, aad, aadlen, msg, len, mct, mtag);
        if ((len && memcmp(mct, ct, len) != 0) || memcmp(mtag, tag, 16) != 0) {
            fprintf(stderr, "DIVERGENCE: the SP 800-38D model disagrees with OpenSSL (ivlen %zu aadlen %zu len %zu)\n",
                    ivlen, aadlen, len);
            abort();
        }
    }
#endif
}

#endif
