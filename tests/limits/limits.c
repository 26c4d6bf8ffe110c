/* Length limits (SPEC §5, issue 33): every entry point of a drop refuses an IV or AAD of 2^61
 * bytes or more, a message over 2^36 - 32 bytes (a stream: totals that would cross them) and the
 * other bad lengths with -2, BEFORE it reads or writes a buffer. Every buffer handed over is a page
 * mapped PROT_NONE, so one access of it kills the program (SIGSEGV), on the host (under ASan and
 * UBSan) and under qemu-aarch64 alike; only ctx and the stream are real memory.
 *
 * Built with -DSG_PREFIX=<prefix> -DSG_UPPER=<PREFIX> -DSG_HEADER="<drop.h>" -D<PREFIX>_IMPLEMENTATION and one of
 * -DSG_GCM (-DSG_FACE for the *_cached calls), -DSG_CTR, -DSG_ECB.
 * No argument: every check; prints "ok <n>" and exits 0, or names each failing call and exits 1.
 * "probe": one call with a valid length on the guard page, which must die (the guard works). */
#define _DEFAULT_SOURCE                 /* MAP_ANONYMOUS under -std=c99 */
#include <stdint.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include SG_HEADER

#define SG_CAT_(a, b) a##_##b
#define SG_CAT(a, b) SG_CAT_(a, b)
#define F(x) SG_CAT(SG_PREFIX, x)
#define U(x) SG_CAT(SG_UPPER, x)          /* -DSG_UPPER=<PREFIX>: the drop's macros */

static int failures, checks;
static uint8_t *guard;                  /* a PROT_NONE page: any access is a fault */

static void expect(const char *what, int rc, int want)
{
    checks++;
    if (rc != want) {
        failures++;
        fprintf(stderr, "FAIL %s: returned %d, want %d\n", what, rc, want);
    }
}

#if SIZE_MAX > 0xFFFFFFFFu && defined SG_GCM
#define SG_WIDE 1                       /* size_t reaches 2^61: the IV and AAD limits are reachable */
static const size_t huge[] = {(size_t)1 << 61, ((size_t)1 << 61) + 12u, ((size_t)1 << 62), SIZE_MAX};
static const size_t toolong[] = {(size_t)0xFFFFFFFE1u, (size_t)1 << 40, SIZE_MAX};   /* 2^36 - 31 up */
#endif

static uint8_t key[32], iv[16];

#ifdef SG_GCM
#define MAXLEN ((uint64_t)0xFFFFFFFE0u)  /* 2^36 - 32 */

/* The one-shot calls: a bad length with every buffer on the guard page. */
static void oneshot(const char *name, const F(ctx) *ctx, size_t ivlen, size_t aadlen, size_t len, size_t taglen)
{
    char what[160];
    snprintf(what, sizeof what, "%s_encrypt ivlen=%zu aadlen=%zu len=%zu taglen=%zu", name, ivlen, aadlen, len, taglen);
    expect(what, F(encrypt)(ctx, guard, ivlen, guard, aadlen, guard, len, guard, guard, taglen), -2);
    what[strlen(name) + 1] = 'd';
    memcpy(what + strlen(name), "_decrypt", 8);
    expect(what, F(decrypt)(ctx, guard, ivlen, guard, aadlen, guard, len, guard, taglen, guard), -2);
#ifdef SG_FACE
    {
        static F(face_cache) cache;
        snprintf(what, sizeof what, "%s_encrypt_cached ivlen=%zu aadlen=%zu len=%zu", name, ivlen, aadlen, len);
        expect(what, F(encrypt_cached)(ctx, &cache, guard, ivlen, guard, aadlen, guard, len, guard, guard, taglen), -2);
        snprintf(what, sizeof what, "%s_decrypt_cached ivlen=%zu aadlen=%zu len=%zu", name, ivlen, aadlen, len);
        expect(what, F(decrypt_cached)(ctx, &cache, guard, ivlen, guard, aadlen, guard, len, guard, taglen, guard), -2);
    }
#endif
}

