/* The slicegen PSA driver's entry points called directly, against Mbed TLS's built-in PSA AEAD
 * (mbedtls_psa_aead_encrypt/_decrypt: its own GCM, the same driver signature) and against the
 * expected ciphertext pyca/cryptography wrote into the case file; then through psa_aead_encrypt /
 * psa_aead_decrypt, whose dispatch must reach the driver (the hit counter of psa_driver_hits.c).
 * Case file lines (emu/checks/psa_driver.py writes them): "bits taglen key iv aad pt ct||tag" in
 * hex, "-" for empty, the last field "?" where pyca has no answer (IVs under 8 bytes).
 * Per case: encrypt and decrypt (driver, built-in, PSA API), in place, a flipped tag bit and a
 * flipped ciphertext bit (INVALID_SIGNATURE, plaintext zeroed), outputs one byte short
 * (BUFFER_TOO_SMALL, nothing written). Per key size: what the driver declines (NOT_SUPPORTED:
 * tag lengths PSA refuses, Camellia/ARIA keys, CCM, ChaCha20-Poly1305, a wildcard algorithm, a
 * 20-byte key, partly overlapping buffers) and refuses (INVALID_ARGUMENT: an empty nonce, a
 * ciphertext shorter than its tag), each with its output untouched.
 * Built with -DSG_DRIVER=NAME -DSG_DRIVER_H='"NAME_psa_driver.h"'; prints "N passed, N failed". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "psa/crypto.h"
#include "psa_crypto_aead.h"
#include SG_DRIVER_H

#define SG_CAT2(a, b) a##b
#define SG_CAT(a, b) SG_CAT2(a, b)
#define DRV_ENC SG_CAT(SG_DRIVER, _psa_aead_encrypt)
#define DRV_DEC SG_CAT(SG_DRIVER, _psa_aead_decrypt)
#define PAT 0xA5
#define MAXB 1024

extern unsigned long sg_psa_hits[2][2];
static int passed, failed;
static char where[128];

static void expect(const char *what, int cond)
{
    if (cond) {
        passed++;
    } else {
        failed++;
        printf("FAILED: %s: %s\n", where, what);
    }
}

static int all(const uint8_t *b, size_t n, uint8_t v)
{
    size_t i;
    for (i = 0; i < n; i++)
        if (b[i] != v) return 0;
    return 1;
}

static size_t unhex(const char *s, uint8_t *out)
{
    size_t n = 0;
    if (strcmp(s, "-") == 0) return 0;
    while (s[0] && s[1] && n < MAXB) {
        unsigned v;
        sscanf(s, "%2x", &v);
        out[n++] = (uint8_t) v;
        s += 2;
    }
    return n;
}

static psa_key_attributes_t attrs(psa_key_type_t type, size_t bits)
{
    psa_key_attributes_t a = psa_key_attributes_init();
    psa_set_key_type(&a, type);
    psa_set_key_bits(&a, bits);
    return a;
}

static psa_algorithm_t gcm(size_t taglen)
{
    return taglen == 16 ? PSA_ALG_GCM : PSA_ALG_AEAD_WITH_SHORTENED_TAG(PSA_ALG_GCM, taglen);
}

/* One vector: key, iv, aad, pt and the expected ct||tag (NULL: none from pyca). */
static void one_case(size_t bits, size_t t, const uint8_t *key, const uint8_t *iv, size_t ivlen,
                     const uint8_t *aad, size_t aadlen, const uint8_t *pt, size_t len, const uint8_t *want)
{
    static uint8_t a[MAXB + 16], b[MAXB + 16], c[MAXB + 16];
    psa_key_attributes_t at = attrs(PSA_KEY_TYPE_AES, bits);
    psa_algorithm_t alg = gcm(t);
    size_t n = 0, m = 0, kb = bits / 8;
    psa_status_t s, s2;
    mbedtls_svc_key_id_t id;
    unsigned long hits;

    /* encrypt: driver, built-in, pyca agree */
    memset(a, PAT, sizeof(a));
    memset(b, PAT, sizeof(b));
    s = DRV_ENC(&at, key, kb, alg, iv, ivlen, aad, aadlen, pt, len, a, len + t, &n);
    s2 = mbedtls_psa_aead_encrypt(&at, key, kb, alg, iv, ivlen, aad, aadlen, pt, len, b, len + t, &m);
    expect("driver encrypt succeeds", s == PSA_SUCCESS && n == len + t);
    expect("built-in encrypt succeeds", s2 == PSA_SUCCESS && m == len + t);
    expect("driver encrypt == built-in", memcmp(a, b, len + t) == 0 && a[len + t] == PAT);
    if (want != NULL) {
        expect("driver encrypt == pyca", memcmp(a, want, len + t) == 0);
    }
    /* decrypt */
    memset(c, PAT, sizeof(c));
    s = DRV_DEC(&at, key, kb, alg, iv, ivlen, aad, aadlen, a, len + t, c, len, &n);
    expect("driver decrypt gives the plaintext", s == PSA_SUCCESS && n == len && memcmp(c, pt, len) == 0 && c[len] == PAT);
    memset(c, PAT, sizeof(c));
    s2 = mbedtls_psa_aead_decrypt(&at, key, kb, alg, iv, ivlen, aad, aadlen, a, len + t, c, len, &m);
    expect("built-in decrypts the driver's output", s2 == PSA_SUCCESS && m == len && memcmp(c, pt, len) == 0);
    /* in place */
    memcpy(c, pt, len);
    s = DRV_ENC(&at, key, kb, alg, iv, ivlen, aad, aadlen, c, len, c, len + t, &n);
    expect("driver encrypt in place", s == PSA_SUCCESS && memcmp(c, b, len + t) == 0);
    s = DRV_DEC(&at, key, kb, alg, iv, ivlen, aad, aadlen, c, len + t, c, len + t, &n);
    expect("driver decrypt in place", s == PSA_SUCCESS && n == len && memcmp(c, pt, len) == 0);
    /* a flipped tag bit, a flipped ciphertext bit: INVALID_SIGNATURE, nothing released */
    memcpy(b, a, len + t);
    b[len + t - 1] ^= 0x80;
    memset(c, PAT, sizeof(c));
    s = DRV_DEC(&at, key, kb, alg, iv, ivlen, aad, aadlen, b, len + t, c, len, &n);
    expect("driver: wrong tag is INVALID_SIGNATURE, output zeroed", s == PSA_ERROR_INVALID_SIGNATURE && n == 0 && all(c, len, 0) && c[len] == PAT);
    s2 = mbedtls_psa_aead_decrypt(&at, key, kb, alg, iv, ivlen, aad, aadlen, b, len + t, c, len, &m);
    expect("built-in: wrong tag is INVALID_SIGNATURE too", s2 == PSA_ERROR_INVALID_SIGNATURE);
    if (len > 0) {
        memcpy(b, a, len + t);
        b[len / 2] ^= 0x01;
        memset(c, PAT, sizeof(c));
        s = DRV_DEC(&at, key, kb, alg, iv, ivlen, aad, aadlen, b, len + t, c, len, &n);
        expect("driver: changed ciphertext is INVALID_SIGNATURE, output zeroed", s == PSA_ERROR_INVALID_SIGNATURE && all(c, len, 0));
    }
    /* outputs one byte short: BUFFER_TOO_SMALL, nothing written */
    memset(b, PAT, sizeof(b));
    s = DRV_ENC(&at, key, kb, alg, iv, ivlen, aad, aadlen, pt, len, b, len + t - 1, &n);
    s2 = mbedtls_psa_aead_encrypt(&at, key, kb, alg, iv, ivlen, aad, aadlen, pt, len, c, len + t - 1, &m);
    expect("driver: short ciphertext buffer is BUFFER_TOO_SMALL, untouched", s == PSA_ERROR_BUFFER_TOO_SMALL && n == 0 && all(b, sizeof(b), PAT));
    expect("built-in: short ciphertext buffer is BUFFER_TOO_SMALL", s2 == PSA_ERROR_BUFFER_TOO_SMALL);
    if (len > 0) {
        s = DRV_DEC(&at, key, kb, alg, iv, ivlen, aad, aadlen, a, len + t, b, len - 1, &n);
        s2 = mbedtls_psa_aead_decrypt(&at, key, kb, alg, iv, ivlen, aad, aadlen, a, len + t, c, len - 1, &m);
        expect("driver: short plaintext buffer is BUFFER_TOO_SMALL, untouched", s == PSA_ERROR_BUFFER_TOO_SMALL && all(b, sizeof(b), PAT));
        expect("built-in: short plaintext buffer is BUFFER_TOO_SMALL", s2 == PSA_ERROR_BUFFER_TOO_SMALL);
    }
    /* the PSA API: the wrappers dispatch to the driver (its served count goes up by one each) */
    psa_set_key_usage_flags(&at, PSA_KEY_USAGE_ENCRYPT | PSA_KEY_USAGE_DECRYPT);
    psa_set_key_algorithm(&at, alg);
    expect("psa_import_key", psa_import_key(&at, key, kb, &id) == PSA_SUCCESS);
    hits = sg_psa_hits[0][0];
    s = psa_aead_encrypt(id, alg, iv, ivlen, aad, aadlen, pt, len, b, len + t, &n);
    expect("psa_aead_encrypt == driver, through the driver", s == PSA_SUCCESS && memcmp(a, b, len + t) == 0 && sg_psa_hits[0][0] == hits + 1);
    hits = sg_psa_hits[1][0];
    s = psa_aead_decrypt(id, alg, iv, ivlen, aad, aadlen, a, len + t, c, len, &n);
    expect("psa_aead_decrypt, through the driver", s == PSA_SUCCESS && memcmp(c, pt, len) == 0 && sg_psa_hits[1][0] == hits + 1);
    psa_destroy_key(id);
}

