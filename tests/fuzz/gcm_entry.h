/* The entry point of the AES-GCM fuzz targets: decode the case (tests/fuzz/gcm_case.h, after an
 * oracle header), then the checks (tests/fuzz/gcm_body.h) of the drop of its key size; the drops'
 * prefixes are SG_D128, SG_D192, SG_D256. With SG_LIVE (the libFuzzer target, after tests/fuzz/live.h)
 * each input then goes to the live worker when the live mode is on. */
#include "gcm_case.h"
#include "ghash_ref.h"

#define SG_CAT_(a, b) a##_##b
#define SG_CAT(a, b) SG_CAT_(a, b)

#define SG_P SG_D128
#include "gcm_body.h"
#undef SG_P
#define SG_P SG_D192
#include "gcm_body.h"
#undef SG_P
#define SG_P SG_D256
#include "gcm_body.h"
#undef SG_P

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sg_case c;
    sg_case_decode(&c, data, size);
    if (c.keylen == 16u) SG_CAT(SG_D128, fz_run)(&c);
    else if (c.keylen == 24u) SG_CAT(SG_D192, fz_run)(&c);
    else SG_CAT(SG_D256, fz_run)(&c);
#ifdef SG_LIVE                        /* the live mode: the same input on the emulated drops */
    {
        uint32_t d[6] = {(uint32_t)c.op, (uint32_t)c.keylen, (uint32_t)c.ivlen, (uint32_t)c.aadlen,
                         (uint32_t)c.len, (uint32_t)c.taglen};
        sg_live_check(data, size, d, 6);
    }
#endif
    sg_heap_free(&c.heap);
    return 0;
}
