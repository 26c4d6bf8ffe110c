"""GHASH in generated Thumb-2 for Cortex-M4 / Cortex-M3: ``thumb2(prefix, impl, core)``.

impl 'ctmul' (constant time) is generated here; 'table4' and 'table8' (not constant time) come
from :mod:`gen.kernels.ghash.tables`.  Defines ``{prefix}_ghash_init(hk, h)`` (C) and
``{prefix}_ghash_blocks(hk, y, in, nblocks)`` (asm), y = (y ^ x_i) * H, unaligned y and in.
ctmul follows :mod:`gen.kernels.ghash.model`: Karatsuba with the H side precomputed per class;
M4 sums each class with UMULL/UMLAL in masked chains (``best_chain``, proven by worst-case field
bounds; in the groups of 4+ blocks of the group-8/16 kernels chained across the blocks,
``m4_cross``); M3 uses only MUL and RBIT; aggregated reduction over ``GROUP_BLOCKS`` (and one tail
group of ``TAIL_GROUP`` blocks).  Loop counts depend on nblocks only.  The chains, the register
budget and the reduction: docs/internals/ghash.md.
"""
from __future__ import annotations

import functools
import itertools
from typing import Dict, List, Sequence, Tuple

from . import model as M
from .holes import HOLE_BITS, HOLE_LIMIT, MASK_COST, chain_bounds, chain_fits, profile as _profile  # noqa: F401
from . import m4_cross
from .asm import Asm, GhashCode, c_asm_function, count_down, imm, push_regs, reduce_clmul, store_y_and_return

IMPLS = ("ctmul", "table4", "table8")
CORES = ("cortex-m4", "cortex-m3")

# --------------------------------------------------------------------------- hole groups

def hole_groups(c: int, allow_add: bool) -> List[List[Tuple[int, int]]]:
    """Products (j, k) of output class c, grouped: products of a group are ADDED (UMLAL),
    groups are XORed.  Greedy: each product joins the first group it fits in (``chain_fits``
    of that group alone: its worst-case sum stays <= 15 in every field)."""
    groups: List[List[Tuple[int, int]]] = []
    for j in range(M.HOLE_STRIDE):
        prod = (j, (c - j) % M.HOLE_STRIDE)
        for g in groups:
            if allow_add and chain_fits(c, [g + [prod]], []):
                g.append(prod)
                break
        else:
            groups.append([prod])
    return groups


def bmul32_grouped(a: int, b: int) -> int:
    """Python twin of the M4 product code (grouped adds, then XOR): 63-bit clmul."""
    a_c = [a & m for m in M.HOLE_MASKS32]
    b_c = [b & m for m in M.HOLE_MASKS32]
    r = 0
    for c in range(M.HOLE_STRIDE):
        acc = 0
        for g in hole_groups(c, True):
            acc ^= sum(a_c[j] * b_c[k] for j, k in g) & M.MASK64
        r |= acc & M.HOLE_MASKS64[c]
    return r


# --------------------------------------------------------------------------- init (C)

#: blocks per group (aggregated reduction): the default per core, and what hk holds
#: (M4: 8 rather than 4 saves ~1 c/B at 4 KB; costs hk 1152 bytes instead of 576, init
#: ~6550 cycles instead of ~2940 and ~8 KB more code)
GROUP_BLOCKS = {"cortex-m4": 8, "cortex-m3": 4}
#: blocks per group -> the one smaller group the tail takes first when that many blocks remain
#: (issue 34: short messages; the rest go one at a time). A group costs a fixed recombination
#: and reduction plus a share per block, so 4 tail blocks as one group of H^4..H^1 save about
#: 3 of those fixed parts: AES-GCM @64 B (4 blocks) about 450 cycles on the M4. Followed down
#: (``tail_chain``): a group of 16 (the FACE r2 speed drops on the M4) takes 8, then 4
TAIL_GROUP = {8: 4, 16: 8}
#: the largest group ``thumb2`` builds besides 1..8 (the operands of every block of a group sit in
#: the frame: 16 blocks ~500 cycles a block against ~525 in groups of 8, hk 2,304 bytes, init
#: ~13,100 cycles, ~57 KB of code; docs/internals/ghash.md)
MAX_GROUP = 16
#: kernels (by group size) whose groups of ``m4_cross.MIN_BLOCKS`` blocks or more use cross-block
#: chains on the M4 (issue 34, part 6: the FACE r2 speed drops; docs/internals/ghash.md)
CROSS_KERNELS = frozenset({8, 16})


def hk_per_power(core: str) -> int:
    """hk words for one power of H: 4 hole classes of each Karatsuba H-side operand
    (and, on M3, of its bit reversal)."""
    n = len(M.karatsuba_plan(4).operands)
    return M.HOLE_STRIDE * n * (1 if core == "cortex-m4" else 2)


def _straight_copy(dst: str, src: str, n: int, per_line: int = 8) -> List[str]:
    """``dst[i] = src[i]`` for i < n as straight-line C statements, ``per_line`` to a line."""
    stmts = [f"{dst}[{i}] = {src}[{i}];" for i in range(n)]
    return ["    " + " ".join(stmts[k:k + per_line]) for k in range(0, n, per_line)]


