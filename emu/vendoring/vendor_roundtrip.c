/* A host program that uses a portable drop as an application would, for the vendoring checks
 * (emu/vendoring/matrix.py), built with AddressSanitizer and UndefinedBehaviorSanitizer: known answers
 * (two GCM vectors, a 96-bit and a 60-byte IV, and E(K, 0)), decrypt back, in place and from
 * unaligned buffers, streaming in odd pieces, a wrong tag (-1, output zeroed), bad arguments
 * (-2). Exit status 0 and "ok" on stdout when all hold; otherwise the first failure on stderr.
 * The drop's implementation is another translation unit.
 *
 * Built with -DSG_PREFIX=<drop prefix> -DSG_HEADER="<path to drop header>" -DSG_KAT="<kat.h>",
 * where kat.h (written by emu/vendoring/matrix.py from pyca/cryptography) defines SG_KEYBYTES and the
 * kat_* arrays.
 */
#include <stdio.h>
#include <string.h>
#include SG_HEADER
#include SG_KAT

#define SG_CAT_(a, b) a##_##b
#define SG_CAT(a, b) SG_CAT_(a, b)
#define F(x) SG_CAT(SG_PREFIX, x)

#define CHECK(cond) do { if (!(cond)) { fprintf(stderr, "failed: %s (line %d)\n", #cond, __LINE__); return 1; } } while (0)

static int all_zero(const uint8_t *p, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        if (p[i]) return 0;
    return 1;
}

int main(void)
{
    static F(ctx) ctx;
    static F(stream) st;
    uint8_t raw[sizeof kat_pt + 8], *buf = raw + 1, tag[16], out[16];
    size_t len = sizeof kat_pt, done, n;

    CHECK(F(init)(&ctx, kat_key, sizeof kat_key - 1) == -2);
    CHECK(F(init)(NULL, kat_key, sizeof kat_key) == -2);
    CHECK(F(init)(&ctx, kat_key, sizeof kat_key) == 0);

    F(ecb_encrypt)(&ctx, out, kat_zero, 1);
    CHECK(memcmp(out, kat_e0, 16) == 0);

    /* one-shot encrypt, unaligned output; decrypt back in place */
    CHECK(F(encrypt)(&ctx, kat_iv, sizeof kat_iv, kat_aad, sizeof kat_aad, kat_pt, len, buf, tag, 16) == 0);
    CHECK(memcmp(buf, kat_ct, len) == 0 && memcmp(tag, kat_tag, 16) == 0);
    CHECK(F(decrypt)(&ctx, kat_iv, sizeof kat_iv, kat_aad, sizeof kat_aad, buf, len, tag, 16, buf) == 0);
    CHECK(memcmp(buf, kat_pt, len) == 0);
    CHECK(F(encrypt)(&ctx, kat_iv2, sizeof kat_iv2, kat_aad, sizeof kat_aad, kat_pt, len, buf, tag, 16) == 0);
    CHECK(memcmp(buf, kat_ct2, len) == 0 && memcmp(tag, kat_tag2, 16) == 0);

    /* a wrong tag: -1 and nothing released */
    memcpy(tag, kat_tag, 16);
    tag[15] ^= 1u;
    CHECK(F(decrypt)(&ctx, kat_iv, sizeof kat_iv, kat_aad, sizeof kat_aad, kat_ct, len, tag, 16, buf) == -1);
    CHECK(all_zero(buf, len));

    /* bad arguments */
    CHECK(F(encrypt)(&ctx, kat_iv, 0, kat_aad, sizeof kat_aad, kat_pt, len, buf, tag, 16) == -2);
    CHECK(F(encrypt)(&ctx, kat_iv, sizeof kat_iv, kat_aad, sizeof kat_aad, kat_pt, len, buf, tag, 5) == -2);
    CHECK(F(encrypt)(&ctx, kat_iv, sizeof kat_iv, NULL, 3, kat_pt, len, buf, tag, 16) == -2);
    CHECK(F(decrypt)(&ctx, kat_iv, sizeof kat_iv, kat_aad, sizeof kat_aad, NULL, len, kat_tag, 16, buf) == -2);
    CHECK(F(decrypt)(&ctx, kat_iv, sizeof kat_iv, kat_aad, sizeof kat_aad, kat_ct, len, NULL, 16, buf) == -2);

    /* streaming, odd pieces: the same ciphertext and a 12-byte tag */
    CHECK(F(start)(&st, &ctx, kat_iv, sizeof kat_iv, 0) == 0);
    CHECK(F(aad)(&st, kat_aad, 3) == 0 && F(aad)(&st, kat_aad + 3, sizeof kat_aad - 3) == 0);
    for (done = 0, n = 1; done < len; done += n, n = n * 3 + 1) {
        if (n > len - done) n = len - done;
        CHECK(F(update)(&st, kat_pt + done, n, buf + done) == 0);
    }
    CHECK(F(finish)(&st, tag, 12) == 0);
    CHECK(memcmp(buf, kat_ct, len) == 0 && memcmp(tag, kat_tag, 12) == 0);
    CHECK(F(start)(&st, &ctx, kat_iv, sizeof kat_iv, 1) == 0);
    CHECK(F(aad)(&st, kat_aad, sizeof kat_aad) == 0);
    CHECK(F(update)(&st, buf, len, buf) == 0);
    CHECK(F(finish_verify)(&st, kat_tag, 12) == 0);
    CHECK(memcmp(buf, kat_pt, len) == 0);

    /* GHASH of nothing leaves y alone */
    memset(out, 0x5a, 16);
    F(ghash)(&ctx, out, kat_zero, 0);
    CHECK(out[0] == 0x5a && out[15] == 0x5a);

    F(wipe)(&ctx);
    CHECK(all_zero((const uint8_t *)&ctx, sizeof ctx));
    printf("ok\n");
    return 0;
}
