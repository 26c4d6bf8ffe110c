/* A host program that uses a portable block-cipher drop (ecb, ctr) as an application would, for
 * the vendoring checks (emu/vendoring/matrix.py), built with AddressSanitizer and
 * UndefinedBehaviorSanitizer: a known answer of the cipher, ECB of several blocks in place and
 * from unaligned buffers, and in ctr mode a known keystream (the counter wrapping at 2^32), the
 * stream in odd pieces, decryption back, bad arguments (-2). Exit status 0 and "ok" on stdout
 * when all hold; otherwise the first failure on stderr.
 *
 * Built with -DSG_PREFIX=<prefix> -DSG_HEADER="<header>" -DSG_KAT="<kat.h>" (and -DSG_CTR for a
 * ctr drop); kat.h (written by emu/vendoring/matrix.py from the cipher's reference model and known
 * answers) defines SG_BLOCK and the kat_* arrays.
 */
#include <stdio.h>
#include <string.h>
#include SG_HEADER
#include SG_KAT

#define SG_CAT_(a, b) a##_##b
#define SG_CAT(a, b) SG_CAT_(a, b)
#define F(x) SG_CAT(SG_PREFIX, x)

#define CHECK(cond) do { if (!(cond)) { fprintf(stderr, "failed: %s (line %d)\n", #cond, __LINE__); return 1; } } while (0)

int main(void)
{
    static F(ctx) ctx;
    uint8_t raw[sizeof kat_msg + 8], *buf = raw + 1;
    size_t i;

    CHECK(F(init)(&ctx, kat_key, sizeof kat_key - 1) == -2);
    CHECK(F(init)(NULL, kat_key, sizeof kat_key) == -2);
    CHECK(F(init)(&ctx, kat_kat_key, sizeof kat_kat_key) == 0);
    F(ecb_encrypt)(&ctx, buf, kat_kat_pt, 1);
    CHECK(memcmp(buf, kat_kat_ct, SG_BLOCK) == 0);

    CHECK(F(init)(&ctx, kat_key, sizeof kat_key) == 0);
    memcpy(buf, kat_msg, sizeof kat_ecb);                 /* ECB in place, unaligned */
    F(ecb_encrypt)(&ctx, buf, buf, sizeof kat_ecb / SG_BLOCK);
    CHECK(memcmp(buf, kat_ecb, sizeof kat_ecb) == 0);
#ifdef SG_CTR
    {
        static F(ctr_stream) st;
        size_t done, n;
        CHECK(F(ctr)(&ctx, kat_iv, sizeof kat_iv, kat_msg, sizeof kat_msg, buf) == 0);
        CHECK(memcmp(buf, kat_ctr, sizeof kat_ctr) == 0);
        CHECK(F(ctr)(&ctx, kat_iv, sizeof kat_iv, buf, sizeof kat_msg, buf) == 0);   /* back, in place */
        CHECK(memcmp(buf, kat_msg, sizeof kat_msg) == 0);
        CHECK(F(ctr_start)(&st, &ctx, kat_iv, sizeof kat_iv) == 0);
        for (done = 0, n = 1; done < sizeof kat_msg; done += n, n = n * 3 + 1) {
            if (n > sizeof kat_msg - done) n = sizeof kat_msg - done;
            CHECK(F(ctr_update)(&st, kat_msg + done, n, buf + done) == 0);
        }
        F(ctr_wipe)(&st);
        CHECK(memcmp(buf, kat_ctr, sizeof kat_ctr) == 0);
        CHECK(F(ctr)(&ctx, kat_iv, sizeof kat_iv - 1, kat_msg, 5, buf) == -2);
        CHECK(F(ctr)(&ctx, kat_iv, sizeof kat_iv, NULL, 5, buf) == -2);
    }
#endif
    F(wipe)(&ctx);
    for (i = 0; i < sizeof ctx; i++) CHECK(((const uint8_t *)&ctx)[i] == 0);
    printf("ok\n");
    return 0;
}
