/* The little libc Mbed TLS's GCM, AES and block-cipher files need in the emulator's firmware
 * (linked -nostdlib): byte-loop mem* functions, and mbedtls_platform_zeroize
 * (MBEDTLS_PLATFORM_ZEROIZE_ALT: Mbed TLS's own keeps a function pointer in .data, which the
 * emulator does not load). Both builds measured by emu/bench/mbedtls.py link the same copy.
 * The files are compiled hosted (as firmware with newlib is), so gcc inlines Mbed TLS's small
 * fixed-size memcpy calls (its unaligned loads) as a real build would; these loops must then not
 * be turned back into calls of themselves. */
#include <stddef.h>

#define SG_NO_LIBCALL __attribute__((optimize("no-tree-loop-distribute-patterns")))

void *memcpy(void *d, const void *s, size_t n);
void *memmove(void *d, const void *s, size_t n);
void *memset(void *d, int c, size_t n);
int memcmp(const void *x, const void *y, size_t n);
void mbedtls_platform_zeroize(void *buf, size_t len);

SG_NO_LIBCALL void *memcpy(void *d, const void *s, size_t n)
{
    unsigned char *a = d;
    const unsigned char *b = s;
    while (n--) *a++ = *b++;
    return d;
}

SG_NO_LIBCALL void *memmove(void *d, const void *s, size_t n)
{
    unsigned char *a = d;
    const unsigned char *b = s;
    if (a < b) {
        while (n--) *a++ = *b++;
    } else {
        while (n--) a[n] = b[n];
    }
    return d;
}

SG_NO_LIBCALL void *memset(void *d, int c, size_t n)
{
    unsigned char *a = d;
    while (n--) *a++ = (unsigned char)c;
    return d;
}

SG_NO_LIBCALL int memcmp(const void *x, const void *y, size_t n)
{
    const unsigned char *a = x, *b = y;
    for (; n; n--, a++, b++)
        if (*a != *b) return *a - *b;
    return 0;
}

void mbedtls_platform_zeroize(void *buf, size_t len)
{
    volatile unsigned char *p = buf;
    while (len--) *p++ = 0;
}
