/* Mbed TLS user config for the PSA driver check (emu/checks/psa_driver.py, MBEDTLS_USER_CONFIG_FILE).
 * Mbed TLS's own GCM stays (no MBEDTLS_GCM_ALT): it is the built-in the driver is compared with,
 * and what the core falls back to when the driver declines (multi-part AEAD, Camellia/ARIA-GCM,
 * CCM, ChaCha20-Poly1305). The cipher layer's PSA variants of the GCM cases need USE_PSA_CRYPTO. */
#define MBEDTLS_USE_PSA_CRYPTO
