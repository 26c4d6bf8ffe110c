/* Rijndael with a 256-bit block and a 256-bit key (Nb = Nk = 8, 14 rounds), written from the
 * specification (Daemen & Rijmen, The Design of Rijndael; AES Proposal: Rijndael): the oracle of
 * the Rijndael-256 fuzz target. Byte k of a block is row k mod 4, column k div 4; ShiftRows turns
 * row r left by 0, 1, 3, 4 columns (Nb = 8); the S-box is computed (inverse in GF(2^8), then the
 * affine map), not copied. Slow and plain: not constant-time, not for use. */
#ifndef SG_REF_RIJNDAEL256_H
#define SG_REF_RIJNDAEL256_H

#include <stdint.h>

static uint8_t sg_r_xtime(uint8_t a)
{
    return (uint8_t)((a << 1) ^ ((a >> 7) * 0x1b));
}

static uint8_t sg_r_mul(uint8_t a, uint8_t b)
{
    uint8_t r = 0;
    while (b) {
        if (b & 1) r ^= a;
        a = sg_r_xtime(a);
        b >>= 1;
    }
    return r;
}

static uint8_t sg_r_sbox(uint8_t x)
{
    uint8_t inv = 0, y;
    int i;
    for (i = 1; i < 256 && x; i++)       /* the inverse (0 maps to 0) */
        if (sg_r_mul(x, (uint8_t)i) == 1) { inv = (uint8_t)i; break; }
    y = inv;
    for (i = 1; i < 5; i++) y ^= (uint8_t)((inv << i) | (inv >> (8 - i)));   /* affine: b ^ rotations 1..4 */
    return (uint8_t)(y ^ 0x63);
}

typedef struct {
    uint8_t rk[15][32];                  /* round keys 0..14, in block byte order */
    uint8_t sbox[256];
} sg_rijndael256;

static void sg_rijndael256_init(sg_rijndael256 *r, const uint8_t key[32])
{
    static uint8_t sbox[256], made;      /* computed once: it is slow */
    uint8_t w[120][4], t[4], rcon = 1, tmp;
    int i, j;
    for (i = 0; !made && i < 256; i++) sbox[i] = sg_r_sbox((uint8_t)i);
    made = 1;
    for (i = 0; i < 256; i++) r->sbox[i] = sbox[i];
    for (i = 0; i < 8; i++)
        for (j = 0; j < 4; j++) w[i][j] = key[4 * i + j];
    for (i = 8; i < 120; i++) {           /* Nk = 8: SubWord(RotWord) every 8 words, SubWord at i mod 8 = 4 */
        for (j = 0; j < 4; j++) t[j] = w[i - 1][j];
        if (i % 8 == 0) {
            tmp = t[0]; t[0] = t[1]; t[1] = t[2]; t[2] = t[3]; t[3] = tmp;
            for (j = 0; j < 4; j++) t[j] = r->sbox[t[j]];
            t[0] ^= rcon;
            rcon = sg_r_xtime(rcon);
        } else if (i % 8 == 4) {
            for (j = 0; j < 4; j++) t[j] = r->sbox[t[j]];
        }
        for (j = 0; j < 4; j++) w[i][j] = (uint8_t)(w[i - 8][j] ^ t[j]);
    }
    for (i = 0; i < 15; i++)
        for (j = 0; j < 32; j++) r->rk[i][j] = w[8 * i + j / 4][j % 4];
}

static void sg_rijndael256_encrypt(const sg_rijndael256 *r, uint8_t out[32], const uint8_t in[32])
{
    static const int shift[4] = {0, 1, 3, 4};
    uint8_t s[32], u[32], a0, a1, a2, a3;
    int round, c, row;
    for (c = 0; c < 32; c++) s[c] = (uint8_t)(in[c] ^ r->rk[0][c]);
    for (round = 1; round <= 14; round++) {
        for (c = 0; c < 32; c++) s[c] = r->sbox[s[c]];
        for (c = 0; c < 8; c++)           /* ShiftRows: row r of column c comes from column c + shift */
            for (row = 0; row < 4; row++) u[4 * c + row] = s[4 * ((c + shift[row]) % 8) + row];
        if (round < 14)
            for (c = 0; c < 8; c++) {     /* MixColumns: the circulant (2 3 1 1) */
                a0 = u[4 * c]; a1 = u[4 * c + 1]; a2 = u[4 * c + 2]; a3 = u[4 * c + 3];
                u[4 * c] = (uint8_t)(sg_r_mul(a0, 2) ^ sg_r_mul(a1, 3) ^ a2 ^ a3);
                u[4 * c + 1] = (uint8_t)(a0 ^ sg_r_mul(a1, 2) ^ sg_r_mul(a2, 3) ^ a3);
                u[4 * c + 2] = (uint8_t)(a0 ^ a1 ^ sg_r_mul(a2, 2) ^ sg_r_mul(a3, 3));
                u[4 * c + 3] = (uint8_t)(sg_r_mul(a0, 3) ^ a1 ^ a2 ^ sg_r_mul(a3, 2));
            }
        for (c = 0; c < 32; c++) s[c] = (uint8_t)(u[c] ^ r->rk[round][c]);
    }
    for (c = 0; c < 32; c++) out[c] = s[c];
}

#endif
