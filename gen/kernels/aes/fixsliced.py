"""Fixsliced AES-128/192/256 encryption of two blocks at once, built as IR.

The trick (Adomnicai & Peyrin, "Fixslicing AES-like ciphers", TCHES 2021/1): ShiftRows is never
applied; the state after round j is kept as SR^-a_j(S_j) and each round uses the matching twisted
MixColumns M_a = SR^-a . MC . SR^a (gen/circuits/aes_mixcolumns.py), with round keys stored
pre-permuted (keyschedule.py).  ffs cycles four variants, sfs two plus an explicit SR^2.  The
S-box is a proven Boyar-Peralta circuit without its NOTs (0x63 folded into the round keys).
``in`` and ``out`` may be the same buffer.  The alignments, the end fix-ups and the memory layout:
docs/internals/aes-kernels.md.
"""
from __future__ import annotations

from gen.circuits import aes_mixcolumns as mcx
from gen.circuits import aes_sbox
from gen.ir import Builder, Program

ROUNDS = {128: 10, 192: 12, 256: 14}
SLICINGS = ("ffs", "sfs")


def check_args(keybits: int, slicing: str) -> int:
    if keybits not in ROUNDS:
        raise ValueError(f"keybits must be one of 128, 192, 256 (got {keybits!r})")
    if slicing not in SLICINGS:
        raise ValueError(f"slicing must be one of ffs, sfs (got {slicing!r})")
    return ROUNDS[keybits]


def alignments(nr: int, slicing: str) -> list[int]:
    """a_j for j = 0..nr: round key j is stored as SR^-a_j(K_j); the state after round j is
    SR^-a_j(S_j).  Round j applies explicit SR^((a_{j-1} + 1 - a_j) mod 4), then M_{a_j}."""
    if slicing == "ffs":
        return [j % 4 for j in range(nr + 1)]
    return [0] + [j % 2 for j in range(1, nr)] + [2]


# ---- emitters (each takes and returns lists of vregs) ----

def emit_swapmove(b: Builder, lo: int, hi: int, mask: int, n: int) -> tuple[int, int]:
    t = b.eor(hi, lo, shift=("lsr", n))
    t = b.and_(t, imm=mask)
    return b.eor(lo, t, shift=("lsl", n)), b.eor(hi, t)


def emit_transpose(b: Builder, x: list[int], steps) -> list[int]:
    x = list(x)
    for bit, mask, n in steps:
        for lo in range(8):
            if not lo & bit:
                x[lo], x[lo | bit] = emit_swapmove(b, x[lo], x[lo | bit], mask, n)
    return x


def emit_pack(b: Builder, words: list[int]) -> list[int]:
    """Natural words W[4k + c] -> planes Q[0..7] (see aes_mixcolumns.pack)."""
    return emit_transpose(b, [words[4 * (w & 1) + (w >> 1)] for w in range(8)], mcx.PACK_STEPS)


def emit_unpack(b: Builder, planes: list[int]) -> list[int]:
    x = emit_transpose(b, planes, tuple(reversed(mcx.PACK_STEPS)))
    return [x[k + 2 * c] for k in range(2) for c in range(4)]


#: top-layer values the S-box recomputes before its bottom layer (aes_sbox.REMAT) rather than
#: keeping them live across the inversion.  Off: measured with the Thumb-2 order search, 7
#: recomputed values cut the S-box's spill code from 36 to 31 memory ops for 7 more XORs, a wash.
SBOX_REMAT: tuple = ()


def emit_sbox(b: Builder, planes: list[int], circuit: str = aes_sbox.DEFAULT) -> list[int]:
    """Bitsliced S-box, NOTs folded (computes S(x) ^ 0x63 per byte); plane i = bit i;
    ``circuit``: one of aes_sbox.CIRCUITS."""
    def gate(op, x, y):     # me111's gates also BIC/ORR/ORN (aes_sbox.emit)
        return {"and": b.and_, "bic": b.bic, "orr": b.orr, "orn": b.orn}.get(op, b.eor)(x, y)
    outs = aes_sbox.emit(gate, {f"x{i}": planes[7 - i] for i in range(8)}, fold_nots=True,
                         remat=SBOX_REMAT, circuit=circuit)
    return [outs[f"s{7 - i}"] for i in range(8)]


