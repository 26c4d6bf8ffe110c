/* An mbedtls_gcm_context copied byte by byte in the middle of a message goes on where it was
 * (what Mbed TLS asks of a context; the adapter re-attaches the drop's stream on every call):
 * for each AES key size, encrypt and decrypt streams are copied after a first update, the
 * original is overwritten, the copy finishes, and output and tag must equal the one-shot call's.
 * Built and run by emu/checks/mbedtls_suites.py beside Mbed TLS's suites; prints a
 * "N passed, N failed" line and exits non-zero on a failure. */
#include <stdio.h>
#include <string.h>
#include "mbedtls/gcm.h"

#define LEN 100
#define CUT 37

static int run(unsigned int bits)
{
    mbedtls_gcm_context a, b;
    unsigned char key[32], iv[12], aad[20], pt[LEN], ct[LEN], out[LEN], tag[16], tag2[16];
    size_t i, olen;
    int bad = 0;
    for (i = 0; i < sizeof key; i++) key[i] = (unsigned char)(3 * i + bits);
    for (i = 0; i < sizeof iv; i++) iv[i] = (unsigned char)(5 * i + 1);
    for (i = 0; i < sizeof aad; i++) aad[i] = (unsigned char)(7 * i + 2);
    for (i = 0; i < LEN; i++) pt[i] = (unsigned char)(11 * i + 3);
    mbedtls_gcm_init(&a);
    bad |= mbedtls_gcm_setkey(&a, MBEDTLS_CIPHER_ID_AES, key, bits) != 0;
    bad |= mbedtls_gcm_crypt_and_tag(&a, MBEDTLS_GCM_ENCRYPT, LEN, iv, sizeof iv, aad, sizeof aad, pt, ct,
                                     16, tag) != 0;
    for (i = 0; i < 2; i++) {         /* 0: encrypt pt, 1: decrypt ct */
        int mode = i ? MBEDTLS_GCM_DECRYPT : MBEDTLS_GCM_ENCRYPT;
        const unsigned char *in = i ? ct : pt, *want = i ? pt : ct;
        bad |= mbedtls_gcm_starts(&a, mode, iv, sizeof iv) != 0;
        bad |= mbedtls_gcm_update_ad(&a, aad, sizeof aad) != 0;
        bad |= mbedtls_gcm_update(&a, in, CUT, out, LEN, &olen) != 0;
        memcpy(&b, &a, sizeof a);
        memset(&a, 0xA5, sizeof a);   /* the original is gone: the copy must not reach into it */
        bad |= mbedtls_gcm_update(&b, in + CUT, LEN - CUT, out + CUT, LEN - CUT, &olen) != 0;
        bad |= mbedtls_gcm_finish(&b, NULL, 0, &olen, tag2, 16) != 0;
        bad |= memcmp(out, want, LEN) != 0 || memcmp(tag2, tag, 16) != 0;
        memcpy(&a, &b, sizeof b);      /* the key lives on in the copy: the next round uses it */
    }
    mbedtls_gcm_free(&a);
    return bad;
}

int main(void)
{
    static const unsigned int bits[] = {SG_KEYBITS};   /* the adapter's key sizes, from the build */
    int passed = 0, failed = 0;
    size_t k;
    for (k = 0; k < sizeof bits / sizeof bits[0]; k++) {
        if (run(bits[k])) {
            printf("FAILED: AES-%u byte-copied context\n", bits[k]);
            failed++;
        } else {
            passed++;
        }
    }
    printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}
