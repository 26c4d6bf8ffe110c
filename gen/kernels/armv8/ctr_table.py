"""``{p}_ctr_table(tab, rk)``: the first AES round of a counter block as a table of its low byte.

The trick (the A-class form of FACE, gen/kernels/face/, after Park and Lee's "FACE: fast AES CTR
mode encryption techniques based on the reuse of repetitive data", CHES 2018): counter blocks
with a 96-bit IV differ only in byte 15 until it carries into byte 14. AESE sends byte 15 to row
3 of column 0 (ShiftRows), SubBytes acts on it alone and AESMC mixes only column 0, so after round
1 two such blocks differ only in bytes 0..3, by T(v) ^ T(v'), with

    T(v) = MixColumns(SubBytes(0, 0, 0, v ^ k15))   (bytes 0..3; k15 = byte 15 of round key 0)

(the constant S(0) = 0x63 the three other rows contribute cancels in T(v) ^ T(v')). T depends on
the key only, so init fills all 256 words (1 KiB, in the ctx). The kernels then run round 1 once
per run of 256 counters (for its block with low byte 0: the run's base, stitched.run_base) and get
every block's round-1 state from one word load (round 2's AESE XORs it with base ^ round key 1):
17 AES instructions a block instead of 19 on the pipe that limits the A72 and N1 models. Safe
only where the counter is public (the word index is its low byte): the glue passes the table for
96-bit IVs only (J0 = IV || 1); otherwise J0 = GHASH(IV) depends on H.

Filling: one AESE (zero key) + AESMC makes four entries: the input's bytes 15, 3, 7, 11 (which
ShiftRows moves to row 3 of columns 0, 1, 2, 3) hold 4j ^ k15, 4j+1 ^ k15, 4j+2 ^ k15,
4j+3 ^ k15, the rest zero; column c of the result is T(4j + c). 64 steps, no branch but the count.
"""
from __future__ import annotations

from gen.kernels.armv8.asm import function

WORDS = 256


def ctr_table(prefix: str) -> str:
    body = ["ldr q1, [x1]", "umov w9, v1.b[15]", "lsl w9, w9, #24", "dup v1.4s, w9",      # k15 << 24
            "movi v2.16b, #0",                                                          # the zero key
            "mov w10, #0x01000000", "mov v3.s[0], w10", "mov w10, #0x02000000", "mov v3.s[1], w10",
            "mov w10, #0x03000000", "mov v3.s[2], w10", "mov v3.s[3], wzr",            # (1, 2, 3, 0) << 24
            "mov w10, #0x04000000", "dup v4.4s, w10", "mov x11, #64",
            "1:", "eor v0.16b, v3.16b, v1.16b", "aese v0.16b, v2.16b", "aesmc v0.16b, v0.16b",
            "st1 {v0.16b}, [x0], #16", "add v3.4s, v3.4s, v4.4s", "subs x11, x11, #1", "b.ne 1b",
            "mov w9, #0", "ret"]                      # v0-v4: function() wipes them
    name = f"{prefix}_ctr_table"
    return function(f"void {name}(uint32_t *tab, const uint32_t *rk)", name, body,
                    f"/* {name}: round 1 of a counter block as a table of its low byte, 256 words (key only;\n"
                    f" * gen/kernels/armv8/ctr_table.py) */")
