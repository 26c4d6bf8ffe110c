/* Every way a caller can drive a FACE r2 drop's counter (tests/test_face_parity.py): one-shot and
 * cached one-shot calls, streams and cached streams, encrypting and decrypting, messages of every
 * length to 80 bytes and around each place FACE changes course (a group's end at 1 KiB, the carry
 * pair at 4048 bytes, the lean path's end at 8144), split into a first piece of 0..65 bytes and
 * then pieces of 1..1000 bytes; with a 96-bit IV and with a 16-byte one (FACE off, a counter of
 * any parity). The test inserts sg_parity(s->ctr) before the fills of face_next and
 * face_next_cached (the table groups made for the pair's counter); this program counts the
 * parities seen there, checks every output against the drop's one-shot encrypt, and prints
 * "odd <n> even <m>". Built with the drop's defines (tests/hostbuild.Header.defines). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned long sg_seen[2];
static void sg_parity(uint32_t ctr) { sg_seen[ctr & 1u]++; }

#include SG_HEADER

#define CAT_(a, b) a##_##b
#define CAT(a, b) CAT_(a, b)
#define F(x) CAT(SG_PREFIX, x)

#define MAXLEN 8200u
static F(ctx) ctx;
static F(stream) st;
static F(face_cache) cache;
static uint8_t msg[MAXLEN], ct[MAXLEN], out[MAXLEN], tag[16], tag2[16], aad[40];

static void fail(const char *what, size_t len, size_t first, size_t piece)
{
    printf("FAIL %s len %zu first %zu piece %zu\n", what, len, first, piece);
    exit(1);
}

/* a stream over msg (or ct when decrypting) in pieces: `first` bytes, then `piece` at a time */
static void stream_run(int cached, int decrypt, const uint8_t *iv, size_t ivlen, size_t len, size_t first, size_t piece)
{
    size_t done = 0, n;
    int rc = cached ? F(start_cached)(&st, &ctx, &cache, iv, ivlen, decrypt) : F(start)(&st, &ctx, iv, ivlen, decrypt);
    if (rc != 0 || F(aad)(&st, aad, sizeof aad) != 0) fail("start/aad", len, first, piece);
    while (done < len) {
        n = done == 0 && first ? first : piece;
        if (n > len - done) n = len - done;
        if (F(update)(&st, (decrypt ? ct : msg) + done, n, out + done) != 0) fail("update", len, first, piece);
        done += n;
    }
    rc = decrypt ? F(finish_verify)(&st, tag, 16) : F(finish)(&st, tag2, 16);
    if (rc != 0 || (!decrypt && memcmp(tag2, tag, 16) != 0)) fail("finish", len, first, piece);
    if (len && memcmp(out, decrypt ? msg : ct, len) != 0) fail("output", len, first, piece);
}

int main(void)
{
    static const size_t firsts[] = {0, 1, 2, 3, 4, 5, 7, 8, 9, 12, 15, 16, 17, 20, 24, 28, 31, 32, 33, 47, 48, 63, 64, 65};
    static const size_t pieces[] = {1, 3, 13, 16, 17, 31, 32, 33, 48, 64, 100, 1000};
    static const size_t far[] = {1000, 1023, 1024, 1025, 1056, 2048, 4015, 4016, 4017, 4047, 4048, 4049, 4080,
                                 4081, 8143, 8144, 8145, 8200};
    uint8_t key[16], iv[16];
    size_t i, f, p, len, ivlen;
    int cached, dec;
    for (i = 0; i < sizeof key; i++) key[i] = (uint8_t)(7u * i + 1u);
    for (i = 0; i < sizeof iv; i++) iv[i] = (uint8_t)(13u * i + 5u);
    for (i = 0; i < MAXLEN; i++) msg[i] = (uint8_t)(i * 31u + (i >> 8));
    for (i = 0; i < sizeof aad; i++) aad[i] = (uint8_t)i;
    if (F(init)(&ctx, key, 16) != 0) fail("init", 0, 0, 0);
    F(face_cache_init)(&cache);
    for (ivlen = 12; ivlen <= 16; ivlen += 4)
    for (i = 0; i < 81u + sizeof far / sizeof far[0]; i++) {
        len = i < 81u ? i : far[i - 81u];
        if (F(encrypt)(&ctx, iv, ivlen, aad, sizeof aad, msg, len, ct, tag, 16) != 0) fail("encrypt", len, 0, 0);
        if (F(encrypt_cached)(&ctx, &cache, iv, ivlen, aad, sizeof aad, msg, len, out, tag2, 16) != 0
            || (len && memcmp(out, ct, len) != 0) || memcmp(tag2, tag, 16) != 0)
            fail("encrypt_cached", len, 0, 0);
        if (F(decrypt)(&ctx, iv, ivlen, aad, sizeof aad, ct, len, tag, 16, out) != 0 || (len && memcmp(out, msg, len) != 0))
            fail("decrypt", len, 0, 0);
        if (F(decrypt_cached)(&ctx, &cache, iv, ivlen, aad, sizeof aad, ct, len, tag, 16, out) != 0
            || (len && memcmp(out, msg, len) != 0))
            fail("decrypt_cached", len, 0, 0);
        for (f = 0; f < sizeof firsts / sizeof firsts[0]; f++)
            for (p = 0; p < sizeof pieces / sizeof pieces[0]; p++) {
                if ((len > 81u || ivlen != 12) && (p % 3u || f % 4u)) continue;   /* a quarter of the splits */
                for (cached = 0; cached < 2; cached++)
                    for (dec = 0; dec < 2; dec++) stream_run(cached, dec, iv, ivlen, len, firsts[f], pieces[p]);
            }
    }
    printf("odd %lu even %lu\n", sg_seen[1], sg_seen[0]);
    return 0;
}