def _neighbour(b: Builder, x: int, dr: int, n: int) -> list[tuple[int, int]]:
    """(vreg, rotation) terms whose XOR is the packed neighbour map (row+dr, in-byte ror n)."""
    terms = mcx.neighbour_terms(dr, n)
    if len(terms) == 1:
        return [(x, terms[0][1])]
    return [(b.and_(x, imm=mask), rot) for mask, rot in terms]


def _neighbour_merged(b: Builder, x: int, dr: int, n: int) -> list[tuple[int, int]]:
    """The neighbour map as ONE (vreg, rotation) term: with two masked parts a, c rotated by
    r1, r2, y = ror(a ^ ror(c, r2 - r1), r1), so one value stays live instead of two and the
    value used twice (in t and in the output) costs one EOR per use instead of two."""
    terms = _neighbour(b, x, dr, n)
    if len(terms) == 1:
        return terms
    (a, r1), (c, r2) = terms
    return [(b.eor(a, c, shift=("ror", (r2 - r1) % 32)), r1)]


def emit_mixcolumns(b: Builder, q: list[int], j: int) -> list[int]:
    """Twisted MixColumns M_j (aes_mixcolumns.mixcolumns_variant, same data)."""
    (d1, n1), (d2, n2) = mcx.VARIANTS[j]["r1"], mcx.VARIANTS[j]["r2"]
    s = [_neighbour_merged(b, x, d1, n1) for x in q]
    t = [b.xor_terms([(x, 0)] + sx) for x, sx in zip(q, s)]
    out = []
    for k in range(8):
        terms = ([(t[k - 1], 0)] if k >= 1 else []) + ([(t[7], 0)] if k in mcx.XTIME_FEEDBACK else [])
        out.append(b.xor_terms(terms + s[k] + _neighbour(b, t[k], d2, n2)))
    return out


def emit_packed_shiftrows2(b: Builder, q: list[int]) -> list[int]:
    out = []
    for x in q:
        t = b.and_(b.eor(x, x, shift=("lsr", 4)), imm=mcx.SR2_PACKED_MASK)
        out.append(b.eor(b.eor(x, t), t, shift=("lsl", 4)))
    return out


def emit_natural_shiftrows2(b: Builder, w: list[int]) -> list[int]:
    """SR^2 on natural words (two blocks): swap rows 1, 3 between columns c and c + 2."""
    w = list(w)
    for k in range(2):
        for c in range(2):
            lo, hi = 4 * k + c, 4 * k + c + 2
            t = b.and_(b.eor(w[lo], w[hi]), imm=mcx.SR2_NATURAL_MASK)
            w[lo], w[hi] = b.eor(w[lo], t), b.eor(w[hi], t)
    return w


def emit_add_round_key(b: Builder, q: list[int], j: int) -> list[int]:
    return [b.eor(x, b.ld("rk", 8 * j + i)) for i, x in enumerate(q)]


def encrypt2_ir(keybits: int, slicing: str, circuit: str = aes_sbox.DEFAULT) -> Program:
    """IR program: out[0..7] = AES-Enc(rk, in[0..7]) for two blocks (see module docstring), with
    the S-box ``circuit`` (aes_sbox.CIRCUITS)."""
    nr = check_args(keybits, slicing)
    al = alignments(nr, slicing)
    b = Builder(f"aes{keybits}_{slicing}_encrypt2")
    b.declare("in", 8, "r")
    b.declare("rk", 8 * (nr + 1), "r", constant=True)
    b.declare("out", 8, "w")
    words = [b.ld("in", i) for i in range(8)]
    q = emit_add_round_key(b, emit_pack(b, words), 0)
    for j in range(1, nr + 1):
        q = emit_sbox(b, q, circuit)
        e = (al[j - 1] + 1 - al[j]) % 4
        assert e in (0, 2), (slicing, j, e)
        if e == 2:
            q = emit_packed_shiftrows2(b, q)
        if j < nr:
            q = emit_mixcolumns(b, q, al[j])
        q = emit_add_round_key(b, q, j)
    w = emit_unpack(b, q)
    fix = al[nr] % 4
    assert fix in (0, 2)
    if fix == 2:
        w = emit_natural_shiftrows2(b, w)
    for i in range(8):
        b.st("out", i, w[i])
    return b.finish()


# ---- the portable C entry point ----
