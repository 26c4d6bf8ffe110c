/* The Mbed TLS config of the cycle comparison (emu/bench/mbedtls.py): AES and GCM only (GCM then
 * sits on the block-cipher module, no cipher layer); MBEDTLS_GCM_ALT is added by -D for the
 * adapter's build. Mbed TLS's defaults otherwise: table AES (tables made at setkey), 4-bit GHASH. */
#define MBEDTLS_AES_C
#define MBEDTLS_GCM_C
#define MBEDTLS_PLATFORM_ZEROIZE_ALT
