"""The stitched GCM decrypt kernel (``[armv8] decrypt = "single-pass"``, issue 35):
``{p}_ctr_ghash_dec_pairs(rk, out, cb, in, npairs, hk, y, tab)``: counter mode over npairs pairs
of blocks AND GHASH of the ciphertext it reads, y = (...((y ^ c_1) H ^ c_2) H ...) H, in one loop.

The trick: the encrypt kernel (stitched.py) must hash group k - 1 while it encrypts group k (the
ciphertext it hashes is its own output), so it needs a prologue and an epilogue; decrypt hashes
its input, which is there from the start, so each loop step hashes the ciphertext of the very
group it decrypts (read through x8, a second pointer into `in`): the same
instruction mix per step as encrypt (its loop costs the same), no pipeline fill or drain. Each
group's GHASH loads are dealt among its AES rounds, before the group's stores, so in == out
works. The groups, the round-1 table, the spread and the registers are stitched.py's.
Branches: the pair count and (with the table, 96-bit IVs only) the public counter.
"""
from __future__ import annotations

from gen.kernels.armv8 import aes, stitched


def ctr_ghash_dec_pairs(prefix: str, keybits: int, unroll: int = 8, method: str = "karatsuba",
                        spread: str = "even", eor3: bool = False, sched: str = "",
                        form: tuple = stitched.PLAIN) -> str:
    if unroll not in (4, 8) or spread not in stitched.SPREADS:
        raise ValueError(f"stitched decrypt kernel: unroll 4 or 8, spread one of {stitched.SPREADS} "
                         f"(got {unroll}, {spread})")
    nr = aes.rounds_of(keybits)
    hi = stitched.G["hi"]
    body = aes.load_round_keys(nr, "x0")
    body += [f"ld1 {{{stitched.VCTR}.16b}}, [x2]", f"rev32 {stitched.VCTR}.16b, {stitched.VCTR}.16b",
             "ldr w12, [x2, #12]", "rev w12, w12", f"ld1 {{{hi}.16b}}, [x6]", f"rev64 {hi}.16b, {hi}.16b",
             "mov x8, x3"] + stitched.RUN_INIT
    body += pairs_loop(nr, unroll, method, spread, eor3, form)
    return stitched.kernel_text(f"{prefix}_ctr_ghash_dec_pairs", body, keybits, unroll, method, spread, eor3, sched,
                                read=True)


def pairs_loop(nr: int, unroll: int, method: str, spread: str, eor3: bool,
               form: tuple = stitched.PLAIN) -> list[str]:
    """The decrypt's work on x4 pairs (counter in w12, y in hi, x8 = x3, RUN_INIT done), from the
    first count check to a branch to label ``5:``: groups of `unroll` blocks in a loop, then the
    k < unroll / 2 pairs left as one group (also open96.py's loop); `form`: the encrypt loop's
    GHASH form (choose.choose_ghash_form: blocks paired, the reduction constant hoisted)."""
    per = unroll // 2
    c = stitched.hoist_c(nr) if form[1] else None
    body = stitched.c_setup(c) + [f"cmp x4, #{per}", "b.lo 2f", "1:"]
    body += loop_body_of(unroll, nr, method, spread, eor3, form[0], c)
    body += [f"sub x4, x4, #{per}", f"cmp x4, #{per}", "b.hs 1b", "2:"]
    # the k < per pairs left (a public count): one straight-line group each, hashing itself
    body += [x for k in range(per - 1, 0, -1) for x in (f"cmp x4, #{k}", f"b.eq {30 + k}f")] + ["b 5f"]
    for k in range(per - 1, 0, -1):
        body += [f"{30 + k}:"] + loop_body_of(2 * k, nr, method, spread, eor3, frozenset(range(2 * k)), c) + ["b 5f"]
    return body


def loop_body_of(n: int, nr: int, method: str, spread: str, eor3: bool, pairs: frozenset = frozenset(),
                 c: str | None = None) -> list[str]:
    """One group of n blocks: the table when it applies, else the plain group, hashing the n
    ciphertext blocks at x8 while they are decrypted (`pairs`, `c`: stitched.ghash_group)."""
    return stitched.group(n, nr, stitched.ghash_group(n, method, eor3, c=c, pairs=pairs), spread, eor3)
