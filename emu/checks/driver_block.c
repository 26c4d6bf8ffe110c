/* Batch driver for block-cipher drops (ecb, ctr): runs many cases through a drop in ONE call,
 * like emu/machines/driver.c does for GCM. Compiled for the emulated core and for the host.
 *
 * Built with -DSG_PREFIX=<prefix> -DSG_HEADER="<header>" -DSG_BLOCK=<block bytes>,
 * -DSG_KEYBYTES=<key bytes>, and -DSG_CTR
 * for a ctr drop. A case is 5 little-endian u32 (op, keylen, ivlen, len, flags) followed by key,
 * iv and input bytes, padded to 4 bytes.
 *   op 0 ecb_encrypt of len / SG_BLOCK blocks; 1 ctr one-shot; 2 ctr through the stream in
 *   pieces of ((flags >> 16) & 0xff) + 1 bytes; 3 bad-argument probes (init with keylen, then
 *   a good init and ctr with in == NULL and a non-zero length; the result is the two return codes).
 *   flags bit 0: in place; bits 1-2: misalignment of the input copy; bits 3-4: of the output.
 * A result is an i32 return code and the output bytes, padded to 4.
 */
#include <stdint.h>
#include <stddef.h>
#include SG_HEADER

#define SG_CAT_(a, b) a##_##b
#define SG_CAT(a, b) SG_CAT_(a, b)
#define F(x) SG_CAT(SG_PREFIX, x)

#define SG_MAXMSG 8256u

static F(ctx) sg_ctx;
#ifdef SG_CTR
static F(ctr_stream) sg_stream;
#endif
static uint8_t sg_in[SG_MAXMSG + 8];
static uint8_t sg_out[SG_MAXMSG + 8];

static uint32_t sg_u32(const uint8_t *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

static size_t sg_pad4(size_t n) { return (n + 3u) & ~(size_t)3u; }

static void sg_put_rc(uint8_t *r, int rc)
{
    r[0] = (uint8_t)rc; r[1] = (uint8_t)((uint32_t)rc >> 8);
    r[2] = (uint8_t)((uint32_t)rc >> 16); r[3] = (uint8_t)((uint32_t)rc >> 24);
}

uint32_t sg_run_batch(const uint8_t *cases, uint32_t ncases, uint8_t *results)
{
    uint32_t i, j;
    for (i = 0; i < ncases; i++) {
        uint32_t op = sg_u32(cases), keylen = sg_u32(cases + 4), ivlen = sg_u32(cases + 8);
        uint32_t len = sg_u32(cases + 12), flags = sg_u32(cases + 16);
        const uint8_t *key = cases + 20, *iv = key + keylen, *msg = iv + ivlen;
        uint8_t *in = sg_in + ((flags >> 1) & 3u);
        uint8_t *out = (flags & 1u) ? in : sg_out + ((flags >> 3) & 3u);
        int rc;
        cases += sg_pad4(20u + keylen + ivlen + len);
        for (j = 0; j < len; j++) in[j] = msg[j];
        if (op == 3) {
            int rc2 = 0;
            rc = F(init)(&sg_ctx, key, keylen);
#ifdef SG_CTR
            if (F(init)(&sg_ctx, sg_in, SG_KEYBYTES) == 0)
                rc2 = F(ctr)(&sg_ctx, iv, ivlen, NULL, 5u, out);
#endif
            sg_put_rc(results, rc);
            sg_put_rc(results + 4, rc2);
            results += 8;
            F(wipe)(&sg_ctx);
            continue;
        }
        rc = F(init)(&sg_ctx, key, keylen);
        if (rc == 0) {
            if (op == 0) {
                F(ecb_encrypt)(&sg_ctx, out, in, len / SG_BLOCK);
            }
#ifdef SG_CTR
            else if (op == 1) {
                rc = F(ctr)(&sg_ctx, iv, ivlen, in, len, out);
            } else {
                uint32_t chunk = ((flags >> 16) & 0xffu) + 1u, done = 0;
                rc = F(ctr_start)(&sg_stream, &sg_ctx, iv, ivlen);
                while (rc == 0 && done < len) {
                    uint32_t n = len - done < chunk ? len - done : chunk;
                    rc = F(ctr_update)(&sg_stream, in + done, n, out + done);
                    done += n;
                }
                F(ctr_wipe)(&sg_stream);
            }
#endif
        }
        F(wipe)(&sg_ctx);
        sg_put_rc(results, rc);
        results += 4;
        for (j = 0; j < len; j++) results[j] = out[j];
        results += sg_pad4(len);
    }
    return ncases;
}
