/* A firmware file that uses a vendored drop, for the vendoring checks (emu/vendoring/matrix.py): a
 * second translation unit that includes the header WITHOUT the implementation macro and calls
 * every API function, so the link must resolve each one against the implementation unit, with
 * no libc (-nostdlib). Compiles as C99/C11 and as C++11. Linked, never run: `sg_start` is the
 * entry point the link keeps everything from.
 *
 * Built with -DSG_PREFIX=<drop prefix> -DSG_HEADER="<path to drop header>" -DSG_KEYBYTES=<n>, and
 * -DSG_FACE_CACHE for a FACE drop (its cached calls: PREFIX_face_cache, *_cached).
 */
#include SG_HEADER

#define SG_CAT_(a, b) a##_##b
#define SG_CAT(a, b) SG_CAT_(a, b)
#define F(x) SG_CAT(SG_PREFIX, x)

static F(ctx) sg_ctx;
static F(stream) sg_stream;
static uint8_t sg_key[SG_KEYBYTES], sg_iv[12], sg_buf[64], sg_tag[16];
volatile int sg_status;
#ifdef SG_FACE_CACHE
static F(face_cache) sg_cache;
#endif

#ifdef __cplusplus
extern "C"
#endif
void sg_start(void);

void sg_start(void)
{
    int rc = F(init)(&sg_ctx, sg_key, sizeof sg_key);
    rc |= F(encrypt)(&sg_ctx, sg_iv, sizeof sg_iv, sg_buf, 5, sg_buf, 40, sg_buf, sg_tag, 16);
    rc |= F(decrypt)(&sg_ctx, sg_iv, sizeof sg_iv, sg_buf, 5, sg_buf, 40, sg_tag, 16, sg_buf);
    F(ecb_encrypt)(&sg_ctx, sg_buf, sg_buf, 3);
    F(ghash)(&sg_ctx, sg_tag, sg_buf, 2);
    rc |= F(start)(&sg_stream, &sg_ctx, sg_iv, sizeof sg_iv, 0);
    rc |= F(aad)(&sg_stream, sg_buf, 7);
    rc |= F(update)(&sg_stream, sg_buf, 33, sg_buf);
    rc |= F(finish)(&sg_stream, sg_tag, 12);
    rc |= F(start)(&sg_stream, &sg_ctx, sg_iv, sizeof sg_iv, 1);
    rc |= F(update)(&sg_stream, sg_buf, 33, sg_buf);
    rc |= F(finish_verify)(&sg_stream, sg_tag, 12);
#ifdef SG_FACE_CACHE
    F(face_cache_init)(&sg_cache);
    rc |= F(encrypt_cached)(&sg_ctx, &sg_cache, sg_iv, sizeof sg_iv, sg_buf, 5, sg_buf, 40, sg_buf, sg_tag, 16);
    rc |= F(decrypt_cached)(&sg_ctx, &sg_cache, sg_iv, sizeof sg_iv, sg_buf, 5, sg_buf, 40, sg_tag, 16, sg_buf);
    rc |= F(start_cached)(&sg_stream, &sg_ctx, &sg_cache, sg_iv, sizeof sg_iv, 0);
    rc |= F(update)(&sg_stream, sg_buf, 33, sg_buf);
    rc |= F(finish)(&sg_stream, sg_tag, 16);
    F(face_cache_wipe)(&sg_cache);
#endif
    F(wipe)(&sg_ctx);
    sg_status = rc;
}