def _init_c(prefix: str, rev: bool, group: int) -> str:
    """C init: P_e = H^e for e = 1..group, each replaced by P_e * x^-1 and cut into
    Karatsuba operands and hole classes; power e starts at word (e - 1) * per_power of hk.

    H^2..H^group come from the generated ``{prefix}_ghash_blocks`` itself: power 1 is cut
    first, and one block with y = P_(e-1), data = 0 gives P_(e-1) * H.  A call of one block
    takes the single-block tail path, which reads only the H^1 words of hk (the group
    path needs at least ``group`` blocks), so the half-filled hk is enough.  The multiply
    is the constant-time kernel; the rest is straight-line masking (no branch, no address
    depending on H)."""
    plan = M.karatsuba_plan(4)
    n = len(plan.operands)
    per = M.HOLE_STRIDE * n * (2 if rev else 1)
    L = [f"static void {prefix}_ghash_init(uint32_t *hk, const uint8_t h[16])", "{",
         f"    uint32_t v[4], op[{n}], zero[4];", "    uint8_t y[16];", "    unsigned i, e;",
         "    /* straight-line, not a loop: a loop of plain copies or zero stores is what compilers",
         "       turn into memcpy/memset calls (gcc -Os without -ffreestanding), which a drop must not make */",
         *_straight_copy("y", "h", 16),
         "    zero[0] = 0u; zero[1] = 0u; zero[2] = 0u; zero[3] = 0u;",
         f"    for (e = 1; e <= {group}; e++) {{",
         "        uint32_t *o = hk + (e - 1) * " + str(per) + "u;",
         "        if (e > 1)    /* y = y * H: one block through the H^1 words (tail path) */",
         f"            {prefix}_ghash_blocks(hk, y, (const uint8_t *)zero, 1);",
         "        for (i = 0; i < 4; i++) {",
         "            const uint8_t *p = y + 12 - 4 * i;",
         "            v[i] = ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | (uint32_t)p[3];",
         "        }",
         "        /* P' = P * x^-1, so the unshifted 255-bit product reduces to X * P (see header) */",
         "        {",
         "            uint32_t t = 0u - (v[3] >> 31);",
         f"            v[3] ^= 0x{M.R_CONST >> 96:08X}u & t;",
         "            for (i = 3; i > 0; i--)",
         "                v[i] = (v[i] << 1) | (v[i - 1] >> 31);",
         "            v[0] = (v[0] << 1) | (t & 1u);",
         "        }"]
    L.append("        /* Karatsuba operands cut into hole classes, straight-line (unrolled by the generator) */")
    S = M.HOLE_STRIDE
    for k, o in enumerate(plan.operands):
        L.append(f"        op[{k}] = {' ^ '.join(f'v[{i}]' for i in sorted(o))};")
        for c in range(S):
            L.append(f"        o[{S * k + c}] = op[{k}] & 0x{M.HOLE_MASKS32[c]:08X}u;")
    if rev:
        L.append("        /* bit-reversed operands: reverse the 4 words (swaps, no table), then the same")
        L.append("           XOR sums (reversal is linear over XOR) */")
        L.append("        for (i = 0; i < 4; i++) {")
        L.append("            uint32_t r = __builtin_bswap32(v[i]);    /* REV: bytes reversed */")
        for sh, m in ((1, 0x55555555), (2, 0x33333333), (4, 0x0F0F0F0F)):
            L.append(f"            r = ((r & 0x{m:08X}u) << {sh}) | ((r >> {sh}) & 0x{m:08X}u);")
        L.append("            v[i] = r;")
        L.append("        }")
        for k, o in enumerate(plan.operands):
            L.append(f"        op[{k}] = {' ^ '.join(f'v[{i}]' for i in sorted(o))};")
            for c in range(S):
                L.append(f"        o[{S * n + S * k + c}] = op[{k}] & 0x{M.HOLE_MASKS32[c]:08X}u;")
    L.append("    }")
    L.append("}")
    return "\n".join(L) + "\n"


# --------------------------------------------------------------------------- blocks (asm)

class _Frame:
    """Stack frame of the ctmul kernel (byte offsets from sp)."""

    def __init__(self, n_ops: int, n_prod: int, group: int):
        self.n_ops = n_ops
        self.X = 0                              # y-side Karatsuba operands, n_ops words per block
        self.P = 4 * n_ops * group              # products, (lo, hi) per plan product
        self.HK = self.P + 8 * n_prod
        self.Y, self.IN, self.N = self.HK + 4, self.HK + 8, self.HK + 12
        self.size = (self.N + 4 + 7) // 8 * 8   # keeps sp 8-byte aligned (10 regs pushed)

    def op(self, block: int, k: int) -> int:
        return self.X + 4 * (self.n_ops * block + k)


Y_REGS = ("r9", "r10", "r11", "r12")            # y (words 0..3, word 0 least significant)


Chain = Tuple[int, List[List[Tuple[int, int]]], List[Tuple[int, ...]]]

