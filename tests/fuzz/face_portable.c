/* libFuzzer target: FACE r2's caller-owned cache across messages (the portable drop
 * aes128gcm-portable-face-r2) against OpenSSL. One input is a sequence of up to 16 steps on two
 * ctx and one cache: encrypt_cached / decrypt_cached (tampered tags too), a start_cached stream
 * (encrypting or decrypting) with a cached call or a wipe between its pieces, uncached one-shot calls and streams, a cache
 * wipe, a ctx given another key, a switch of ctx. IVs go on consecutively (bytes 4..11 a counter),
 * or one byte changes, or another length; message lengths cluster at the lean path's limits
 * (the carry pair at 4048 bytes, the stream beyond 8144). A model of the cache says when it is
 * rebuilt and when a call must be refused with ECACHE (-3): the cache was built under this ctx
 * with another key, or a cached stream's cache was rebuilt or wiped under it.
 * In the live mode (tests/fuzz/live.py) each sequence also runs on emulated Cortex-M drops.
 * Built by tests/fuzz/targets.py with -DSG_HFACE (the header's path). */
#include <stdint.h>
#include <stddef.h>
#define AES128GCM_PORTABLE_FACE_R2_IMPLEMENTATION
#include SG_HFACE
#include "heap.h"
#include "input.h"
#include "ossl_gcm.h"
#include "live.h"

#define P(x) aes128gcm_portable_face_r2_##x
#define ECACHE (-3)

