/* A firmware file that uses a vendored block-cipher drop (ecb, ctr), for the vendoring checks
 * (emu/vendoring/matrix.py): the second translation unit, as emu/vendoring/vendor_caller.c is for GCM drops. It
 * includes the header WITHOUT the implementation macro and calls every API function, so the link
 * must resolve each against the implementation unit, with no libc (-nostdlib). Compiles as
 * C99/C11 and as C++11. Linked, never run: `sg_start` is the entry point.
 *
 * Built with -DSG_PREFIX=<prefix> -DSG_HEADER="<header>" -DSG_KEYBYTES=<n> -DSG_BLOCK=<n>, and
 * -DSG_CTR for a ctr drop.
 */
#include SG_HEADER

#define SG_CAT_(a, b) a##_##b
#define SG_CAT(a, b) SG_CAT_(a, b)
#define F(x) SG_CAT(SG_PREFIX, x)

static F(ctx) sg_ctx;
static uint8_t sg_key[SG_KEYBYTES], sg_buf[4 * SG_BLOCK];
#ifdef SG_CTR
static uint8_t sg_iv[SG_BLOCK];
static F(ctr_stream) sg_stream;
#endif
volatile int sg_status;

#ifdef __cplusplus
extern "C"
#endif
void sg_start(void);

void sg_start(void)
{
    int rc = F(init)(&sg_ctx, sg_key, sizeof sg_key);
    F(ecb_encrypt)(&sg_ctx, sg_buf, sg_buf, 3);
#ifdef SG_CTR
    rc |= F(ctr)(&sg_ctx, sg_iv, sizeof sg_iv, sg_buf, 40, sg_buf);
    rc |= F(ctr_start)(&sg_stream, &sg_ctx, sg_iv, sizeof sg_iv);
    rc |= F(ctr_update)(&sg_stream, sg_buf, 33, sg_buf);
    F(ctr_wipe)(&sg_stream);
#endif
    F(wipe)(&sg_ctx);
    sg_status = rc;
}