def best_chain(c: int) -> Tuple[int, List[List[Tuple[int, int]]], List[Tuple[int, ...]]]:
    """(mask instructions, groups, masks) of the cheapest chain of class c: every order of
    its four products, every cut into groups, every choice of masked words between groups
    (none, lo, hi, both), checked with ``chain_bounds``.  Deterministic: the first cheapest
    in itertools order.  The final mask (both words, before the XOR into R) is not counted."""
    prods = [(j, (c - j) % M.HOLE_STRIDE) for j in range(M.HOLE_STRIDE)]
    best = None
    for perm in itertools.permutations(prods):
        for cuts in itertools.product((0, 1), repeat=len(prods) - 1):
            groups = [[perm[0]]]
            for prod, cut in zip(perm[1:], cuts):
                if cut:
                    groups.append([prod])
                else:
                    groups[-1].append(prod)
            for masks in itertools.product(tuple(MASK_COST), repeat=len(groups) - 1):
                cost = sum(MASK_COST[m] for m in masks)
                if (best is None or cost < best[0]) and chain_fits(c, groups, masks):
                    best = (cost, groups, list(masks))
    if best is None:
        raise AssertionError(f"class {c} cannot be chained")
    return best


@functools.lru_cache(maxsize=None)
def m4_class_plan() -> Tuple[List[Chain], Tuple[int, List[List[Tuple[int, int]]]]]:
    """M4 schedule of the four output classes of one product: ``(chains, deferred)``.

    A *chain* class is summed in one 64-bit register pair by UMULL/UMLAL only: its first
    group is multiplied in, then the pair is masked to the class in one or both words, the
    next group is ADDED (UMLAL) on top, and so on (``best_chain``: the masks are only where
    a field could otherwise overflow; a field in a masked word holds its parity, 0 or 1).
    No temporary pair is needed; the chain ends with a mask of both words and an XOR into
    R.  The class whose chain saves least against XORing its groups (class 1: two groups
    of count 15, a 3-instruction chain against 2 XORs) is *deferred*: its groups are XORed
    unmasked into an accumulator that lives across the blocks of a group and is masked
    once per product and group."""
    plans = {c: best_chain(c) for c in range(M.HOLE_STRIDE)}
    xor_groups = {c: hole_groups(c, allow_add=True) for c in range(M.HOLE_STRIDE)}
    # per block: a chain costs its masks + 4 (final mask, XOR into R); deferred, 2 per group
    gain = {c: plans[c][0] + 4 - 2 * len(xor_groups[c]) for c in plans}
    dc = max(sorted(plans), key=lambda c: gain[c])
    chains = [(c, plans[c][1], plans[c][2]) for c in sorted(plans) if c != dc]
    return chains, (dc, xor_groups[dc])


def bmul32_chained(xs: Sequence[int], bs: Sequence[int]) -> int:
    """Python twin of the M4 group code for one product slot: sum over blocks i of
    clmul(xs[i], bs[i]), computed the way the generated code does (chains per block and
    class, masked and XORed into R; the deferred class XORed unmasked, masked at the end)."""
    chains, (dc, dgroups) = m4_class_plan()
    r, d = 0, 0
    for x, b in zip(xs, bs):
        a_c = [x & m for m in M.HOLE_MASKS32]
        b_c = [b & m for m in M.HOLE_MASKS32]
        for c, groups, masks in chains:
            acc = 0
            for gi, g in enumerate(groups):
                if gi:
                    for w in masks[gi - 1]:
                        acc &= M.HOLE_MASKS64[c] | (0xFFFFFFFF << (32 * (1 - w)))
                acc = (acc + sum(a_c[j] * b_c[k] for j, k in g)) & M.MASK64
            r ^= acc & M.HOLE_MASKS64[c]
        for g in dgroups:
            d ^= sum(a_c[j] * b_c[k] for j, k in g) & M.MASK64
    return r ^ (d & M.HOLE_MASKS64[dc])


A_REGS = ("r0", "r1", "r2", "r3")               # y-side classes a_0..a_3 (r3 first holds x)
B_REGS = ("r4", "r5", "r6", "r7")               # H-side classes b_0..b_3, loaded from hk
R_PAIR = ("r8", "r9")                           # M4: product result (all classes, masked)
ACC_PAIR = ("r10", "r11")                       # M4: chain accumulator (r10 first holds hk)
D_PAIR = ("r12", "lr")                          # M4: deferred class, unmasked, whole group


