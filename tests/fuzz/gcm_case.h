/* One fuzzed AES-GCM case, decoded from the fuzzer's bytes (tests/fuzz/input.h), with the oracle's
 * answers filled in (sg_oracle_gcm: OpenSSL's, tests/fuzz/ossl_gcm.h, or where OpenSSL is not, the
 * portable drops', tests/fuzz/oracle_portable.h; included first); buffers from tests/fuzz/heap.h. */
#ifndef SG_GCM_CASE_H
#define SG_GCM_CASE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "heap.h"
#include "input.h"

#define SG_CHECK(cond, what)                                                             \
    do {                                                                                 \
        if (!(cond)) {                                                                   \
            fprintf(stderr, "DIVERGENCE: %s (%s) op %d keylen %zu ivlen %zu aadlen %zu len %zu " \
                    "taglen %zu inplace %d tamper %d\n", what, #cond, c->op, c->keylen,  \
                    c->ivlen, c->aadlen, c->len, c->taglen, c->inplace, c->tamper);      \
            abort();                                                                     \
        }                                                                                \
    } while (0)

enum { SG_ENCRYPT, SG_DECRYPT, SG_STREAM_ENCRYPT, SG_STREAM_DECRYPT, SG_ECB, SG_GHASH, SG_OPS };

typedef struct {
    int op, inplace, tamper, badkey;          /* tamper: 0 none, 1 tag, 2 ciphertext, 3 AAD */
    size_t keylen, ivlen, aadlen, len, taglen, in_off, out_off;
    int valid;                                /* ivlen != 0 and taglen allowed: else -2 expected */
    uint8_t key[32], tag[16], dtag[16], y0[16];
    uint8_t *iv, *aad, *msg, *ct;             /* ct: OpenSSL's ciphertext */
    uint8_t *dct, *daad, *dplain;             /* what decrypt gets (tampered or not); plaintext an update returns */
    size_t pieces[32], npieces;               /* the stream's split, AAD then message, cyclic */
    sg_heap heap;
} sg_case;

static void sg_case_decode(sg_case *c, const uint8_t *data, size_t size)
{
    static const size_t taglens[14] = {16, 16, 16, 16, 12, 13, 14, 15, 8, 4, 0, 17, 3, 255};
    sg_input in = {data, size};
    uint32_t b0 = sg_take(&in, 1), b1 = sg_take(&in, 1), b2 = sg_take(&in, 1), pos;
    uint64_t seed;
    size_t i, total = 0;
    memset(c, 0, sizeof *c);
    c->op = (int)(b0 % SG_OPS);
    c->inplace = (int)((b0 >> 3) & 1u);
    c->keylen = 16u + 8u * (((b0 >> 4) & 3u) % 3u);
    c->badkey = (int)(b0 >> 7);
    c->tamper = (b1 & 7u) < 5u ? 0 : (int)(b1 & 7u) - 4;
    c->in_off = (b1 >> 3) & 3u;
    c->out_off = (b1 >> 5) & 3u;
    /* 12 bytes mostly; 1..128 (OpenSSL's range); 129..1024 (SP 800-38D's model: tests/fuzz/gcm_ref.h); 0 */
    c->ivlen = b2 < 160u ? 12u : b2 == 255u ? 0u : b2 >= 248u ? 129u + sg_take(&in, 2) % 896u : 1u + sg_take(&in, 1) % 128u;
    c->taglen = taglens[sg_take(&in, 1) % 14u];
    c->aadlen = sg_len(&in, 40, 2100);
    c->len = sg_len(&in, 100, 4200);
    pos = sg_take(&in, 2);
    seed = ((uint64_t)sg_take(&in, 4) << 32) | sg_take(&in, 4);
    c->valid = c->ivlen != 0 && c->taglen <= 16u && (c->taglen == 4u || c->taglen == 8u || c->taglen >= 12u);
    sg_take_bytes(&in, c->key, c->keylen);
    c->iv = sg_alloc(&c->heap, c->ivlen, 0);
    sg_take_bytes(&in, c->iv, c->ivlen);
    for (c->npieces = 0; c->npieces < 32u && in.n; c->npieces++) {
        c->pieces[c->npieces] = sg_piece(&in);
        total += c->pieces[c->npieces];
    }
    if (total == 0) {                         /* only empty pieces: the rest in one */
        if (c->npieces == 32u) c->npieces--;
        c->pieces[c->npieces++] = c->aadlen + c->len + 1u;
    }
    c->aad = sg_alloc(&c->heap, c->aadlen, 0);
    c->msg = sg_alloc(&c->heap, c->len, c->in_off);
    sg_fill(seed, c->aad, c->aadlen);
    sg_fill(seed ^ 0x9e3779b97f4a7c15u, c->msg, c->len);
    sg_fill(seed ^ 0x5851f42d4c957f2du, c->y0, 16);
    c->ct = sg_alloc(&c->heap, c->len + 16u, 0);    /* + 16: EVP_EncryptFinal's room */
    memset(c->ct, 0, c->len + 16u);
    if (c->ivlen) sg_oracle_gcm(c->key, c->keylen, c->iv, c->ivlen, c->aad, c->aadlen, c->msg, c->len, c->ct, c->tag);
    /* decrypt's inputs: one bit flipped in the tag, the ciphertext or the AAD (the tag when
     * that is empty) */
    c->dct = sg_alloc(&c->heap, c->len, c->in_off);
    c->daad = sg_alloc(&c->heap, c->aadlen, 0);
    c->dplain = sg_alloc(&c->heap, c->len, 0);
    if (c->len) memcpy(c->dct, c->ct, c->len);
    if (c->aadlen) memcpy(c->daad, c->aad, c->aadlen);
    memcpy(c->dtag, c->tag, 16);
    if (c->tamper == 2 && c->len == 0) c->tamper = 1;
    if (c->tamper == 3 && c->aadlen == 0) c->tamper = 1;
    if (c->tamper == 1 && c->taglen > 16u) c->tamper = 0;
    if (c->tamper == 1) c->dtag[(pos >> 3) % (c->taglen ? c->taglen : 1u)] ^= (uint8_t)(1u << (pos & 7u));
    if (c->tamper == 2) c->dct[(pos >> 3) % c->len] ^= (uint8_t)(1u << (pos & 7u));
    if (c->tamper == 3) c->daad[(pos >> 3) % c->aadlen] ^= (uint8_t)(1u << (pos & 7u));
    for (i = 0; i < c->len; i++) c->dplain[i] = (uint8_t)(c->msg[i] ^ c->ct[i] ^ c->dct[i]);
}

#endif
