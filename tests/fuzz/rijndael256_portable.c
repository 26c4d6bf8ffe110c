/* libFuzzer target: the portable Rijndael-256 CTR drop (ECB through its ecb_encrypt) against the
 * plain reference tests/fuzz/ref_rijndael256.h. Built by tests/fuzz/targets.py with -DSG_HR256
 * (the header's path). */
#include <stdint.h>
#include <stddef.h>
#define RIJNDAEL256CTR_PORTABLE_IMPLEMENTATION
#include SG_HR256
#include "block_case.h"
#include "ref_rijndael256.h"

#define SG_CAT_(a, b) a##_##b
#define SG_CAT(a, b) SG_CAT_(a, b)
#define SG_BLK 32u
#define SG_REF sg_rijndael256
#define SG_REF_INIT(r, k) sg_rijndael256_init(r, k)
#define SG_REF_ENC(r, o, i) sg_rijndael256_encrypt(r, o, i)
#define SG_P rijndael256ctr_portable
#include "block_body.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sg_bcase c;
    sg_bcase_decode(&c, data, size, 1, SG_BLK);
    rijndael256ctr_portable_fz_run(&c);
    sg_heap_free(&c.heap);
    return 0;
}