def _product(a: Asm, fr: _Frame, x_off: int, hk_off: int, first: bool, what: str) -> None:
    """M4: one 32x32 carry-less product (64 bits, UMULL/UMLAL) of the operand word at
    sp + x_off and the hk classes at hk + hk_off.  Chain classes (``m4_class_plan``) are
    masked and XORed into R = (r8, r9); the deferred class is XORed unmasked into
    D = (r12, lr).  ``first`` (block 0 of the group): the first chain runs in R itself and
    the first deferred group sets D.  All 14 registers are busy, so hk's address is
    reloaded each time (into the chain accumulator, free at that point)."""
    S = M.HOLE_STRIDE
    chains, (dc, dgroups) = m4_class_plan()
    a.comment(f"{what}{'' if first else ' (accumulated)'}")
    hk = ACC_PAIR[0]
    a.op("ldr", hk, f"[sp, #{fr.HK}]")
    a.op("ldr", "r3", f"[sp, #{x_off}]")
    for c in range(S):
        a.op("ldr", B_REGS[c], f"[{hk}, #{hk_off + 4 * c}]")
    for c in range(S):
        a.op("and", A_REGS[c], "r3", imm(M.HOLE_MASKS32[c]))

    def mul(dst, grp, add=False):
        for n, (j, kk) in enumerate(grp):
            a.op("umlal" if n or add else "umull", dst[0], dst[1], A_REGS[j], B_REGS[kk])

    for ci, (c, groups, masks) in enumerate(chains):
        dst = R_PAIR if (first and ci == 0) else ACC_PAIR
        for gi, grp in enumerate(groups):
            if gi:
                for w in masks[gi - 1]:
                    a.op("and", dst[w], dst[w], imm(M.HOLE_MASKS32[c]))
            mul(dst, grp, add=gi > 0)
        for w in range(2):
            a.op("and", dst[w], dst[w], imm(M.HOLE_MASKS32[c]))
        if dst is not R_PAIR:
            for w in range(2):
                a.op("eor", R_PAIR[w], R_PAIR[w], dst[w])
    for gi, grp in enumerate(dgroups):
        if first and gi == 0:
            mul(D_PAIR, grp)
            continue
        mul(ACC_PAIR, grp)
        for w in range(2):
            a.op("eor", D_PAIR[w], D_PAIR[w], ACC_PAIR[w])


def _finish_product_m4(a: Asm) -> None:
    """R ^= D & mask(deferred class): once per product slot and group."""
    _, (dc, _) = m4_class_plan()
    for w in range(2):
        a.op("and", D_PAIR[w], D_PAIR[w], imm(M.HOLE_MASKS32[dc]))
    for w in range(2):
        a.op("eor", R_PAIR[w], R_PAIR[w], D_PAIR[w])


CLASS_ACC = ("r8", "r9", "r10", "r11")           # M3: class accumulators, live across a group
M3_T, M3_HK = "r12", "lr"                       # M3: product temporary, hk base (whole group)


def _product_m3(a: Asm, x_off: int, hk_off: int, first: bool, what: str) -> None:
    """M3: the 16 MUL products of one 32x32 carry-less product (low half), XORed into the
    per-class accumulators CLASS_ACC unmasked (``first``: the first product of each class
    sets it).  Masking is linear, so the classes are masked and merged once per product
    slot and group (``_merge_classes_m3``), not once per block."""
    S = M.HOLE_STRIDE
    a.comment(f"{what}{' (sets the class accumulators)' if first else ''}")
    a.op("ldr", "r3", f"[sp, #{x_off}]")
    for c in range(S):
        a.op("ldr", B_REGS[c], f"[{M3_HK}, #{hk_off + 4 * c}]")
    for c in range(S):
        a.op("and", A_REGS[c], "r3", imm(M.HOLE_MASKS32[c]))
    for c in range(S):
        for j in range(S):
            kk = (c - j) % S
            if first and j == 0:
                a.op("mul", CLASS_ACC[c], A_REGS[j], B_REGS[kk])
            else:
                a.op("mul", M3_T, A_REGS[j], B_REGS[kk])
                a.op("eor", CLASS_ACC[c], CLASS_ACC[c], M3_T)


def _merge_classes_m3(a: Asm) -> str:
    """r8 = sum_c CLASS_ACC[c] & mask_c; returns r8."""
    for c in range(M.HOLE_STRIDE):
        a.op("and", CLASS_ACC[c], CLASS_ACC[c], imm(M.HOLE_MASKS32[c]))
    for c in range(1, M.HOLE_STRIDE):
        a.op("eor", CLASS_ACC[0], CLASS_ACC[0], CLASS_ACC[c])
    return CLASS_ACC[0]


def _operands(a: Asm, x: Sequence[str], plan: M.KaratsubaPlan) -> List[str]:
    """Karatsuba operands of the 4 x words into r0..r8 (plan order); x words already sit
    in the registers of the single-word operands.  Returns the register list."""
    regs = [f"r{i}" for i in range(len(plan.operands))]
    single = {next(iter(o)): regs[k] for k, o in enumerate(plan.operands) if len(o) == 1}
    if [single[i] for i in range(4)] != list(x):
        raise AssertionError("x words must sit in the single-word operand registers")
    done: Dict[frozenset, str] = {frozenset([i]): single[i] for i in range(4)}
    for k, o in enumerate(plan.operands):
        if len(o) == 1:
            continue
        # split o into two already computed operands (the plan builds sums of sums)
        for s1 in sorted(done, key=len, reverse=True):
            rest = o - s1
            if s1 < o and rest in done:
                a.op("eor", regs[k], done[s1], done[rest])
                break
        else:
            raise AssertionError(f"cannot build operand {sorted(o)}")
        done[o] = regs[k]
    return regs


