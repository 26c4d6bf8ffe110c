"""Cortex-M4 ctmul GHASH, one Karatsuba product slot over a whole group with cross-block chains
(issue 34, part 6; the FACE r2 speed drops' groups of 16 and 8).

The trick: ``thumb2._product`` keeps the four y-side classes a_0..a_3 in registers and sums the
classes one after another in one shared accumulator pair, so each class is masked and XORed
into the result R once per block (4 instructions) and class 1 needs a second accumulator D.
Here the multiplies run y-class by y-class instead ("j-major": t = x & m_j, then the four
products a_j * b_(c - j) of the four output classes), which needs only x and t on the y side
and frees two registers: each output class gets a register pair of its own that lives across
every block of the group.  A class's chain then never ends at a block boundary: the products of
block i + 1 are added (UMLAL) on top of those of block i, with a class mask of one or both words
wherever the worst-case field bound would otherwise pass 15.  ``holes.cross_chain`` picks those
masks by dynamic programming over the proven field bounds (the same bounds as the within-block
chains, ``holes.chain_bounds``); the y-class order is the one with the fewest masks.  Once per
product slot and group the four pairs are masked and XORed together (14 instructions) and stored.

Per block and product slot (loads 7 cycles, 4 ANDs and 16 multiplies either way) the classes
cost 93-108 masks over 16 blocks each (388 in all, 24.25 a block) against 26 masks and XORs a
block for the per-block chains; the slot's end costs 10 instructions more.  Registers: x lr,
t r12 (first hk's address), b_0..b_3 r4-r7, the class pairs r0:r1, r2:r3, r8:r9, r10:r11.
"""
from __future__ import annotations

import functools
import itertools
from typing import Tuple

from . import model as M
from .asm import Asm, imm
from .holes import chain_start, chain_step, cross_chain, layer_cost

X_REG, T_REG = "lr", "r12"
B_REGS = ("r4", "r5", "r6", "r7")
CLASS_PAIRS = (("r0", "r1"), ("r2", "r3"), ("r8", "r9"), ("r10", "r11"))
#: the smallest group that takes cross-block chains: the slot's end costs 10 instructions more
#: than the per-block chains' (x 9 slots), which a group of 4 does not win back
MIN_BLOCKS = 4


#: sequences of per-block orders the search keeps after each block (4: the 16-block search
#: reaches 374 masks, every class's own optimum; 4, 8 and 16 blocks ~2 s together; 1 or 2 keep 381)
BEAM = 4


@functools.lru_cache(maxsize=None)
def best_orders(blocks: int) -> Tuple[Tuple[int, ...], ...]:
    """The y-class order of each block: a beam search over per-block orders (24 a block),
    scoring a sequence by the fewest masks each class needs so far (``holes.chain_step``), the
    ``BEAM`` best kept; the first in order among equals.  The masks themselves come from
    ``holes.cross_chain`` on the result."""
    S = M.HOLE_STRIDE
    beams = [((), [chain_start(c) for c in range(S)])]
    for b in range(blocks):
        cand = []
        for seq, layers in beams:
            for order in itertools.permutations(range(S)):
                nl = []
                for c in range(S):
                    lay = layers[c]
                    for p, j in enumerate(order):
                        lay = chain_step(c, lay, (j, (c - j) % S), first=b == 0 and p == 0)
                    nl.append(lay)
                cand.append((sum(layer_cost(l) for l in nl), seq + (order,), nl))
        cand.sort(key=lambda t: (t[0], t[1]))
        beams = [(seq, nl) for _, seq, nl in cand[:BEAM]]
    return beams[0][0]


def masks_per_slot(blocks: int) -> int:
    """Mask instructions of one product slot over ``blocks`` blocks (all classes, before the end)."""
    orders = best_orders(blocks)
    return sum(cross_chain(c, orders)[0] for c in range(M.HOLE_STRIDE))


def product_slot(a: Asm, sp_hk: int, x_offs, hk_offs, p_off: int, what: str) -> None:
    """Product slot over one group: sum over blocks i of clmul(x_i, b_i), x_i the word at
    sp + x_offs[i], b_i's classes at hk + hk_offs[i] (hk's address at sp + sp_hk); the 64-bit
    result stored at sp + p_off."""
    S = M.HOLE_STRIDE
    g = len(x_offs)
    orders = best_orders(g)
    plans = [cross_chain(c, orders)[1] for c in range(S)]
    for i, (x_off, hk_off, order) in enumerate(zip(x_offs, hk_offs, orders)):
        a.comment(f"{what}, block {i} of {g}: y classes in the order {order}")
        a.op("ldr", T_REG, f"[sp, #{sp_hk}]")
        a.op("ldr", X_REG, f"[sp, #{x_off}]")
        for c in range(S):
            a.op("ldr", B_REGS[c], f"[{T_REG}, #{hk_off + 4 * c}]")
        for p, j in enumerate(order):
            aj = X_REG if p == S - 1 else T_REG
            a.op("and", aj, X_REG, imm(M.HOLE_MASKS32[j]))
            for c in range(S):
                idx = S * i + p
                lo, hi = CLASS_PAIRS[c]
                if idx:
                    for w in plans[c][idx - 1]:
                        r = CLASS_PAIRS[c][w]
                        a.op("and", r, r, imm(M.HOLE_MASKS32[c]))
                a.op("umlal" if idx else "umull", lo, hi, aj, B_REGS[(c - j) % S])
    a.comment(f"{what}: the classes masked and merged")
    for c in range(S):
        for r in CLASS_PAIRS[c]:
            a.op("and", r, r, imm(M.HOLE_MASKS32[c]))
    r0 = CLASS_PAIRS[0]
    for c in range(1, S):
        for w in range(2):
            a.op("eor", r0[w], r0[w], CLASS_PAIRS[c][w])
    a.op("strd", r0[0], r0[1], f"[sp, #{p_off}]")


def slot_model(xs, bs) -> int:
    """Python twin of ``product_slot``: the 64-bit value it stores for y-side words ``xs`` and
    H-side words ``bs`` (one per block), computed with the same masks and 64-bit sums."""
    S = M.HOLE_STRIDE
    g = len(xs)
    orders = best_orders(g)
    plans = [cross_chain(c, orders)[1] for c in range(S)]
    acc = [0] * S
    for i, (x, b, order) in enumerate(zip(xs, bs, orders)):
        bc = [b & m for m in M.HOLE_MASKS32]
        for p, j in enumerate(order):
            aj = x & M.HOLE_MASKS32[j]
            for c in range(S):
                idx = S * i + p
                if idx:
                    for w in plans[c][idx - 1]:
                        acc[c] &= M.HOLE_MASKS64[c] | (0xFFFFFFFF << (32 * (1 - w)))
                acc[c] = (acc[c] + aj * bc[(c - j) % S]) & M.MASK64
    r = 0
    for c in range(S):
        r ^= acc[c] & M.HOLE_MASKS64[c]
    return r
