"""Counter mode with AESE/AESMC: ``{p}_ctr_pairs(rk, out, cb, in, npairs)``, out = in ^ E(counter
blocks), npairs >= 1 pairs of blocks (the glue's call shape, gen/modes/gcm + gcm_glue.c.j2).

The trick: the counter blocks are made in NEON registers. The first counter block, byte-swapped
per 32-bit word (REV32), holds the counter as an integer in lane 3, so inc32 (SP 800-38D's
32-bit increment, modulo 2^32) is one vector ADD of (0, 0, 0, 1), and REV32 gives the block
back; no general-register round trip per block. The loop does `unroll` blocks per step (4 or
8, a generator choice), their rounds interleaved step by step with AESE/AESMC pairs kept
adjacent; leftover pairs go two blocks at a time. The loop count and addresses depend on
npairs and the pointers only, never on data. At the end the two counters of cb are advanced
(block 0 gets the next counter, block 1 the one after).
"""
from __future__ import annotations

from gen.kernels.armv8 import aes
from gen.kernels.armv8.asm import counted_loop, function

VCTR, VONE, VZERO = "v31", "v12", "v13"


def block_group(n: int, nr: int, eor3: bool) -> list[str]:
    """n blocks v0..v(n-1) from the counter, encrypted and XORed into the message (x3 -> x1)."""
    body = []
    for i in range(n):
        body += [f"rev32 v{i}.16b, {VCTR}.16b", f"add {VCTR}.4s, {VCTR}.4s, {VONE}.4s"]
    streams = [aes.block_rounds(f"v{i}", nr) for i in range(n)]
    if eor3:                   # the last AddRoundKey and the message XOR in one EOR3
        streams = [s[:-1] for s in streams]
    body += aes.interleave(streams)
    for g in range(0, n, 4):
        k = min(4, n - g)
        pt = ", ".join(f"v{8 + i}.16b" for i in range(k))
        ct = ", ".join(f"v{g + i}.16b" for i in range(k))
        body.append(f"ld1 {{{pt}}}, [x3], #{16 * k}")
        for i in range(k):
            if eor3:
                body.append(f"eor3 v{g + i}.16b, v{g + i}.16b, v{8 + i}.16b, {aes.rk(nr)}.16b")
            else:
                body.append(f"eor v{g + i}.16b, v{g + i}.16b, v{8 + i}.16b")
        body.append(f"st1 {{{ct}}}, [x1], #{16 * k}")
    return body


def ctr_pairs(prefix: str, keybits: int, unroll: int = 8, eor3: bool = False) -> str:
    if unroll not in (4, 8):
        raise ValueError(f"ctr unroll must be 4 or 8 blocks (got {unroll})")
    nr = aes.rounds_of(keybits)
    per = unroll // 2                       # pairs per loop step
    body = aes.load_round_keys(nr, "x0")
    body += [f"ld1 {{{VCTR}.16b}}, [x2]", f"rev32 {VCTR}.16b, {VCTR}.16b",
             f"movi {VZERO}.16b, #0", "mov w10, #1", f"fmov s{VONE[1:]}, w10",
             f"ext {VONE}.16b, {VZERO}.16b, {VONE}.16b, #4"]          # (0, 0, 0, 1)
    body += counted_loop("x4", per, block_group(unroll, nr, eor3), 1, block_group(2, nr, eor3))
    body += [f"umov w10, {VCTR}.s[3]", "rev w11, w10", "str w11, [x2, #12]",
             "add w10, w10, #1", "rev w11, w10", "str w11, [x2, #28]"]
    name = f"{prefix}_ctr_pairs"
    return function(f"void {name}(const uint32_t *rk, uint8_t *out, uint8_t *cb, const uint8_t *in, size_t n)",
                    name, body,
                    f"/* {name}: AES-{keybits} counter mode over n pairs of blocks, {unroll} blocks per loop step,\n"
                    f" * counters by a vector ADD on the REV32 form (gen/kernels/armv8/ctr.py) */", clear=12)
