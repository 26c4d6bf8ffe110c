/* The PSA driver's one-shot encrypt as the cycle comparison calls it (emu/bench/psa_driver.py):
 * the key attributes a PSA core would pass (AES, the key's bits), PSA_ALG_GCM, a 96-bit nonce, no
 * AAD; the ciphertext and its 16-byte tag at out. Built with -DSG_DRIVER_H and -DSG_ENCRYPT. */
#include "psa/crypto.h"
#include SG_DRIVER_H

int sg_psa_bench_encrypt(const uint8_t *key, size_t keylen, const uint8_t *iv, const uint8_t *in, size_t n,
                         uint8_t *out);

int sg_psa_bench_encrypt(const uint8_t *key, size_t keylen, const uint8_t *iv, const uint8_t *in, size_t n,
                         uint8_t *out)
{
    psa_key_attributes_t a = psa_key_attributes_init();
    size_t len = 0;
    psa_set_key_type(&a, PSA_KEY_TYPE_AES);
    psa_set_key_bits(&a, keylen * 8u);
    return (int) SG_ENCRYPT(&a, key, keylen, PSA_ALG_GCM, iv, 12, NULL, 0, in, n, out, n + 16u, &len);
}
