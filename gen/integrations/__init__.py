"""Glue that puts drops inside other libraries (today: Mbed TLS 3.6's MBEDTLS_GCM_ALT in mbedtls,
PSA Crypto transparent-driver AEAD entry points in psa_driver)."""
