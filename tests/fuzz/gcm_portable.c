/* libFuzzer target: the portable AES-GCM drops (AES-128, -192 and -256 in one program: the input
 * picks the key size) against OpenSSL's libcrypto. The input also picks the operation (one-shot or
 * streaming encrypt/decrypt, ECB, GHASH), the IV length (12 bytes mostly, else 1..128 (OpenSSL's limit), or 0), the
 * tag length (allowed or not), the AAD and message lengths, the stream's split, in place or not,
 * the buffers' misalignment and a tampered bit. A divergence aborts with the case on stderr.
 * Built by tests/fuzz/targets.py with -DSG_H128/-DSG_H192/-DSG_H256 (the headers' paths). */
#include <stdint.h>
#include <stddef.h>
#define AES128GCM_PORTABLE_IMPLEMENTATION
#define AES192GCM_PORTABLE_IMPLEMENTATION
#define AES256GCM_PORTABLE_IMPLEMENTATION
#include SG_H128
#include SG_H192
#include SG_H256
#include "gcm_case.h"
#include "ghash_ref.h"

#define SG_CAT_(a, b) a##_##b
#define SG_CAT(a, b) SG_CAT_(a, b)

#define SG_P aes128gcm_portable
#include "gcm_body.h"
#undef SG_P
#define SG_P aes192gcm_portable
#include "gcm_body.h"
#undef SG_P
#define SG_P aes256gcm_portable
#include "gcm_body.h"
#undef SG_P

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sg_case c;
    sg_case_decode(&c, data, size);
    if (c.keylen == 16u) aes128gcm_portable_fz_run(&c);
    else if (c.keylen == 24u) aes192gcm_portable_fz_run(&c);
    else aes256gcm_portable_fz_run(&c);
    sg_heap_free(&c.heap);
    return 0;
}
