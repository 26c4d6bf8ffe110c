/* The checks of one block-cipher drop (prefix SG_P, block SG_BLK bytes) on a decoded case
 * (tests/fuzz/block_case.h) against a plain reference: SG_REF (its type), SG_REF_INIT(ref, key)
 * and SG_REF_ENC(ref, out, in). Included once per drop, so no include guard. ECB over the whole
 * blocks; CTR in one call or a stream in pieces, keystream block i = E(counter block with its last
 * 4 bytes, big-endian, + i mod 2^32). */
#define SG_F(x) SG_CAT(SG_P, x)

static void SG_F(fz_run)(sg_bcase *c)
{
    SG_F(ctx) *ctx = malloc(sizeof *ctx);
    SG_F(ctr_stream) *s = malloc(sizeof *s);
    SG_REF *ref = malloc(sizeof *ref);
    uint8_t *out = sg_copy_of(&c->heap, c->inplace ? c->msg : NULL, c->len, c->out_off);
    uint8_t *want = sg_alloc(&c->heap, c->len, 0);
    const uint8_t *in = c->inplace ? out : c->msg;
    uint8_t cb[SG_BLK], ks[SG_BLK];
    size_t i, j, n, k = 0, done;
    uint32_t ctr;
    int rc;
    if (ctx == NULL || s == NULL || ref == NULL) abort();
    if (c->badkey) SG_CHECK(SG_F(init)(ctx, c->key, SG_BLK + 1u) == -2, "init with a bad key length");
    SG_CHECK(SG_F(init)(ctx, c->key, SG_BLK) == 0, "init");
    SG_REF_INIT(ref, c->key);
    if (c->op == SG_B_ECB) {
        for (i = 0; i + SG_BLK <= c->len; i += SG_BLK) SG_REF_ENC(ref, want + i, c->msg + i);
        SG_F(ecb_encrypt)(ctx, out, in, c->len / SG_BLK);
        SG_CHECK(c->len < SG_BLK || memcmp(out, want, c->len - c->len % SG_BLK) == 0, "ecb_encrypt");
    } else if (c->ivlen != SG_BLK) {
        SG_CHECK(SG_F(ctr)(ctx, c->iv, c->ivlen, in, c->len, out) == -2, "ctr with a bad IV length");
        SG_CHECK(SG_F(ctr_start)(s, ctx, c->iv, c->ivlen) == -2, "ctr_start with a bad IV length");
    } else {
        memcpy(cb, c->iv, SG_BLK);
        ctr = ((uint32_t)cb[SG_BLK - 4] << 24) | ((uint32_t)cb[SG_BLK - 3] << 16) | ((uint32_t)cb[SG_BLK - 2] << 8) | cb[SG_BLK - 1];
        for (i = 0; i < c->len; i += SG_BLK, ctr++) {
            cb[SG_BLK - 4] = (uint8_t)(ctr >> 24); cb[SG_BLK - 3] = (uint8_t)(ctr >> 16);
            cb[SG_BLK - 2] = (uint8_t)(ctr >> 8); cb[SG_BLK - 1] = (uint8_t)ctr;
            SG_REF_ENC(ref, ks, cb);
            for (j = 0; j < SG_BLK && i + j < c->len; j++) want[i + j] = (uint8_t)(c->msg[i + j] ^ ks[j]);
        }
        if (c->op == SG_B_CTR) {
            rc = SG_F(ctr)(ctx, c->iv, c->ivlen, in, c->len, out);
        } else {
            rc = SG_F(ctr_start)(s, ctx, c->iv, c->ivlen);
            for (done = 0; rc == 0 && done < c->len; done += n) {
                n = c->pieces[k++ % c->npieces];
                if (n > c->len - done) n = c->len - done;
                rc = SG_F(ctr_update)(s, in + done, n, out + done);
            }
            SG_F(ctr_wipe)(s);
        }
        SG_CHECK(rc == 0, "ctr's return");
        SG_CHECK(c->len == 0 || memcmp(out, want, c->len) == 0, "ctr's output");
    }
    SG_F(wipe)(ctx);
    free(ctx);
    free(s);
    free(ref);
}

#undef SG_F