def _recombine(a: Asm, fr: _Frame, plan: M.KaratsubaPlan) -> List[str]:
    """Karatsuba recombination of the 9 stored products into z0..z7 (registers).

    Level 1 (64-bit products L, H, M of a 64x64 split):
        q0 = l0, q1 = l1^l0^h0^m0, q2 = h0^l1^h1^m1, q3 = h1   (t = l1^h0 shared)
    Level 2 (128-bit Q0, Q1, Q2 of the 128x128 split):
        z0,z1 = q0,q1; z6,z7 = r2,r3; z2 = u0^q0^s0; z4 = u0^r2^s2; z3 = u1^q1^s1;
        z5 = u1^r3^s3 with u0 = q2^r0, u1 = q3^r1.
    The structure is checked symbolically against ``plan.result_word_sources`` below."""
    if len(plan.operands) != 9:
        raise AssertionError("the recombination network is written for the 2-level plan")

    def level1(g: int, regs: Sequence[str]) -> Tuple[str, str, str, str]:
        A_, B_, C_, D_, E_, F_ = regs                    # l0 l1 h0 h1 m0 m1
        for i, r in enumerate(regs):
            a.op("ldr", r, f"[sp, #{fr.P + 24 * g + 4 * i}]")
        a.op("eor", B_, B_, C_)                           # t = l1 ^ h0
        a.op("eor", E_, E_, A_)
        a.op("eor", E_, E_, B_)                           # q1
        a.op("eor", F_, F_, D_)
        a.op("eor", F_, F_, B_)                           # q2
        return A_, E_, F_, D_

    a.comment("Karatsuba recombination")
    q = level1(0, ("r0", "r1", "r2", "r3", "r4", "r5"))
    r = level1(1, ("r1", "r9", "r10", "r6", "r7", "r8"))
    a.op("eor", q[2], q[2], r[0])                         # u0
    a.op("eor", q[3], q[3], r[1])                         # u1
    u0, u1 = q[2], q[3]
    s = level1(2, ("r1", "r9", "r10", "r2", "r7", "lr"))
    a.op("eor", s[0], s[0], q[0]); a.op("eor", s[0], s[0], u0)      # z2
    a.op("eor", s[2], s[2], r[2]); a.op("eor", s[2], s[2], u0)      # z4
    a.op("eor", s[1], s[1], q[1]); a.op("eor", s[1], s[1], u1)      # z3
    a.op("eor", s[3], s[3], r[3]); a.op("eor", s[3], s[3], u1)      # z5
    return [q[0], q[1], s[0], s[1], s[2], s[3], r[2], r[3]]


def _check_recombination(plan: M.KaratsubaPlan) -> None:
    """Symbolic check: the hard-wired network above equals the plan's word sources."""
    P = [(f"p{k}l", f"p{k}h") for k in range(9)]

    def x(*t):
        out = frozenset()
        for s in t:
            out = out ^ (s if isinstance(s, frozenset) else frozenset([s]))
        return out

    def level1(g):
        l0, l1 = P[3 * g]; h0, h1 = P[3 * g + 1]; m0, m1 = P[3 * g + 2]
        return (x(l0), x(l1, l0, h0, m0), x(h0, l1, h1, m1), x(h1))
    q, r, s = level1(0), level1(1), level1(2)
    u0, u1 = x(q[2], r[0]), x(q[3], r[1])
    z = [q[0], q[1], x(u0, q[0], s[0]), x(u1, q[1], s[1]), x(u0, r[2], s[2]), x(u1, r[3], s[3]), r[2], r[3]]
    want = [frozenset(P[k][h] for k, h in srcs) for srcs in plan.result_word_sources()]
    if z != want:
        raise AssertionError("Karatsuba recombination network does not match the plan")


def h_prime(h: bytes) -> bytes:
    """H * x^-1, what init uses in place of H (x^-1 = x^127 + x^6 + x + 1): in GCM's
    reflected order times x^-1 is a left shift, folding R back in when x^0 is set."""
    hv = M.block_to_int(h)
    t = hv >> 127
    return M.int_to_block(((hv ^ (M.R_CONST if t else 0)) << 1) | t)


def _input(a: Asm, fr: _Frame, plan: M.KaratsubaPlan, g: int, wide: bool) -> None:
    """Load the g blocks of a group, x_0 = y ^ block_0, x_i = block_i; their Karatsuba
    operands (and on M3 those of the bit-reversed words) to the stack.  The operand sets
    are contiguous (block order, on M3 direct then reversed), so after block 0's direct
    set (at sp) one STM with write-back through ST_PTR stores each of them."""
    n = len(plan.operands)
    x = ("r0", "r1", "r3", "r4")
    st = Y_REGS[0]                  # free once y is folded into block 0
    if fr.X != 0 or fr.n_ops != n * (1 if wide else 2):
        raise AssertionError("operand sets must be contiguous from sp")
    a.op("ldr", "lr", f"[sp, #{fr.IN}]")
    for i in range(g):
        a.comment(f"block {i} of {g}: words, {'y ^ block, ' if i == 0 else ''}Karatsuba operands to the stack")
        for w in range(4):
            a.op("ldr", x[w], f"[lr, #{16 * i + 12 - 4 * w}]")
        for w in range(4):
            a.op("rev", x[w], x[w])
        if i == 0:
            for w in range(4):
                a.op("eor", x[w], x[w], Y_REGS[w])
            a.op("add", st, "sp", f"#{4 * n}")
        regs = _operands(a, x, plan)
        rl = "{" + f"{regs[0]}-{regs[-1]}" + "}"
        a.op("stm", "sp" if i == 0 else f"{st}!", rl)
        if not wide:
            a.comment("bit-reversed operands (rbit is linear over XOR)")
            for r in x:
                a.op("rbit", r, r)
            _operands(a, x, plan)
            a.op("stm", f"{st}!", rl)
    a.op("add", "lr", "lr", f"#{16 * g}")
    a.op("str", "lr", f"[sp, #{fr.IN}]")


