/* The fuzz targets' plain references (tests/fuzz/ref_*.h) on known answers: each line of stdin is
 * "rijndael256 KEYHEX PTHEX" or "speedyR KEYHEX PTHEX"; each line of stdout the ciphertext in hex.
 * tests/test_fuzz.py feeds it gen/ciphers/data's vectors (published by the designers). */
#include <stdio.h>
#include <string.h>
#include "ref_rijndael256.h"
#include "ref_speedy.h"

static int unhex(const char *h, uint8_t *b, size_t n)
{
    size_t i;
    unsigned v;
    if (strlen(h) != 2 * n) return -1;
    for (i = 0; i < n; i++) {
        if (sscanf(h + 2 * i, "%2x", &v) != 1) return -1;
        b[i] = (uint8_t)v;
    }
    return 0;
}

int main(void)
{
    char name[32], kh[80], ph[80];
    uint8_t key[32], pt[32], ct[32];
    size_t n, i;
    static sg_rijndael256 r;
    static sg_speedy s;
    while (scanf("%31s %79s %79s", name, kh, ph) == 3) {
        if (strcmp(name, "rijndael256") == 0) {
            n = 32;
            if (unhex(kh, key, n) || unhex(ph, pt, n)) return 2;
            sg_rijndael256_init(&r, key);
            sg_rijndael256_encrypt(&r, ct, pt);
        } else if (strncmp(name, "speedy", 6) == 0) {
            n = 24;
            if (unhex(kh, key, n) || unhex(ph, pt, n)) return 2;
            sg_speedy_init(&s, name[6] - '0', key);
            sg_speedy_encrypt(&s, ct, pt);
        } else {
            return 2;
        }
        for (i = 0; i < n; i++) printf("%02X", ct[i]);
        printf("\n");
    }
    return 0;
}