#define CHECK(cond, what)                                                                  \
    do {                                                                                   \
        if (!(cond)) {                                                                     \
            fprintf(stderr, "DIVERGENCE: %s (%s) step %d ctx %d ivlen %zu aadlen %zu len %zu\n", \
                    what, #cond, st.step, st.ci, st.ivlen, st.aadlen, st.len);             \
            abort();                                                                       \
        }                                                                                  \
    } while (0)

static P(ctx) ctxs[2];
static P(face_cache) cache;
static P(stream) stream;

static struct {
    int step, ci;                        /* the step, the ctx in use */
    uint8_t keys[2][16];
    uint8_t base[12], iv[128];           /* the last 96-bit IV; the IV of this step */
    size_t ivlen, aadlen, len, taglen;
    int built, mctx;                     /* the model of the cache: built, under which ctx, */
    uint8_t mkey[16], ivb[3];            /* with which key, for which IV bytes 0, 5, 10 */
    unsigned gen;                        /* rebuilds and wipes */
    sg_heap heap;
} st;

/* What a cached call with this IV does to the cache: ECACHE, or 0 (kept or rebuilt). */
static int model_enter(void)
{
    const uint8_t *iv = st.iv;
    if (st.ivlen != 12u) return 0;       /* other IVs: FACE off, the cache untouched */
    if (st.built && st.mctx == st.ci && memcmp(st.mkey, st.keys[st.ci], 16) != 0) return ECACHE;
    if (!(st.built && st.mctx == st.ci && st.ivb[0] == iv[0] && st.ivb[1] == iv[5] && st.ivb[2] == iv[10])) {
        st.built = 1;
        st.mctx = st.ci;
        memcpy(st.mkey, st.keys[st.ci], 16);
        st.ivb[0] = iv[0]; st.ivb[1] = iv[5]; st.ivb[2] = iv[10];
        st.gen++;
    }
    return 0;
}

static void next_iv(sg_input *in)
{
    uint32_t kind = sg_take(in, 1) % 8u, step = 1, i;
    if (kind == 6u) {                    /* another length: GHASH makes J0, FACE is off */
        st.ivlen = 1u + sg_take(in, 1) % 128u;
        sg_take_bytes(in, st.iv, st.ivlen);
        return;
    }
    if (kind == 7u) {
        sg_take_bytes(in, st.base, 12);
    } else if (kind == 4u) {
        i = sg_take(in, 1) % 12u;        /* two statements: the order of the takes is fixed */
        st.base[i] ^= (uint8_t)(1u + sg_take(in, 1) % 255u);
    } else if (kind != 5u) {               /* consecutive: bytes 4..11 count (SP 800-38D 8.2.1) */
        if (kind == 3u) step = 1u + sg_take(in, 2);
        for (i = 11; step && i >= 4; i--) {
            step += st.base[i];
            st.base[i] = (uint8_t)step;
            step >>= 8;
        }
    }
    st.ivlen = 12;
    memcpy(st.iv, st.base, 12);
}

static size_t pick_len(sg_input *in)
{
    uint32_t kind = sg_take(in, 1) % 6u, v = sg_take(in, 2);
    switch (kind) {
    case 0: case 1: return v % 65u;
    case 2: return 4048u - 40u + v % 81u;         /* around the carry pair */
    case 3: return 8144u - 40u + v % 81u;         /* around the lean path's end */
    case 4: return v % 8400u;
    default: return v % 300u;
    }
}

/* One message: the step's IV, AAD, message and tag length; OpenSSL's ciphertext and tag. */
typedef struct {
    uint8_t *aad, *msg, *ct, *out, tag[16], got[16];
} message;

static void make_message(sg_input *in, message *m)
{
    static const size_t taglens[7] = {16, 4, 8, 12, 13, 14, 15};
    uint64_t seed = sg_take(in, 4);
    next_iv(in);
    st.aadlen = sg_take(in, 1) < 200u ? sg_take(in, 1) % 48u : sg_take(in, 2) % 600u;
    st.len = pick_len(in);
    st.taglen = taglens[sg_take(in, 1) % 7u];
    m->aad = sg_alloc(&st.heap, st.aadlen, 0);
    m->msg = sg_alloc(&st.heap, st.len, sg_take(in, 1) & 3u);
    m->ct = sg_alloc(&st.heap, st.len + 16u, 0);
    m->out = sg_alloc(&st.heap, st.len, 0);
    sg_fill(seed, m->aad, st.aadlen);
    sg_fill(seed ^ 0x9e3779b97f4a7c15u, m->msg, st.len);
    sg_oracle_gcm(st.keys[st.ci], 16, st.iv, st.ivlen, m->aad, st.aadlen, m->msg, st.len, m->ct, m->tag);
}

static void oneshot_cached(sg_input *in, int decrypt)
{
    message m;
    int want, rc, tamper;
    make_message(in, &m);
    tamper = decrypt && (sg_take(in, 1) & 3u) == 0u;
    want = model_enter();
    if (!decrypt) {
        rc = P(encrypt_cached)(&ctxs[st.ci], &cache, st.iv, st.ivlen, m.aad, st.aadlen, m.msg, st.len, m.out, m.got, st.taglen);
        CHECK(rc == want, "encrypt_cached's return");
        if (rc == 0) CHECK((st.len == 0 || memcmp(m.out, m.ct, st.len) == 0) && memcmp(m.got, m.tag, st.taglen) == 0,
                           "encrypt_cached's ciphertext and tag");
        return;
    }
    if (tamper) m.tag[st.taglen - 1] ^= 0x80u;
    rc = P(decrypt_cached)(&ctxs[st.ci], &cache, st.iv, st.ivlen, m.aad, st.aadlen, m.ct, st.len, m.tag, st.taglen, m.out);
    CHECK(rc == (want ? want : tamper ? -1 : 0), "decrypt_cached's return");
    if (rc == 0) CHECK(st.len == 0 || memcmp(m.out, m.msg, st.len) == 0, "decrypt_cached's plaintext");
}

/* A stream (cached or not), encrypting or decrypting, in two pieces; between them a cached call
 * or a wipe (cached: the stream must then stop with ECACHE if its cache was rebuilt or wiped). */
static void stream_run(sg_input *in, int cached)
{
    message m;
    uint32_t b = sg_take(in, 1) % 6u, between = b % 3u;   /* 0 nothing, 1 a cached call, 2 a wipe */
    int dec = b >= 3u, rc, want = 0, stops;
    const uint8_t *src;
    size_t split;
    unsigned gen0;
    make_message(in, &m);
    src = dec ? m.ct : m.msg;
    split = st.len ? sg_take(in, 2) % (st.len + 1u) : 0u;
    if (cached) want = model_enter();
    rc = cached ? P(start_cached)(&stream, &ctxs[st.ci], &cache, st.iv, st.ivlen, dec)
                : P(start)(&stream, &ctxs[st.ci], st.iv, st.ivlen, dec);
    CHECK(rc == want, "start's return");
    if (rc) return;
    gen0 = st.gen;
    CHECK(P(aad)(&stream, m.aad, st.aadlen) == 0, "aad");
    CHECK(P(update)(&stream, src, split, m.out) == 0, "update (first piece)");
    if (between == 1u) {
        size_t len = st.len, ivlen = st.ivlen, aadlen = st.aadlen, taglen = st.taglen;
        uint8_t iv[128];
        memcpy(iv, st.iv, sizeof iv);
        oneshot_cached(in, 0);
        st.len = len; st.ivlen = ivlen; st.aadlen = aadlen; st.taglen = taglen;
        memcpy(st.iv, iv, sizeof iv);
    } else if (between == 2u) {
        P(face_cache_wipe)(&cache);
        st.built = 0;
        st.gen++;
    }
    stops = cached && st.ivlen == 12u && st.gen != gen0;
    rc = P(update)(&stream, src + split, st.len - split, m.out + split);
    CHECK(rc == (stops ? ECACHE : 0), "update (second piece)");
    if (stops) {
        CHECK(P(finish)(&stream, m.got, st.taglen) == -2 && P(finish_verify)(&stream, m.tag, st.taglen) == -2,
              "a stopped stream refuses finish");
        return;
    }
    if (dec) {
        CHECK(P(finish_verify)(&stream, m.tag, st.taglen) == 0, "finish_verify");
        CHECK(st.len == 0 || memcmp(m.out, m.msg, st.len) == 0, "the stream's plaintext");
        return;
    }
    CHECK(P(finish)(&stream, m.got, st.taglen) == 0, "finish");
    CHECK((st.len == 0 || memcmp(m.out, m.ct, st.len) == 0) && memcmp(m.got, m.tag, st.taglen) == 0,
          "the stream's ciphertext and tag");
}

static void oneshot_uncached(sg_input *in)
{
    message m;
    make_message(in, &m);
    CHECK(P(encrypt)(&ctxs[st.ci], st.iv, st.ivlen, m.aad, st.aadlen, m.msg, st.len, m.out, m.got, st.taglen) == 0,
          "encrypt");
    CHECK((st.len == 0 || memcmp(m.out, m.ct, st.len) == 0) && memcmp(m.got, m.tag, st.taglen) == 0,
          "encrypt's ciphertext and tag");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sg_input in = {data, size};
    memset(&st, 0, sizeof st);
    sg_take_bytes(&in, st.keys[0], 16);
    sg_take_bytes(&in, st.keys[1], 16);
    sg_take_bytes(&in, st.base, 12);
    CHECK(P(init)(&ctxs[0], st.keys[0], 16) == 0 && P(init)(&ctxs[1], st.keys[1], 16) == 0, "init");
    P(face_cache_init)(&cache);
    for (st.step = 0; st.step < 16 && in.n; st.step++) {
        switch (sg_take(&in, 1) % 9u) {
        case 0: case 1: oneshot_cached(&in, 0); break;
        case 2: oneshot_cached(&in, 1); break;
        case 3: stream_run(&in, 1); break;
        case 4: stream_run(&in, 0); break;
        case 5: oneshot_uncached(&in); break;
        case 6:                          /* wipe: a later call rebuilds */
            P(face_cache_wipe)(&cache);
            st.built = 0;
            st.gen++;
            break;
        case 7:                          /* the ctx given another key */
            sg_take_bytes(&in, st.keys[st.ci], 16);
            CHECK(P(init)(&ctxs[st.ci], st.keys[st.ci], 16) == 0, "init (another key)");
            break;
        default: st.ci ^= 1; break;
        }
        sg_heap_free(&st.heap);
    }
    P(face_cache_wipe)(&cache);
    {                                    /* the live mode: the same steps on the emulated drops */
        uint32_t steps = (uint32_t)st.step;
        sg_live_check(data, size, &steps, 1);
    }
    return 0;
}