/* What the driver declines (the core falls back) or refuses, for one key size. */
static void refusals(size_t bits)
{
    static const size_t bad_tags[] = {1, 2, 3, 5, 6, 7, 9, 10, 11};
    static const psa_key_type_t others[] = {PSA_KEY_TYPE_CAMELLIA, PSA_KEY_TYPE_ARIA};
    uint8_t key[32], iv[12], pt[32], out[64];
    psa_key_attributes_t at = attrs(PSA_KEY_TYPE_AES, bits);
    size_t i, n = 7, kb = bits / 8;
    psa_status_t s;
    for (i = 0; i < sizeof(key); i++) key[i] = (uint8_t) (i * 7 + bits);
    memset(iv, 3, sizeof(iv));
    memset(pt, 9, sizeof(pt));
#define DECLINED(what, call) do { memset(out, PAT, sizeof(out)); n = 7; s = (call); \
        expect(what, s == PSA_ERROR_NOT_SUPPORTED && n == 0 && all(out, sizeof(out), PAT)); } while (0)
    for (i = 0; i < sizeof(bad_tags) / sizeof(bad_tags[0]); i++) {
        psa_algorithm_t alg = PSA_ALG_AEAD_WITH_SHORTENED_TAG(PSA_ALG_GCM, bad_tags[i]);
        DECLINED("tag length PSA refuses: encrypt declined", DRV_ENC(&at, key, kb, alg, iv, 12, NULL, 0, pt, 32, out, 64, &n));
        DECLINED("tag length PSA refuses: decrypt declined", DRV_DEC(&at, key, kb, alg, iv, 12, NULL, 0, pt, 32, out, 64, &n));
    }
    for (i = 0; i < 2; i++) {
        psa_key_attributes_t o = attrs(others[i], bits);
        DECLINED("Camellia/ARIA key declined (encrypt)", DRV_ENC(&o, key, kb, PSA_ALG_GCM, iv, 12, NULL, 0, pt, 32, out, 64, &n));
        DECLINED("Camellia/ARIA key declined (decrypt)", DRV_DEC(&o, key, kb, PSA_ALG_GCM, iv, 12, NULL, 0, pt, 32, out, 64, &n));
    }
    DECLINED("CCM declined", DRV_ENC(&at, key, kb, PSA_ALG_CCM, iv, 12, NULL, 0, pt, 16, out, 64, &n));
    DECLINED("ChaCha20-Poly1305 declined", DRV_ENC(&at, key, kb, PSA_ALG_CHACHA20_POLY1305, iv, 12, NULL, 0, pt, 16, out, 64, &n));
    DECLINED("wildcard GCM algorithm declined",
             DRV_ENC(&at, key, kb, PSA_ALG_AEAD_WITH_AT_LEAST_THIS_LENGTH_TAG(PSA_ALG_GCM, 8), iv, 12, NULL, 0, pt, 16, out, 64, &n));
    DECLINED("20-byte key declined", DRV_ENC(&at, key, 20, PSA_ALG_GCM, iv, 12, NULL, 0, pt, 16, out, 64, &n));
    memset(out, PAT, sizeof(out));
    memcpy(out, pt, 32);
    s = DRV_ENC(&at, key, kb, PSA_ALG_GCM, iv, 12, NULL, 0, out, 32, out + 5, 48, &n);
    expect("partly overlapping buffers declined, untouched", s == PSA_ERROR_NOT_SUPPORTED && memcmp(out, pt, 32) == 0 && all(out + 32, 32, PAT));
    memset(out, PAT, sizeof(out));
    s = DRV_ENC(&at, key, kb, PSA_ALG_GCM, iv, 0, NULL, 0, pt, 16, out, 64, &n);
    expect("empty nonce: INVALID_ARGUMENT, untouched", s == PSA_ERROR_INVALID_ARGUMENT && all(out, sizeof(out), PAT));
    expect("built-in: empty nonce INVALID_ARGUMENT too",
           mbedtls_psa_aead_encrypt(&at, key, kb, PSA_ALG_GCM, iv, 0, NULL, 0, pt, 16, out, 64, &n) == PSA_ERROR_INVALID_ARGUMENT);
    memset(out, PAT, sizeof(out));
    s = DRV_DEC(&at, key, kb, PSA_ALG_GCM, iv, 12, NULL, 0, pt, 15, out, 64, &n);
    expect("ciphertext shorter than the tag: INVALID_ARGUMENT, untouched", s == PSA_ERROR_INVALID_ARGUMENT && all(out, sizeof(out), PAT));
    expect("built-in: ciphertext shorter than the tag INVALID_ARGUMENT too",
           mbedtls_psa_aead_decrypt(&at, key, kb, PSA_ALG_GCM, iv, 12, NULL, 0, pt, 15, out, 64, &n) == PSA_ERROR_INVALID_ARGUMENT);
