/* What the adapter refuses, with Mbed TLS's error codes, and that nothing is half-written: each
 * case fills the output (or tag) buffer with a pattern first and checks it is untouched after the
 * refusal (a wrong tag: the output all zero). AES-128 (every adapter here serves it). Built and
 * run by emu/checks/mbedtls_suites.py; prints "N passed, N failed", exits non-zero on a failure. */
#include <stdio.h>
#include <string.h>
#include "mbedtls/gcm.h"

#define PAT 0x5A
static int passed, failed;

static void expect(const char *what, int cond)
{
    if (cond) {
        passed++;
    } else {
        failed++;
        printf("FAILED: %s\n", what);
    }
}

static int untouched(const unsigned char *b, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        if (b[i] != PAT) return 0;
    return 1;
}

static int zero(const unsigned char *b, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        if (b[i] != 0) return 0;
    return 1;
}

int main(void)
{
    mbedtls_gcm_context g;
    unsigned char key[16] = {1, 2, 3}, iv[12] = {4, 5}, in[64] = {6, 7}, out[64], tag[16], buf[80];
    size_t olen;
    int rc;

    mbedtls_gcm_init(&g);
    expect("setkey Camellia", mbedtls_gcm_setkey(&g, MBEDTLS_CIPHER_ID_CAMELLIA, key, 128) == MBEDTLS_ERR_GCM_BAD_INPUT);
    expect("setkey 64 bits", mbedtls_gcm_setkey(&g, MBEDTLS_CIPHER_ID_AES, key, 64) == MBEDTLS_ERR_GCM_BAD_INPUT);
    expect("starts without a key", mbedtls_gcm_starts(&g, MBEDTLS_GCM_ENCRYPT, iv, 12) == MBEDTLS_ERR_GCM_BAD_INPUT);
    expect("setkey AES-128", mbedtls_gcm_setkey(&g, MBEDTLS_CIPHER_ID_AES, key, 128) == 0);
    memset(out, PAT, sizeof out);
    expect("update before starts", mbedtls_gcm_update(&g, in, 16, out, 16, &olen) == MBEDTLS_ERR_GCM_BAD_INPUT
           && untouched(out, sizeof out));
    expect("starts iv_len 0", mbedtls_gcm_starts(&g, MBEDTLS_GCM_ENCRYPT, iv, 0) == MBEDTLS_ERR_GCM_BAD_INPUT);

    expect("starts", mbedtls_gcm_starts(&g, MBEDTLS_GCM_ENCRYPT, iv, 12) == 0);
    expect("update_ad", mbedtls_gcm_update_ad(&g, in, 5) == 0);
    rc = mbedtls_gcm_update(&g, in, 32, out, 31, &olen);
    expect("update output_size < input_length", rc == MBEDTLS_ERR_GCM_BUFFER_TOO_SMALL && untouched(out, sizeof out));
    memset(buf, PAT, sizeof buf);
    rc = mbedtls_gcm_update(&g, buf, 32, buf + 1, 48, &olen);
    expect("update on overlapping buffers", rc == MBEDTLS_ERR_GCM_BAD_INPUT && untouched(buf, sizeof buf));
    expect("empty update keeps the AD open", mbedtls_gcm_update(&g, in, 0, out, 0, &olen) == 0 && olen == 0
           && mbedtls_gcm_update_ad(&g, in + 5, 3) == 0);
    expect("update", mbedtls_gcm_update(&g, in, 20, out, 64, &olen) == 0 && olen == 20);
    expect("update_ad after update", mbedtls_gcm_update_ad(&g, in, 1) == MBEDTLS_ERR_GCM_BAD_INPUT);
    memset(tag, PAT, sizeof tag);
    expect("finish tag_len 3", mbedtls_gcm_finish(&g, NULL, 0, &olen, tag, 3) == MBEDTLS_ERR_GCM_BAD_INPUT
           && untouched(tag, sizeof tag));
    expect("finish tag_len 17", mbedtls_gcm_finish(&g, NULL, 0, &olen, tag, 17) == MBEDTLS_ERR_GCM_BAD_INPUT
           && untouched(tag, sizeof tag));
    expect("finish tag_len 5 after refusals", mbedtls_gcm_finish(&g, NULL, 0, &olen, tag, 5) == 0
           && olen == 0 && untouched(tag + 5, 11));
    expect("finish twice", mbedtls_gcm_finish(&g, NULL, 0, &olen, tag, 16) == MBEDTLS_ERR_GCM_BAD_INPUT);

    memset(out, PAT, sizeof out);
    memset(tag, PAT, sizeof tag);
    rc = mbedtls_gcm_crypt_and_tag(&g, MBEDTLS_GCM_ENCRYPT, 64, iv, 12, NULL, 0, in, out, 17, tag);
    expect("crypt_and_tag tag_len 17: nothing written", rc == MBEDTLS_ERR_GCM_BAD_INPUT && untouched(out, 64)
           && untouched(tag, 16));
    rc = mbedtls_gcm_crypt_and_tag(&g, MBEDTLS_GCM_ENCRYPT, 64, iv, 0, NULL, 0, in, out, 16, tag);
    expect("crypt_and_tag iv_len 0: nothing written", rc == MBEDTLS_ERR_GCM_BAD_INPUT && untouched(out, 64));
    expect("crypt_and_tag", mbedtls_gcm_crypt_and_tag(&g, MBEDTLS_GCM_ENCRYPT, 64, iv, 12, NULL, 0, in, buf, 16,
                                                      tag) == 0);
    tag[15] ^= 1;
    memset(out, PAT, sizeof out);
    expect("auth_decrypt wrong tag (16): output zero", mbedtls_gcm_auth_decrypt(&g, 64, iv, 12, NULL, 0, tag, 16, buf,
           out) == MBEDTLS_ERR_GCM_AUTH_FAILED && zero(out, 64));
    tag[0] ^= 1;
    memset(out, PAT, sizeof out);
    expect("auth_decrypt wrong tag (5): output zero", mbedtls_gcm_auth_decrypt(&g, 64, iv, 12, NULL, 0, tag, 5, buf,
           out) == MBEDTLS_ERR_GCM_AUTH_FAILED && zero(out, 64));
    tag[0] ^= 1;
    tag[15] ^= 1;
    expect("auth_decrypt right tag (5)", mbedtls_gcm_auth_decrypt(&g, 64, iv, 12, NULL, 0, tag, 5, buf, out) == 0
           && memcmp(out, in, 64) == 0);
    expect("auth_decrypt right tag (16)", mbedtls_gcm_auth_decrypt(&g, 64, iv, 12, NULL, 0, tag, 16, buf, out) == 0
           && memcmp(out, in, 64) == 0);
    mbedtls_gcm_free(&g);
    printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}
