/* Batch driver for validation: runs many GCM cases through a drop in ONE call, so the
 * emulator starts once per batch instead of once per case. The same file is compiled for
 * the host (shared library, called through ctypes) and for the emulated core.
 *
 * Built with -DSG_PREFIX=<drop prefix> -DSG_HEADER="<path to drop header>".
 *
 * A case is 7 little-endian u32 (op, keylen, ivlen, aadlen, len, taglen, flags) followed
 * by key, iv, aad, input and tag bytes (tag only for decrypting ops), padded to 4 bytes.
 *   op 0 one-shot encrypt, 1 one-shot decrypt, 2 streaming encrypt, 3 streaming decrypt,
 *      4 ecb_encrypt of the input's whole blocks, 5 ghash: y = the 16-byte iv through the input's
 *      whole blocks, y as the tag (for both the output's bytes not written are the input's in
 *      place, else zeros)
 *   (the tag is an input for ops 1 and 3 only; the tag buffer holds 256 bytes, so a refused tag
 *   length over 16 is still a well-formed case)
 *   flags bit 0: in place; bits 1-2: misalignment of the input copy; bits 3-4: of the output;
 *         bits 8-15: where the AAD is split (streaming); bits 16-23: data chunk size - 1.
 * A result is an i32 return code, the output bytes and (encrypting ops) the tag, padded to 4.
 */
#include <stdint.h>
#include <stddef.h>
#include SG_HEADER

#define SG_CAT_(a, b) a##_##b
#define SG_CAT(a, b) SG_CAT_(a, b)
#define F(x) SG_CAT(SG_PREFIX, x)

#define SG_MAXMSG 8256u

static F(ctx) sg_ctx;
static F(stream) sg_stream;
static uint8_t sg_in[SG_MAXMSG + 8];
static uint8_t sg_out[SG_MAXMSG + 8];
static uint8_t sg_tag[256];

static uint32_t sg_u32(const uint8_t *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

static size_t sg_pad4(size_t n) { return (n + 3u) & ~(size_t)3u; }

/* Byte copies and clears through a volatile pointer: this file is also built with users' flags
 * (gcc -Os without -ffreestanding, clang: emu/vendoring/flagsets.py) and linked without libc, so none of
 * its loops may become a memcpy/memset call. */
static void sg_copy(uint8_t *d, const uint8_t *s, uint32_t n)
{
    volatile uint8_t *v = d;
    while (n--) *v++ = *s++;
}

static void sg_clear(uint8_t *d, uint32_t n)
{
    volatile uint8_t *v = d;
    while (n--) *v++ = 0;
}

static int sg_stream_run(int decrypt, const uint8_t *iv, uint32_t ivlen, const uint8_t *aad,
                         uint32_t aadlen, uint8_t *in, uint32_t len, uint8_t *out,
                         const uint8_t *tag, uint32_t taglen, uint32_t flags)
{
    uint32_t split = ((flags >> 8) & 0xffu) % (aadlen + 1u);
    uint32_t chunk = ((flags >> 16) & 0xffu) + 1u;
    uint32_t done = 0;
    int rc = F(start)(&sg_stream, &sg_ctx, iv, ivlen, decrypt);
    if (rc) return rc;
    rc = F(aad)(&sg_stream, aad, split);
    if (rc) return rc;
    rc = F(aad)(&sg_stream, aad + split, aadlen - split);
    if (rc) return rc;
    while (done < len) {
        uint32_t n = len - done < chunk ? len - done : chunk;
        rc = F(update)(&sg_stream, in + done, n, out + done);
        if (rc) return rc;
        done += n;
    }
    if (decrypt) return F(finish_verify)(&sg_stream, tag, taglen);
    return F(finish)(&sg_stream, sg_tag, taglen);
}

/* The kernels underneath the API, for the benchmark (the drop keeps them static; this file is
 * the same translation unit, so it can reach them). */
void sg_keyschedule(uint32_t *rk, const uint8_t *key) { F(aes_keyschedule)(rk, key); }
void sg_ghash_init(uint32_t *hk, const uint8_t *h) { F(ghash_init)(hk, h); }

uint32_t sg_run_batch(const uint8_t *cases, uint32_t ncases, uint8_t *results)
{
    uint32_t i;
    for (i = 0; i < ncases; i++) {
        uint32_t op = sg_u32(cases), keylen = sg_u32(cases + 4), ivlen = sg_u32(cases + 8);
        uint32_t aadlen = sg_u32(cases + 12), len = sg_u32(cases + 16), taglen = sg_u32(cases + 20);
        uint32_t flags = sg_u32(cases + 24);
        const uint8_t *key = cases + 28, *iv = key + keylen, *aad = iv + ivlen, *msg = aad + aadlen;
        const uint8_t *tag = msg + len;
        uint8_t *in = sg_in + ((flags >> 1) & 3u);
        uint8_t *out = (flags & 1u) ? in : sg_out + ((flags >> 3) & 3u);
        int decrypt = op == 1u || op == 3u;
        int rc;
        cases += sg_pad4(28u + keylen + ivlen + aadlen + len + (decrypt ? taglen : 0u));
        sg_copy(in, msg, len);
        sg_clear(sg_tag, 16);         /* bytes 16.. are never written: only a refused length reaches them */
        rc = F(init)(&sg_ctx, key, keylen);
        if (rc == 0) {
            if (op >= 4u && !(flags & 1u)) sg_clear(out, len);   /* what is not written: zeros */
            if (op == 4u)
                F(ecb_encrypt)(&sg_ctx, out, in, len / 16u);
            else if (op == 5u) {
                sg_copy(sg_tag, iv, 16);
                F(ghash)(&sg_ctx, sg_tag, in, len / 16u);
            } else if (op == 0)
                rc = F(encrypt)(&sg_ctx, iv, ivlen, aad, aadlen, in, len, out, sg_tag, taglen);
            else if (op == 1)
                rc = F(decrypt)(&sg_ctx, iv, ivlen, aad, aadlen, in, len, tag, taglen, out);
            else
                rc = sg_stream_run(decrypt, iv, ivlen, aad, aadlen, in, len, out, tag, taglen, flags);
        }
        F(wipe)(&sg_ctx);
        results[0] = (uint8_t)rc; results[1] = (uint8_t)((uint32_t)rc >> 8);
        results[2] = (uint8_t)((uint32_t)rc >> 16); results[3] = (uint8_t)((uint32_t)rc >> 24);
        results += 4;
        sg_copy(results, out, len);
        results += len;
        if (!decrypt) {
            sg_copy(results, sg_tag, taglen);
            results += taglen;
        }
        results += sg_pad4(len + (decrypt ? 0u : taglen)) - (len + (decrypt ? 0u : taglen));
    }
    return ncases;
}
