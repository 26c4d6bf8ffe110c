/* One fuzzed case for a block-cipher drop (Rijndael-256, SPEEDY): which drop of the program, ECB
 * or CTR (one call or a stream in pieces), the key, the counter block (its last 4 bytes, the
 * counter, often just below the 2^32 wrap), the message length, in place or not, misalignment.
 * Decoded from the fuzzer's bytes (tests/fuzz/input.h); buffers from tests/fuzz/heap.h. */
#ifndef SG_BLOCK_CASE_H
#define SG_BLOCK_CASE_H

#include <stdio.h>
#include "heap.h"
#include "input.h"

#define SG_CHECK(cond, what)                                                             \
    do {                                                                                 \
        if (!(cond)) {                                                                   \
            fprintf(stderr, "DIVERGENCE: %s (%s) drop %d op %d ivlen %zu len %zu inplace %d\n", \
                    what, #cond, c->drop, c->op, c->ivlen, c->len, c->inplace);          \
            abort();                                                                     \
        }                                                                                \
    } while (0)

enum { SG_B_ECB, SG_B_CTR, SG_B_CTR_STREAM, SG_B_OPS };

typedef struct {
    int drop, op, inplace, badkey;
    size_t block, ivlen, len, in_off, out_off;
    uint8_t key[32], *iv, *msg;
    size_t pieces[32], npieces;
    sg_heap heap;
} sg_bcase;

static void sg_bcase_decode(sg_bcase *c, const uint8_t *data, size_t size, int ndrops, size_t block)
{
    sg_input in = {data, size};
    uint32_t b0 = sg_take(&in, 1), b1 = sg_take(&in, 1), wrap;
    uint64_t seed;
    size_t total = 0;
    memset(c, 0, sizeof *c);
    c->block = block;
    c->drop = (int)(b0 % (uint32_t)ndrops);
    c->op = (int)((b0 >> 2) % SG_B_OPS);
    c->inplace = (int)((b0 >> 4) & 1u);
    c->badkey = (int)((b0 >> 5) & 1u);
    c->in_off = b1 & 3u;
    c->out_off = (b1 >> 2) & 3u;
    c->ivlen = (b1 >> 4) == 15u ? sg_take(&in, 1) % 64u : block;   /* a wrong length now and then */
    c->len = sg_len(&in, 3 * block, 20 * block);   /* the references are slow */
    seed = ((uint64_t)sg_take(&in, 4) << 32) | sg_take(&in, 4);
    wrap = sg_take(&in, 1);
    sg_take_bytes(&in, c->key, 32);
    c->iv = sg_alloc(&c->heap, c->ivlen, 0);
    sg_take_bytes(&in, c->iv, c->ivlen);
    if (c->ivlen == block && wrap < 128u) {  /* the counter a few blocks before 2^32 */
        c->iv[block - 4] = c->iv[block - 3] = c->iv[block - 2] = 0xffu;
        c->iv[block - 1] = (uint8_t)(0xffu - (wrap & 63u));
    }
    for (c->npieces = 0; c->npieces < 32u && in.n; c->npieces++) {
        c->pieces[c->npieces] = sg_piece(&in);
        total += c->pieces[c->npieces];
    }
    if (total == 0) {                         /* only empty pieces: the rest in one */
        if (c->npieces == 32u) c->npieces--;
        c->pieces[c->npieces++] = c->len + 1u;
    }
    c->msg = sg_alloc(&c->heap, c->len, c->in_off);
    sg_fill(seed, c->msg, c->len);
}

#endif
