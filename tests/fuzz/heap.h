/* The fuzz cases' buffers: each its own heap block of exactly its length after 0..3 bytes of
 * misalignment, so ASan sees a read one byte past it; freed together after the case. */
#ifndef SG_FUZZ_HEAP_H
#define SG_FUZZ_HEAP_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    void *blocks[8];
    int used;
} sg_heap;

static inline uint8_t *sg_alloc(sg_heap *h, size_t n, size_t off)
{
    uint8_t *b = malloc(n + off + (n + off == 0));
    if (b == NULL || h->used == 8) abort();
    h->blocks[h->used++] = b;
    return b + off;
}

/* A copy of src (or n bytes of 0xA5 if src is NULL): an output buffer, or the input of an
 * in-place call. */
static inline uint8_t *sg_copy_of(sg_heap *h, const uint8_t *src, size_t n, size_t off)
{
    uint8_t *b = sg_alloc(h, n, off);
    if (n) {
        if (src) memcpy(b, src, n);
        else memset(b, 0xa5, n);
    }
    return b;
}

static inline void sg_heap_free(sg_heap *h)
{
    while (h->used) free(h->blocks[--h->used]);
}

#endif
