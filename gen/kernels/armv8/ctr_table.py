"""``{p}_ctr_table(tab, rk)``: the first AES round of a counter block as a table of its low byte.

The trick (the A-class form of FACE, after Park and Lee's "FACE: fast AES CTR mode encryption
techniques based on the reuse of repetitive data", CHES 2018): with a 96-bit IV, counter blocks
differ only in byte 15, so after round 1 they differ by T(v) ^ T(v'), T(v) =
MixColumns(SubBytes(0, 0, 0, v ^ k15)); init fills 256 words (1 KiB).  Safe only where the
counter is public: the glue passes it for 96-bit IVs only.  The derivation and the fill:
docs/internals/armv8.md.
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
