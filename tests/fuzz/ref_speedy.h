/* SPEEDY-r-192 (Leander, Moos, Moradi, Rasoolzadeh, TCHES 2021/4), bit by bit from the
 * specification as shared/vectors/README.md states it: the oracle of the SPEEDY fuzz target.
 * State bit p = 6 i + j is row i (0..31), column j (0..5); bit 0 is the MSB of byte 0; kept as
 * 32 rows of 6 bits, column 0 the MSB (the S-box input's). Rounds
 * 0..r-2: add k_r, SB, SC, SB, SC, MC, add c_r; the last: add k_{r-1}, SB, SC, SB, add k_r.
 * k_0 = K, next key new[p] = old[(7 p + 1) mod 192]. c_r: the r-th 192-bit chunk of pi's
 * hexadecimal digits after the point, computed here digit by digit (Bailey-Borwein-Plouffe), not
 * copied. Slow and plain: not constant-time, not for use. */
#ifndef SG_REF_SPEEDY_H
#define SG_REF_SPEEDY_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#define SG_SP_BITS 192

static const uint8_t sg_speedy_sbox[64] = {
    0x08, 0x00, 0x09, 0x03, 0x38, 0x10, 0x29, 0x13, 0x0C, 0x0D, 0x04, 0x07, 0x30, 0x01, 0x20, 0x23,
    0x1A, 0x12, 0x18, 0x32, 0x3E, 0x16, 0x2C, 0x36, 0x1C, 0x1D, 0x14, 0x37, 0x34, 0x05, 0x24, 0x27,
    0x02, 0x06, 0x0B, 0x0F, 0x33, 0x17, 0x21, 0x15, 0x0A, 0x1B, 0x0E, 0x1F, 0x31, 0x11, 0x25, 0x35,
    0x22, 0x26, 0x2A, 0x2E, 0x3A, 0x1E, 0x28, 0x3C, 0x2B, 0x3B, 0x2F, 0x3F, 0x39, 0x19, 0x2D, 0x3D};

/* frac(sum_k 16^(n-k) / (8 k + j)) */
static double sg_bbp_series(int j, int n)
{
    double s = 0.0, t;
    int k;
    for (k = 0; k <= n; k++) {
        uint64_t m = 8u * (uint64_t)k + (uint64_t)j, r = 1, b = 16 % m, e = (uint64_t)(n - k);
        for (; e; e >>= 1, b = b * b % m)
            if (e & 1) r = r * b % m;
        s += (double)r / (double)m;
        s -= floor(s);
    }
    for (k = n + 1; (t = pow(16.0, (double)(n - k)) / (8.0 * k + j)) > 1e-17; k++) s += t;
    return s - floor(s);
}

/* hexadecimal digit n (0-based) of pi after the point */
static unsigned sg_pi_hex(int n)
{
    double x = 4.0 * sg_bbp_series(1, n) - 2.0 * sg_bbp_series(4, n) - sg_bbp_series(5, n) - sg_bbp_series(6, n);
    x -= floor(x);
    return (unsigned)(16.0 * x);
}

typedef struct {
    int rounds;
    uint8_t k[8][32];                    /* k_0 .. k_r by rows: row i = bits 6 i .. 6 i + 5, column 0 the MSB */
    uint8_t c[7][32];                    /* c_0 .. c_{r-2} by rows */
} sg_speedy;

/* 192 bits (one a byte) -> 32 rows of 6 bits */
static void sg_sp_rows(uint8_t rows[32], const uint8_t *bits)
{
    int i, j;
    for (i = 0; i < 32; i++)
        for (rows[i] = 0, j = 0; j < 6; j++) rows[i] = (uint8_t)((rows[i] << 1) | bits[6 * i + j]);
}

static void sg_speedy_init(sg_speedy *s, int rounds, const uint8_t key[24])
{
    static uint8_t c[6][32], made;
    uint8_t k[2][SG_SP_BITS], bits[SG_SP_BITS];
    int r, p;
    if (!made)                           /* computed once: it is slow */
        for (r = 0; r < 6; r++) {
            for (p = 0; p < SG_SP_BITS; p += 4) {
                unsigned d = sg_pi_hex(48 * r + p / 4);
                bits[p] = (uint8_t)(d >> 3); bits[p + 1] = (uint8_t)((d >> 2) & 1);
                bits[p + 2] = (uint8_t)((d >> 1) & 1); bits[p + 3] = (uint8_t)(d & 1);
            }
            sg_sp_rows(c[r], bits);
        }
    made = 1;
    s->rounds = rounds;
    for (r = 0; r + 1 < rounds; r++) memcpy(s->c[r], c[r], 32);
    for (p = 0; p < SG_SP_BITS; p++) k[0][p] = (uint8_t)((key[p / 8] >> (7 - p % 8)) & 1);
    sg_sp_rows(s->k[0], k[0]);
    for (r = 1; r <= rounds; r++) {      /* new[p] = old[(7 p + 1) mod 192] */
        for (p = 0; p < SG_SP_BITS; p++) k[r & 1][p] = k[(r - 1) & 1][(7 * p + 1) % SG_SP_BITS];
        sg_sp_rows(s->k[r], k[r & 1]);
    }
}

static void sg_sp_add(uint8_t *x, const uint8_t *k)
{
    int i;
    for (i = 0; i < 32; i++) x[i] ^= k[i];
}

static void sg_sp_sb(uint8_t *x)
{
    int i;
    for (i = 0; i < 32; i++) x[i] = sg_speedy_sbox[x[i]];
}

/* SC: y[i, j] = x[i + j mod 32, j]; column j is bit 5 - j of a row */
static void sg_sp_sc(uint8_t *x)
{
    uint8_t y[32];
    int i, j;
    for (i = 0; i < 32; i++)
        for (y[i] = 0, j = 0; j < 6; j++) y[i] |= (uint8_t)(x[(i + j) % 32] & (0x20u >> j));
    memcpy(x, y, 32);
}

/* MC: y[i, j] = XOR of x[i + a mod 32, j]: the same for every column, so whole rows */
static void sg_sp_mc(uint8_t *x)
{
    static const int a[7] = {0, 1, 5, 9, 15, 21, 26};
    uint8_t y[32];
    int i, t;
    for (i = 0; i < 32; i++)
        for (y[i] = 0, t = 0; t < 7; t++) y[i] ^= x[(i + a[t]) % 32];
    memcpy(x, y, 32);
}

static void sg_speedy_encrypt(const sg_speedy *s, uint8_t out[24], const uint8_t in[24])
{
    uint8_t x[32], bits[SG_SP_BITS];
    int r, p;
    for (p = 0; p < SG_SP_BITS; p++) bits[p] = (uint8_t)((in[p / 8] >> (7 - p % 8)) & 1);
    sg_sp_rows(x, bits);
    for (r = 0; r < s->rounds; r++) {
        sg_sp_add(x, s->k[r]);
        sg_sp_sb(x);
        sg_sp_sc(x);
        sg_sp_sb(x);
        if (r + 1 < s->rounds) {
            sg_sp_sc(x);
            sg_sp_mc(x);
            sg_sp_add(x, s->c[r]);
        } else {
            sg_sp_add(x, s->k[r + 1]);
        }
    }
    for (p = 0; p < 24; p++) out[p] = 0;
    for (p = 0; p < SG_SP_BITS; p++) out[p / 8] |= (uint8_t)(((x[p / 6] >> (5 - p % 6)) & 1) << (7 - p % 8));
}

#endif