def _group(a: Asm, fr: _Frame, plan: M.KaratsubaPlan, g: int, wide: bool, per: int,
           cross: bool = False) -> None:
    """y = sum_i x_i * H^(g - i), i = 0..g-1 (aggregated: one recombination and one
    reduction for the whole group).  ``cross`` (M4): each product slot with cross-block chains
    (``m4_cross``) instead of per-block chains."""
    n = len(plan.operands)
    S = M.HOLE_STRIDE
    _input(a, fr, plan, g, wide)
    if not wide:
        a.op("ldr", M3_HK, f"[sp, #{fr.HK}]")
    for k in range(n):
        if wide and cross:
            m4_cross.product_slot(a, fr.HK, [fr.op(i, k) for i in range(g)],
                                  [4 * ((g - i - 1) * per + S * k) for i in range(g)], fr.P + 8 * k,
                                  f"product {k}")
            continue
        if wide:
            for i in range(g):
                e = g - i
                _product(a, fr, fr.op(i, k), 4 * ((e - 1) * per + S * k), i == 0,
                         f"product {k}, block {i} x H^{e}")
            _finish_product_m4(a)
            a.op("strd", "r8", "r9", f"[sp, #{fr.P + 8 * k}]")
            continue
        for half, off in ((0, 0), (1, n)):
            for i in range(g):
                e = g - i
                _product_m3(a, fr.op(i, off + k), 4 * ((e - 1) * per + S * (off + k)), i == 0,
                            f"product {k}{' (bit-reversed half)' if half else ''}, block {i} x H^{e}")
            r = _merge_classes_m3(a)
            if half:
                a.comment("rbit is linear: one reversal for the sum of the group's reversed products")
                a.op("rbit", r, r)
                a.op("lsr", r, r, "#1")
            a.op("str", r, f"[sp, #{fr.P + 8 * k + 4 * half}]")
    z = _recombine(a, fr, plan)
    reduce_clmul(a, z, Y_REGS, "r3")


def _ctmul_blocks(prefix: str, core: str, group: int) -> Asm:
    """blocks: groups of ``group`` blocks while at least that many remain, then single
    blocks; all control flow depends on nblocks only."""
    plan = M.karatsuba_plan(4)
    _check_recombination(plan)
    n = len(plan.operands)
    wide = core == "cortex-m4"
    per = hk_per_power(core)
    fr = _Frame(n if wide else 2 * n, n, group)
    L = f".L{prefix}_gh"
    a = Asm()
    pushed = push_regs([f"r{i}" for i in range(4, 13)])
    a.op("push", "{" + ", ".join(pushed) + "}")
    a.op("sub", "sp", "sp", f"#{fr.size}")
    for reg, off in (("r0", fr.HK), ("r1", fr.Y), ("r2", fr.IN), ("r3", fr.N)):
        a.op("str", reg, f"[sp, #{off}]")
    a.comment("y: big-endian block -> words, y0 = bytes 12..15 (unaligned LDR is fine on ARMv7-M)")
    for w in range(4):
        a.op("ldr", Y_REGS[w], f"[r1, #{12 - 4 * w}]")
    for w in range(4):
        a.op("rev", Y_REGS[w], Y_REGS[w])
    if len(pushed) % 2:
        raise AssertionError("odd push breaks 8-byte stack alignment")
    if group in TAIL_GROUP:
        _blocks_with_tail_group(a, fr, plan, group, TAIL_GROUP[group], wide, per, L, pushed)
        return a
    if group > 1:
        a.op("cmp", "r3", f"#{group}")
        a.op("blo", f"{L}_tail")
        a.label(f"{L}_loop{group}")
        _group(a, fr, plan, group, wide, per)
        a.op("ldr", "r0", f"[sp, #{fr.N}]")
        a.op("sub", "r0", "r0", f"#{group}")
        a.op("str", "r0", f"[sp, #{fr.N}]")
        a.op("cmp", "r0", f"#{group}")
        a.op("bhs", f"{L}_loop{group}")
        a.label(f"{L}_tail")
        a.op("ldr", "r0", f"[sp, #{fr.N}]")
    a.op("cmp", "r0" if group > 1 else "r3", "#0")
    a.op("beq", f"{L}_end")
    a.label(f"{L}_loop1")
    _group(a, fr, plan, 1, wide, per)
    count_down(a, fr.N, f"{L}_loop1")
    a.label(f"{L}_end")
    store_y_and_return(a, fr.Y, Y_REGS, "r1", "r0", fr.size, pushed)
    return a


def tail_chain(group: int) -> tuple:
    """The tail groups of ``group``, largest first (``TAIL_GROUP`` followed down: 16 -> (8, 4))."""
    chain = []
    while group in TAIL_GROUP:
        group = TAIL_GROUP[group]
        chain.append(group)
    return tuple(chain)


