/* Mbed TLS user config for `make mbedtls-check` (MBEDTLS_USER_CONFIG_FILE): GCM comes from the
 * generated adapter (gcm_alt.h/.c over slicegen drops). The drops are AES only: Camellia and
 * ARIA are left out, so their GCM cases are skipped by Mbed TLS's own dependency check. */
#define MBEDTLS_GCM_ALT
#undef MBEDTLS_CAMELLIA_C
#undef MBEDTLS_ARIA_C
/* the cipher layer's PSA variants of the GCM cases (test_suite_cipher.gcm "... PSA") need it */
#define MBEDTLS_USE_PSA_CRYPTO
