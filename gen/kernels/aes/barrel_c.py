"""The C around the barrel-shiftrows AES kernel (gen/kernels/aes/barrel.py) in the RV32 GCM drops:
its key schedule and the loops that feed it eight blocks at a time.

* ``keyschedule_c``: FIPS-197 key expansion (section 5.2) with a constant-time SubWord (the S-box
  circuit of gen/circuits/aes_sbox.py evaluated on the four bytes of a word at once, bit k of every
  byte in one word: no table, no secret index), then the round keys in the kernel's layout
  (``barrel.round_key_words``): round j's row r bit i becomes a word whose byte c is 0xff or 0,
  ``x = (row >> i) & 0x01010101; (x << 8) - x`` (x * 255: each byte 0 or 1 makes 0 or 0xff).
* ``loops_c``: ``aes_encrypt_pairs`` (ECB) and ``ctr_pairs`` (counter mode, XOR fused) over n pairs:
  four pairs at a time through the 8-block kernel, the last 0-3 pairs through the 2-block fixsliced
  kernel (cheaper below 8 blocks: docs/riscv.md).  The counts are public; no branch or address
  depends on key or data (the alignment test reads the buffers' addresses only).
"""
from __future__ import annotations

from gen.circuits import aes_sbox
from gen.kernels.aes import barrel

ROUNDS = barrel.ROUNDS


def subword_c(prefix: str, circuit: str = aes_sbox.DEFAULT) -> str:
    """``{prefix}_bsr_subword(w)``: the S-box on each byte of w, bitsliced across the bytes."""
    gates = aes_sbox.gates((), circuit)
    names = sorted({g[0] for g in gates} - set(aes_sbox.OUTPUTS))
    lines = [f"static uint32_t {prefix}_bsr_subword(uint32_t w)", "{",
             "    const uint32_t m = 0x01010101u;",
             "    uint32_t " + ", ".join(f"x{i} = (w >> {7 - i}) & m" for i in range(8)) + ";",
             "    uint32_t " + ", ".join(names + list(aes_sbox.OUTPUTS)) + ";"]
    for dst, op, a, b in gates:
        expr = {"xor": f"{a} ^ {b}", "and": f"{a} & {b}", "xnor": f"{a} ^ {b} ^ m"}[op]
        lines.append(f"    {dst} = {expr};")
    lines.append("    return " + " | ".join(f"(s{i} << {7 - i})" for i in range(8)) + ";")
    return "\n".join(lines) + "\n}\n"


def keyschedule_c(prefix: str, keybits: int) -> str:
    """``{prefix}_bsr_keyschedule(rk, key)``: ``barrel.rk_words(nr)`` words."""
    nr = barrel.check_keybits(keybits)
    nk = keybits // 32
    n = 4 * (nr + 1)
    ones = aes_sbox.NOT_MASK * 0x01010101
    return subword_c(prefix) + f"""
/* AES-{keybits} round keys for {prefix}_aes_encrypt8: FIPS-197 5.2, then rounds 1..{nr - 1} spread
 * to 32 words each (byte c of word 8r + i: bit i of byte (r, c), XOR 0x63, as 0xff or 0) and rounds
 * 0 and {nr} as 4 column words (round {nr} XOR 0x63 in every byte). */
static void {prefix}_bsr_keyschedule(uint32_t *rk, const uint8_t *key)
{{
    uint32_t w[{n}], t, row, x, rc = 1u;
    volatile uint32_t *vw = w, *vrk = rk;   /* volatile: no loop becomes a memcpy/memset call */
    unsigned i, j, r, c;
    for (i = 0; i < {nk}u; i++)
        w[i] = (uint32_t)key[4 * i] | (uint32_t)key[4 * i + 1] << 8 | (uint32_t)key[4 * i + 2] << 16
               | (uint32_t)key[4 * i + 3] << 24;
    for (i = {nk}u; i < {n}u; i++) {{     /* every branch and index: i only */
        t = w[i - 1];
        if (i % {nk}u == 0u) {{
            t = {prefix}_bsr_subword((t >> 8) | (t << 24)) ^ rc;
            rc = (rc << 1) ^ ((rc >> 7) * 0x11bu);
        }}{f''' else if (i % {nk}u == 4u) {{
            t = {prefix}_bsr_subword(t);
        }}''' if nk > 6 else ''}
        w[i] = w[i - {nk}] ^ t;
    }}
    for (c = 0; c < 4u; c++) {{
        vrk[c] = w[c];
        vrk[{4 + 32 * (nr - 1)} + c] = w[{4 * nr} + c] ^ {ones:#010x}u;
    }}
    for (j = 1; j < {nr}u; j++)
        for (r = 0; r < 4u; r++) {{
            row = 0;
            for (c = 0; c < 4u; c++) row |= ((w[4 * j + c] >> (8 * r)) & 0xffu) << (8 * c);
            row ^= {ones:#010x}u;
            for (i = 0; i < 8u; i++) {{
                x = (row >> i) & 0x01010101u;
                rk[4 + 32 * (j - 1) + 8 * r + i] = (x << 8) - x;
            }}
        }}
    for (i = 0; i < {n}u; i++) vw[i] = 0u;
}}
"""


