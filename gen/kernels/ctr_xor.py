"""XOR of 32 bytes of keystream into a message: `{prefix}_xor32(out, in, ks)`, portable C.

The portable target's GCM glue calls it once per pair of blocks on its counter-mode fast path.
`in` and `out` may be unaligned (and equal); `ks` is the stream's keystream buffer. A byte
loop: portable C cannot load a word from an unaligned byte pointer without a libc call or
undefined behaviour. (The Thumb-2 targets XOR inside the AES kernel instead:
gen/kernels/aes/ctr_thumb2.py.)
"""
from __future__ import annotations


def c(prefix: str) -> str:
    return (f"static void {prefix}_xor32(uint8_t *out, const uint8_t *in, const uint8_t *ks)\n"
            "{\n    unsigned i;\n    for (i = 0; i < 32u; i++) out[i] = (uint8_t)(in[i] ^ ks[i]);\n}\n")
