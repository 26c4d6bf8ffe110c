/* The checks of one AES-GCM drop (prefix SG_P) on a decoded case (tests/fuzz/gcm_case.h):
 * included once per drop by tests/fuzz/gcm_portable.c, so no include guard. One-shot and
 * streaming encrypt and decrypt (tampered inputs: -1 and a zeroed output, or finish_verify's
 * -1), the stream's refusals after finish, ecb_encrypt against OpenSSL's ECB and ghash against
 * tests/fuzz/ghash_ref.h. */
#define SG_F(x) SG_CAT(SG_P, x)

/* AAD then message through the stream, in the case's pieces (cyclic, AAD first). */
static int SG_F(fz_stream)(sg_case *c, SG_F(stream) *s, const uint8_t *aad, const uint8_t *in, uint8_t *out)
{
    size_t k = 0, done = 0, n;
    int rc;
    while (done < c->aadlen) {
        n = c->pieces[k++ % c->npieces];
        if (n > c->aadlen - done) n = c->aadlen - done;
        if ((rc = SG_F(aad)(s, aad + done, n)) != 0) return rc;
        done += n;
    }
    for (done = 0; done < c->len; done += n) {
        n = c->pieces[k++ % c->npieces];
        if (n > c->len - done) n = c->len - done;
        if ((rc = SG_F(update)(s, in + done, n, out + done)) != 0) return rc;
    }
    return SG_F(update)(s, in, 0, out);   /* an empty update at the end changes nothing */
}

static void SG_F(fz_run)(sg_case *c)
{
    SG_F(ctx) *ctx = malloc(sizeof *ctx);
    SG_F(stream) *s = malloc(sizeof *s);
    uint8_t tag[16], y[16], yref[16], h[16] = {0};
    const uint8_t *src = c->op == SG_DECRYPT || c->op == SG_STREAM_DECRYPT ? c->dct : c->msg;
    uint8_t *out = sg_copy_of(&c->heap, c->inplace ? src : NULL, c->len, c->out_off);
    const uint8_t *in = c->inplace ? out : src;
    size_t i;
    int rc;
    if (ctx == NULL || s == NULL) abort();
    if (c->badkey) SG_CHECK(SG_F(init)(ctx, c->key, c->keylen + 1u) == -2, "init with a bad key length");
    SG_CHECK(SG_F(init)(ctx, c->key, c->keylen) == 0, "init");
    switch (c->op) {
    case SG_ENCRYPT:
        rc = SG_F(encrypt)(ctx, c->iv, c->ivlen, c->aad, c->aadlen, in, c->len, out, tag, c->taglen);
        SG_CHECK(rc == (c->valid ? 0 : -2), "encrypt's return");
        if (c->valid) {
            SG_CHECK(c->len == 0 || memcmp(out, c->ct, c->len) == 0, "encrypt's ciphertext");
            SG_CHECK(memcmp(tag, c->tag, c->taglen) == 0, "encrypt's tag");
        }
        break;
    case SG_DECRYPT:
        rc = SG_F(decrypt)(ctx, c->iv, c->ivlen, c->daad, c->aadlen, in, c->len, c->dtag, c->taglen, out);
        SG_CHECK(rc == (!c->valid ? -2 : c->tamper ? -1 : 0), "decrypt's return");
        if (rc == 0) SG_CHECK(c->len == 0 || memcmp(out, c->msg, c->len) == 0, "decrypt's plaintext");
        if (rc == -1) for (i = 0; i < c->len; i++) SG_CHECK(out[i] == 0, "decrypt zeroes out on a bad tag");
        break;
    case SG_STREAM_ENCRYPT:
    case SG_STREAM_DECRYPT: {
        int dec = c->op == SG_STREAM_DECRYPT;
        rc = SG_F(start)(s, ctx, c->iv, c->ivlen, dec);
        SG_CHECK(rc == (c->ivlen ? 0 : -2), "start's return");
        if (rc) break;
        SG_CHECK(SG_F(fz_stream)(c, s, dec ? c->daad : c->aad, in, out) == 0, "aad/update's return");
        SG_CHECK(c->len == 0 || memcmp(out, dec ? c->dplain : c->ct, c->len) == 0, "update's output");
        rc = dec ? SG_F(finish_verify)(s, c->dtag, c->taglen) : SG_F(finish)(s, tag, c->taglen);
        SG_CHECK(rc == (!c->valid ? -2 : dec && c->tamper ? -1 : 0), "finish's return");
        if (rc == -2) break;
        if (!dec) SG_CHECK(memcmp(tag, c->tag, c->taglen) == 0, "finish's tag");
        SG_CHECK(SG_F(update)(s, in, 0, out) == -2 && SG_F(aad)(s, c->aad, 0) == -2, "a finished stream refuses");
        SG_CHECK(SG_F(finish)(s, tag, 16) == -2 && SG_F(finish_verify)(s, tag, 16) == -2, "finish twice");
        break;
    }
    case SG_ECB:
        SG_F(ecb_encrypt)(ctx, out, in, c->len / 16u);
        if (c->len >= 16u) sg_oracle_ecb(c->key, c->keylen, c->msg, c->len / 16u, c->ct);
        SG_CHECK(c->len < 16u || memcmp(out, c->ct, 16u * (c->len / 16u)) == 0, "ecb_encrypt");
        break;
    default:                              /* SG_GHASH: y0 through the message's whole blocks */
        sg_oracle_ecb(c->key, c->keylen, h, 1, h);
        memcpy(y, c->y0, 16);
        memcpy(yref, c->y0, 16);
        SG_F(ghash)(ctx, y, in, c->len / 16u);
        sg_ghash_ref(h, yref, c->msg, c->len / 16u);
        SG_CHECK(memcmp(y, yref, 16) == 0, "ghash");
        break;
    }
    SG_F(wipe)(ctx);
    free(ctx);
    free(s);
}

#undef SG_F