#undef DECLINED
}

int main(int argc, char **argv)
{
    static char line[16 * MAXB];
    static uint8_t key[MAXB], iv[MAXB], aad[MAXB], pt[MAXB], want[MAXB + 16];
    char fk[MAXB], fi[4 * MAXB], fa[4 * MAXB], fp[4 * MAXB], fw[4 * MAXB];
    size_t bits, t, cases = 0;
    unsigned long refused = 0;
    FILE *f = argc > 1 ? fopen(argv[1], "r") : NULL;
    if (f == NULL || psa_crypto_init() != PSA_SUCCESS) {
        printf("usage: psa_driver_check CASEFILE (and psa_crypto_init must succeed)\n");
        return 2;
    }
    while (fgets(line, sizeof(line), f)) {
        size_t ivlen, aadlen, len;
        if (sscanf(line, "%zu %zu %1023s %4095s %4095s %4095s %4095s", &bits, &t, fk, fi, fa, fp, fw) != 7) continue;
        unhex(fk, key);
        ivlen = unhex(fi, iv);
        aadlen = unhex(fa, aad);
        len = unhex(fp, pt);
        unhex(fw, want);
        snprintf(where, sizeof(where), "AES-%zu tag %zu iv %zu aad %zu len %zu", bits, t, ivlen, aadlen, len);
        one_case(bits, t, key, iv, ivlen, aad, aadlen, pt, len, strcmp(fw, "?") ? want : NULL);
        cases++;
        if (!(refused & (1ul << (bits / 64)))) {
            refused |= 1ul << (bits / 64);
            snprintf(where, sizeof(where), "AES-%zu refusals", bits);
            refusals(bits);
        }
    }
    fclose(f);
    mbedtls_psa_crypto_free();
    printf("psa driver, %zu cases: %d passed, %d failed\n", cases, passed, failed);
    return failed != 0 || cases == 0;
}