def _blocks_with_tail_group(a: Asm, fr: _Frame, plan: M.KaratsubaPlan, group: int, tail: int, wide: bool,
                            per: int, L: str, pushed) -> None:
    """The block loops of ``_ctmul_blocks`` with tail groups: groups of ``group`` while that
    many blocks remain, then one group of each ``tail_chain(group)`` size (H^t..H^1) that still
    fits, largest first, then single blocks.  Laid out so that no call pays more dispatch than
    without the tail group for a count below the smallest whole group in the chain's head
    (``group`` without a chain of two, else the first tail) or a multiple of ``group`` (the
    benchmarks' 1, 4, 16, ..., 512 blocks): those counts fall through to the single-block loop
    with no taken branch (the check for the smallest tail included: 6 cycles of dispatch for one
    block, 8 before), the loops of whole groups and of the tail groups sit after the return, and
    each exit dispatches itself (a multiple of ``group``: 1 cycle more on entry, 1 less on exit).
    With two tails (16: 8 and 4, issue 34) the entry compares with the first tail: a count
    under it costs what it did with groups of 8, and the whole-group loop starts behind one
    more compare (2 cycles a call).  n is public."""
    tails = tail_chain(group)
    smallest = tails[-1]

    def dispatch(n: str, below: int, single_follows: bool) -> None:   # n blocks left, fewer than `below`
        a.op("cmp", n, "#0")
        a.op("beq", f"{L}_end")
        for t in tails:
            if t < below:
                a.op("cmp", n, f"#{t}")
                a.op("bhs", f"{L}_group{t}")
        if not single_follows:
            a.op("b", f"{L}_loop1")

    head = tails[0] if len(tails) > 1 else group
    a.op("cmp", "r3", f"#{head}")
    a.op("bhs", f"{L}_loop{group}" if head == group else f"{L}_entry{group}")
    dispatch("r3", head, True)
    a.label(f"{L}_loop1")
    _group(a, fr, plan, 1, wide, per)
    count_down(a, fr.N, f"{L}_loop1")
    a.label(f"{L}_end")
    store_y_and_return(a, fr.Y, Y_REGS, "r1", "r0", fr.size, pushed)
    if head != group:                                          # head <= n: a whole group, or the first tail
        a.label(f"{L}_entry{group}")
        a.op("cmp", "r3", f"#{group}")
        a.op("blo", f"{L}_group{head}")
    for g in (group, *tails):
        a.label(f"{L}_loop{g}" if g == group else f"{L}_group{g}")
        _group(a, fr, plan, g, wide, per, cross=wide and group in CROSS_KERNELS and g >= m4_cross.MIN_BLOCKS)
        a.op("ldr", "r0", f"[sp, #{fr.N}]")
        a.op("sub", "r0", "r0", f"#{g}")
        a.op("str", "r0", f"[sp, #{fr.N}]")
        if g == group:
            a.op("cmp", "r0", f"#{group}")
            a.op("bhs", f"{L}_loop{group}")
            dispatch("r0", group, False)
        elif g != smallest:                                    # fewer than g left
            dispatch("r0", g, False)
        else:                                                  # fewer than `tail` left
            a.op("cmp", "r0", "#0")
            a.op("beq", f"{L}_end")
            a.op("b", f"{L}_loop1")


_CTMUL_HEADER = """\
/*
 * GHASH, constant time ("ctmul"), Thumb-2 for {core}; generated by slicegen
 * (gen/kernels/ghash/thumb2.py).  y = (y ^ x_i) * H in GF(2^128) mod x^128+x^7+x^2+x+1,
 * GCM bit order (a block read as a big-endian integer has x^i at bit 127-i).
 *
 * Carry-less 32x32 products from integer multiplies on operands masked to every 4th bit
 * ("holes"): a product of two 8-bit classes has at most 8 partial products per bit, so
 * carries stay inside the 3 unused bits above each kept bit.  Class c of the carry-less
 * product collects a_j * b_(c-j mod 4): by XOR, or by addition where the worst-case
 * count of the sum still fits the hole (<= 15){pairs}.
 * Two-level Karatsuba: {nprod} word products per block.
 * Aggregated reduction: {group} blocks per group, y' = (y ^ x_0) H^{group} ^ x_1 H^{group_m1} ^ ... ^ x_last H.
 * Everything after the integer multiplies is linear over XOR, so the products of the
 * blocks of a group are XORed per Karatsuba product as they come out (registers), and
 * the Karatsuba recombination and the reduction run once per group.  {tail}
 * nblocks mod {group} blocks go one at a time (H^1).  init computes H^1..H^{group} and stores, for
 * each power, the H-side operands of all products cut into classes ({per} words per
 * power, {hk} words = {hkb} bytes in hk).  init stores P' = P * x^-1 instead of each power P:
 * the 255-bit carry-less product of reflected operands read as 256 bits is X * P' * x, so
 * no shift by one is needed before the reduction (shifted-operand EORs).
{core_note}
 *
 * No branch and no memory address depends on H, y or the data.
 */"""

