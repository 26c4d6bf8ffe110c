"""Counter mode with AESE/AESMC: ``{p}_ctr_pairs(rk, out, cb, in, npairs, tab)``, out = in ^ E(counter
blocks), npairs >= 1 pairs of blocks (the glue's call shape, gen/modes/gcm + gcm_glue.c.j2): decrypt's
counter mode (after the tag check) and the encrypt path's pieces that cannot be stitched.

It is the stitched kernel's groups (stitched.py) with no GHASH dealt into them: `unroll` blocks
per loop step, their rounds interleaved step by step with AESE/AESMC pairs kept adjacent; the
counter in w12 and in lane 3 of the REV32 form of the counter block, inc32 (SP 800-38D's 32-bit
increment, modulo 2^32) a vector ADD; with `tab` (96-bit IVs, ctr_table.py) round 1 of a group's
blocks 1..n-1 from the table while the group stays in its low-byte run. Leftover pairs (fewer
than unroll / 2) take one straight-line group per count. The loop count, the branches and the
addresses depend on npairs, the pointers and (with `tab`, where it is public) the counter only.
At the end the two counters of cb are advanced (block 0 the next counter, block 1 the one after).
"""
from __future__ import annotations

from gen.kernels.armv8 import aes, stitched
from gen.kernels.armv8.asm import function


def premix_regs(nr: int) -> tuple[str, ...]:
    """The vector registers free in ctr_pairs for premixed message blocks (stitched.aes_group):
    v8-v14 (GHASH's in the stitched kernel, unused here) and those above the round keys but
    below v31 (the counter block)."""
    return tuple(f"v{i}" for i in (*range(8, 15), *range(aes.RK_BASE + nr + 1, 31)))


def ctr_pairs(prefix: str, keybits: int, unroll: int = 8, eor3: bool = False, sched: str = "") -> str:
    if unroll not in (4, 8):
        raise ValueError(f"ctr unroll must be 4 or 8 blocks (got {unroll})")
    nr = aes.rounds_of(keybits)
    per = unroll // 2                       # pairs per loop step
    vctr = stitched.VCTR
    # round keys 0 and 1 and the counter block first: the first group's run base needs them
    body = [f"ldp q{aes.RK_BASE}, q{aes.RK_BASE + 1}, [x0]"]
    body += [f"ld1 {{{vctr}.16b}}, [x2]", f"rev32 {vctr}.16b, {vctr}.16b", "ldr w12, [x2, #12]", "rev w12, w12",
             "mov x7, x5", *stitched.RUN_INIT] + aes.load_round_keys_from(nr, "x0", 2)
    body += [f"cmp x4, #{per}", "b.lo 2f", "1:"]
    body += stitched.group(unroll, nr, [], "even", eor3, premix_regs(nr))
    body += [f"sub x4, x4, #{per}", f"cmp x4, #{per}", "b.hs 1b", "2:"]
    body += [x for k in range(per - 1, 0, -1) for x in (f"cmp x4, #{k}", f"b.eq {30 + k}f")] + ["b 5f"]
    for k in range(per - 1, 0, -1):
        body += [f"{30 + k}:"] + stitched.group(2 * k, nr, [], "even", eor3, premix_regs(nr)) + ["b 5f"]
    body += ["5:", "rev w11, w12", "str w11, [x2, #12]", "add w10, w12, #1", "rev w11, w10", "str w11, [x2, #28]"]
    name = f"{prefix}_ctr_pairs"
    return function(f"void {name}(const uint32_t *rk, uint8_t *out, uint8_t *cb, const uint8_t *in, size_t n, "
                    f"const uint32_t *tab)", name, body,
                    f"/* {name}: AES-{keybits} counter mode over n pairs of blocks, {unroll} blocks per loop step,\n"
                    f" * round 1 from the table for 96-bit IVs (gen/kernels/armv8/ctr.py){' scheduled for ' + sched if sched else ''} */", framed=True,
                    sched=sched)


def loop_body(unroll: int, nr: int, eor3: bool, cached: bool = True) -> list[str]:
    """One step of the loop (for the cost model)."""
    return stitched.aes_group(unroll, nr, [], "even", eor3, cached, premix_regs(nr))
