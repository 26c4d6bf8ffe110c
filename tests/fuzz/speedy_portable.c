/* libFuzzer target: the portable SPEEDY-5/6/7-192 CTR drops (ECB through their ecb_encrypt; the
 * input picks the drop) against the plain reference tests/fuzz/ref_speedy.h. Built by
 * tests/fuzz/targets.py with -DSG_HS5/-DSG_HS6/-DSG_HS7 (the headers' paths). */
#include <stdint.h>
#include <stddef.h>
#define SPEEDY5CTR_PORTABLE_IMPLEMENTATION
#define SPEEDY6CTR_PORTABLE_IMPLEMENTATION
#define SPEEDY7CTR_PORTABLE_IMPLEMENTATION
#include SG_HS5
#include SG_HS6
#include SG_HS7
#include "block_case.h"
#include "ref_speedy.h"

#define SG_CAT_(a, b) a##_##b
#define SG_CAT(a, b) SG_CAT_(a, b)
#define SG_BLK 24u
#define SG_REF sg_speedy
#define SG_REF_ENC(r, o, i) sg_speedy_encrypt(r, o, i)
#define SG_REF_INIT(r, k) sg_speedy_init(r, 5, k)
#define SG_P speedy5ctr_portable
#include "block_body.h"
#undef SG_P
#undef SG_REF_INIT
#define SG_REF_INIT(r, k) sg_speedy_init(r, 6, k)
#define SG_P speedy6ctr_portable
#include "block_body.h"
#undef SG_P
#undef SG_REF_INIT
#define SG_REF_INIT(r, k) sg_speedy_init(r, 7, k)
#define SG_P speedy7ctr_portable
#include "block_body.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sg_bcase c;
    sg_bcase_decode(&c, data, size, 3, SG_BLK);
    if (c.drop == 0) speedy5ctr_portable_fz_run(&c);
    else if (c.drop == 1) speedy6ctr_portable_fz_run(&c);
    else speedy7ctr_portable_fz_run(&c);
    sg_heap_free(&c.heap);
    return 0;
}