def loops_c(prefix: str, fs_words: int) -> str:
    """``{prefix}_aes_encrypt_pairs`` and ``{prefix}_ctr_pairs`` (KernelSet.encrypt_pairs,
    ctr_pairs): rk holds the fixsliced round keys (``fs_words``), then the barrel ones."""
    p = prefix
    return f"""
/* n8 >= 1 runs of eight blocks through the 8-block kernel; not inlined, so that its buffer for
 * unaligned blocks does not weigh on the frame of the short path. */
static __attribute__((__noinline__)) void {p}_bsr_ecb8(const uint32_t *rk, uint8_t *out, const uint8_t *in,
                                                       size_t n8)
{{
    for (; n8; n8--, in += 128, out += 128) {p}_aes_encrypt8(rk, out, in);
}}

/* ECB over n >= 1 pairs: four pairs at a time through the 8-block kernel, then the 2-block one. */
static void {p}_aes_encrypt_pairs(const uint32_t *rk, uint8_t *out, const uint8_t *in, size_t n)
{{
    if (n >= 4u) {{
        {p}_bsr_ecb8(rk + {fs_words}, out, in, n / 4u);
        in += 128 * (n / 4u);
        out += 128 * (n / 4u);
        n &= 3u;
    }}
    for (; n; n--, in += 32, out += 32) {p}_aes_encrypt2(rk, out, in);
}}

typedef uint32_t {p}_bsr_word __attribute__((__may_alias__));

/* out = in ^ ks over nbytes (a multiple of 4); ks: aligned words; word by word when in and out
 * are aligned (their addresses: public), else byte by byte. */
static void {p}_bsr_xor(uint8_t *out, const uint8_t *in, const uint32_t *ks, unsigned nbytes)
{{
    const uint8_t *kb = (const uint8_t *)ks;
    unsigned i;
    if ((((uintptr_t)out | (uintptr_t)in) & 3u) == 0u) {{
        for (i = 0; i < nbytes / 4u; i++)
            (({p}_bsr_word *)(void *)out)[i] = ((const {p}_bsr_word *)(const void *)in)[i] ^ ks[i];
        return;
    }}
    for (i = 0; i < nbytes; i++) out[i] = (uint8_t)(in[i] ^ kb[i]);
}}

static uint32_t {p}_bsr_bswap(uint32_t v)
{{
    return (v >> 24) | ((v >> 8) & 0xff00u) | ((v << 8) & 0xff0000u) | (v << 24);
}}

/* Counter mode over n >= 1 pairs of blocks (the counter blocks cb[0..15], cb[16..31] share their
 * first 12 bytes; their big-endian counters are ctr and ctr + 1): out = in ^ keystream (out may be
 * in); cb is left at the next two counters.  Four pairs at a time through the 8-block kernel on
 * eight counter blocks built in an aligned buffer, then the 2-block kernel. */
static void {p}_ctr_pairs(const uint32_t *rk, uint8_t *out, uint8_t *cb, const uint8_t *in, size_t n)
{{
    uint32_t blk[32], c0, c1, c2, ctr;
    volatile uint32_t *vb = blk;
    unsigned k;
    ctr = (uint32_t)cb[12] << 24 | (uint32_t)cb[13] << 16 | (uint32_t)cb[14] << 8 | cb[15];
    c0 = (uint32_t)cb[0] | (uint32_t)cb[1] << 8 | (uint32_t)cb[2] << 16 | (uint32_t)cb[3] << 24;
    c1 = (uint32_t)cb[4] | (uint32_t)cb[5] << 8 | (uint32_t)cb[6] << 16 | (uint32_t)cb[7] << 24;
    c2 = (uint32_t)cb[8] | (uint32_t)cb[9] << 8 | (uint32_t)cb[10] << 16 | (uint32_t)cb[11] << 24;
    for (; n >= 4u; n -= 4u, in += 128, out += 128, ctr += 8u) {{
        for (k = 0; k < 8u; k++) {{
            blk[4 * k] = c0; blk[4 * k + 1] = c1; blk[4 * k + 2] = c2;
            blk[4 * k + 3] = {p}_bsr_bswap(ctr + k);
        }}
        {p}_aes_encrypt8_rv32(rk + {fs_words}, blk, blk);
        {p}_bsr_xor(out, in, blk, 128u);
    }}
    for (; n; n--, in += 32, out += 32, ctr += 2u) {{
        for (k = 0; k < 2u; k++) {{
            blk[4 * k] = c0; blk[4 * k + 1] = c1; blk[4 * k + 2] = c2;
            blk[4 * k + 3] = {p}_bsr_bswap(ctr + k);
        }}
        {p}_aes_encrypt2_rv32(rk, blk + 8, blk);
        {p}_bsr_xor(out, in, blk + 8, 32u);
    }}
    for (k = 0; k < 2u; k++) {{
        cb[16 * k + 12] = (uint8_t)((ctr + k) >> 24); cb[16 * k + 13] = (uint8_t)((ctr + k) >> 16);
        cb[16 * k + 14] = (uint8_t)((ctr + k) >> 8); cb[16 * k + 15] = (uint8_t)(ctr + k);
    }}
    for (k = 0; k < 32u; k++) vb[k] = 0u;
}}
"""