_NOTE_M4 = """\
 * Cortex-M4: UMULL/UMLAL take one cycle whatever the operands (TRM DDI 0439, Table 3-1),
 * so the 64-bit products are constant time here.  Do NOT run this code on Cortex-M3.
 * Classes 0, 2, 3 are "masked chains": between groups the 64-bit sum is ANDed with the
 * class mask, in one or both words (a masked field holds its parity, 0 or 1), and the
 * next product is ADDED with UMLAL; the generator proves for each step that no field can
 * pass 15 (worst-case bounds per field), so the high word alone is masked where that is
 * enough.  Class 1 (two pairs of count 15) is XORed unmasked into an accumulator kept
 * across the blocks of a group and masked once per product and group.
"""

_NOTE_M4_CROSS = """\
 * Groups of {min_blocks} or more blocks instead (issue 34): the products run y class by y class (t = x & m_j,
 * then a_j * b_(c - j) for the four classes c), which frees two registers, so each class has a
 * register pair of its own for the whole group and its chain runs across the blocks: the next
 * block's products are ADDED on top, masked (one or both words) only where the proven field
 * bounds need it, the masks chosen by dynamic programming over those bounds and each block's
 * y-class order by a search (gen/kernels/ghash/m4_cross.py).  Once per product and group the
 * four pairs are masked and merged.
"""

_NOTE_M3 = """\
 * Cortex-M3: UMULL/UMLAL/SMULL/SMLAL end early when the operands are small (TRM DDI 0337,
 * Table 18-1 notes), so their time would leak y.  This code uses only MUL (32x32->32,
 * one cycle for any data) and gets the high half of each product from the bit-reversal
 * identity  high32(clmul(a, b)) = rev32(low32(clmul(rev32 a, rev32 b))) >> 1  (RBIT):
 * every Karatsuba product is done twice, direct and bit-reversed.  The 16 MUL results
 * of a product go unmasked into four class accumulators across the blocks of a group
 * (masking is linear), so the class masks and the merge run once per product and group.
"""


def _tail_text(group: int) -> str:
    """The header's sentence on the tail groups (one: byte-identical to before issue 34's chain)."""
    tails = tail_chain(group)
    if len(tails) == 1:
        t = tails[0]
        return (f"Of the last\n * nblocks mod {group} blocks, {t} go as one group (H^{t}..H^1) "
                f"when that many remain; the rest of the")
    sizes = ", then ".join(f"{t} (H^{t}..H^1)" for t in tails)
    return (f"Of the last\n * nblocks mod {group} blocks, groups of {sizes} go as one group each "
            f"when that many remain; the rest of the")


def _ctmul(prefix: str, core: str, group: int | None = None) -> GhashCode:
    wide = core == "cortex-m4"
    group = GROUP_BLOCKS[core] if group is None else group
    if not (1 <= group <= 8 or group == MAX_GROUP):
        raise ValueError(f"blocks per group must be 1..8 or {MAX_GROUP}, not {group}")
    n = len(M.karatsuba_plan(4).operands)
    hk = hk_per_power(core) * group
    pairs = sum(1 for c in range(M.HOLE_STRIDE) for g in hole_groups(c, True) if len(g) > 1)
    head = _CTMUL_HEADER.format(
        core=core, nprod=n if wide else 2 * n, hk=hk, hkb=4 * hk, group=group,
        group_m1=group - 1, per=hk_per_power(core),
        tail=(_tail_text(group) if group in TAIL_GROUP else "The last"),
        pairs=(f": {pairs} pairs per product are added with UMLAL" if wide else
               ": MUL results are only XORed here"),
        core_note=(_NOTE_M4 + (_NOTE_M4_CROSS.format(min_blocks=m4_cross.MIN_BLOCKS) if group in CROSS_KERNELS else "")
                   if wide else _NOTE_M3).rstrip("\n"))
    body = _ctmul_blocks(prefix, core, group)
    code = head + "\n" + \
        c_asm_function(prefix, "ghash_blocks", f"/* {prefix}_ghash_blocks: see the comment above */", body) + \
        "\n" + _init_c(prefix, not wide, group)
    return GhashCode(code=code, hk_words=hk, constant_time=True, rodata_bytes=0, impl="ctmul", core=core)


# --------------------------------------------------------------------------- entry point

def _check_prefix(prefix: str) -> None:
    if not prefix or not (prefix[0].isalpha() or prefix[0] == "_") or \
            not all(ch.isalnum() or ch == "_" for ch in prefix):
        raise ValueError(f"prefix {prefix!r} is not a C identifier")


def thumb2(prefix: str, impl: str, core: str, group: int | None = None) -> GhashCode:
    """Generate GHASH for ``core`` with implementation ``impl`` (see module comment)."""
    _check_prefix(prefix)
    if impl not in IMPLS:
        raise ValueError(f"unknown GHASH impl {impl!r}; allowed: {', '.join(IMPLS)}")
    if core not in CORES:
        raise ValueError(f"unknown core {core!r}; allowed: {', '.join(CORES)}")
    if impl == "ctmul":
        return _ctmul(prefix, core, group)
    from .tables import tables
    return tables(prefix, impl, core)


if __name__ == "__main__":  # pragma: no cover - manual inspection
    import sys
    print(thumb2("demo", sys.argv[1] if len(sys.argv) > 1 else "ctmul",
                 sys.argv[2] if len(sys.argv) > 2 else "cortex-m4").code)