static void gcm_checks(void)
{
    static F(ctx) ctx;
    static F(stream) s;
    static const size_t ivlens[] = {12, 16};   /* the 96-bit fast path and the GHASH path */
    size_t i, j;
    uint8_t out[8];
    expect("init keylen=SIZE_MAX", F(init)(&ctx, guard, (size_t)-1), -2);
    expect("init keylen=0", F(init)(&ctx, guard, 0), -2);
    expect("init", F(init)(&ctx, key, U(KEYBYTES)), 0);
    for (j = 0; j < 2; j++) {
        oneshot("taglen", &ctx, ivlens[j], 0, 0, 17);
        oneshot("taglen", &ctx, ivlens[j], 0, 0, (size_t)-1);
        oneshot("taglen", &ctx, ivlens[j], 0, 0, 0);
    }
    oneshot("ivlen", &ctx, 0, 0, 0, 16);
#ifdef SG_WIDE
    for (i = 0; i < sizeof huge / sizeof huge[0]; i++) {
        oneshot("ivlen", &ctx, huge[i], 0, 0, 16);
        for (j = 0; j < 2; j++) oneshot("aadlen", &ctx, ivlens[j], huge[i], 0, 16);
    }
    for (i = 0; i < sizeof toolong / sizeof toolong[0]; i++)
        for (j = 0; j < 2; j++) oneshot("len", &ctx, ivlens[j], 0, toolong[i], 16);
    for (i = 0; i < sizeof huge / sizeof huge[0]; i++) {
        expect("start ivlen huge", F(start)(&s, &ctx, guard, huge[i], 0), -2);
#ifdef SG_FACE
        {
            static F(face_cache) cache;
            expect("start_cached ivlen huge", F(start_cached)(&s, &ctx, &cache, guard, huge[i], 0), -2);
        }
#endif
        expect("start", F(start)(&s, &ctx, iv, 12, 0), 0);
        expect("aad len huge", F(aad)(&s, guard, huge[i]), -2);
    }
    for (i = 0; i < sizeof toolong / sizeof toolong[0]; i++) {
        expect("start", F(start)(&s, &ctx, iv, 16, 1), 0);
        expect("update len too long", F(update)(&s, guard, toolong[i], guard), -2);
    }
#endif
    /* stream totals: the counts a long message would have reached, then one byte more */
    expect("start", F(start)(&s, &ctx, iv, 12, 0), 0);
    s.aadlen = ((uint64_t)1 << 61) - 3u;
    expect("aad total 2^61 - 1", F(aad)(&s, iv, 2), 0);
    expect("aad total 2^61", F(aad)(&s, guard, 1), -2);
    expect("update total at the limit", F(update)(&s, iv, 0, out), 0);
    s.len = MAXLEN - 5u;
    expect("update total 2^36 - 32", F(update)(&s, iv, 5, out), 0);
    expect("update total 2^36 - 31", F(update)(&s, guard, 1, guard), -2);
    expect("finish taglen 0", F(finish)(&s, guard, 0), -2);
    expect("finish taglen SIZE_MAX", F(finish)(&s, guard, (size_t)-1), -2);
    expect("start", F(start)(&s, &ctx, iv, 12, 1), 0);
    expect("finish_verify taglen 17", F(finish_verify)(&s, guard, 17), -2);
    expect("finish_verify taglen SIZE_MAX", F(finish_verify)(&s, guard, (size_t)-1), -2);
    expect("update NULL", F(update)(&s, NULL, 1, out), -2);
    expect("aad NULL", F(aad)(&s, NULL, 1), -2);
    (void)i;
}

static void probe(void)
{
    static F(ctx) ctx;
    F(init)(&ctx, key, U(KEYBYTES));
    F(encrypt)(&ctx, guard, 16, guard, 0, guard, 0, guard, guard, 16);   /* reads the IV: must fault */
}
#else
static void block_checks(void)
{
    static F(ctx) ctx;
    expect("init keylen=SIZE_MAX", F(init)(&ctx, guard, (size_t)-1), -2);
    expect("init keylen=KEYBYTES+1", F(init)(&ctx, guard, U(KEYBYTES) + 1), -2);
    expect("init", F(init)(&ctx, key, U(KEYBYTES)), 0);
#ifdef SG_CTR
    {
        static F(ctr_stream) s;
        static const size_t bad[] = {0, U(BLOCKBYTES) - 1, U(BLOCKBYTES) + 1, (size_t)-1};
        size_t i;
        for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
            expect("ctr ivlen", F(ctr)(&ctx, guard, bad[i], guard, 16, guard), -2);
            expect("ctr_start ivlen", F(ctr_start)(&s, &ctx, guard, bad[i]), -2);
        }
        expect("ctr NULL in", F(ctr)(&ctx, key, U(BLOCKBYTES), NULL, 1, guard), -2);
        expect("ctr_start", F(ctr_start)(&s, &ctx, key, U(BLOCKBYTES)), 0);
        expect("ctr_update NULL out", F(ctr_update)(&s, guard, 1, NULL), -2);
    }
#endif
}

static void probe(void)
{
    static F(ctx) ctx;
    F(init)(&ctx, key, U(KEYBYTES));
    F(ecb_encrypt)(&ctx, guard, guard, 1);                       /* must fault */
}
#endif

int main(int argc, char **argv)
{
    guard = mmap(NULL, 1u << 16, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (guard == MAP_FAILED) { perror("mmap"); return 2; }
    guard += 1u << 15;                  /* mid-mapping: an access before or after it faults too */
    memset(iv, 0x5a, sizeof iv);
    if (argc > 1 && strcmp(argv[1], "probe") == 0) {
        probe();
        puts("probe returned");         /* the guard let an access through */
        return 3;
    }
#ifdef SG_GCM
    gcm_checks();
#else
    block_checks();
#endif
    if (failures) return 1;
    printf("ok %d\n", checks);
    return 0;
}
