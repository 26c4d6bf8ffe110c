"""Fixsliced AES linear layers as data, the packed layout, and SymPy proofs over GF(2).

Packed layout: bit b of state byte (row r, column c, block k) is bit ``8r + 2c + k`` of plane
``Q[b]``; packing is a 3-stage SWAPMOVE transpose (its own inverse).  Fixsliced MixColumns
(Adomnicai & Peyrin, "Fixslicing AES-like ciphers", TCHES 2021/1): ``M_j = SR^-j . MC . SR^j``,
in the packed form word rotations plus rotations inside bytes; ``VARIANTS[j]`` holds them.
The derivation: docs/internals/aes-kernels.md.
"""
from __future__ import annotations

from functools import reduce

from sympy import GF
from sympy.polys.matrices import DomainMatrix

from gen.circuits.aes_sbox import gf_mul

MASK32 = 0xFFFFFFFF
PACK_STEPS = ((1, 0x55555555, 1), (2, 0x33333333, 2), (4, 0x0F0F0F0F, 4))  # (word bit, mask, shift)
XTIME_FEEDBACK = (0, 1, 3, 4)        # planes that receive plane 7 when doubling (0x1b)
SR2_PACKED_MASK = 0x0F000F00         # packed SR^2: swap nibbles of rows 1 and 3 in every plane
SR2_NATURAL_MASK = 0xFF00FF00        # natural SR^2: swap rows 1, 3 between columns c and c+2


def byte_rot_spec(dr: int, dc: int) -> tuple[int, int]:
    """(word rows, in-byte rotation in bits) of the neighbour map (row + dr, column + dc)."""
    return dr % 4, (2 * dc) % 8


VARIANTS = {j: {"r1": byte_rot_spec(1, j), "r2": byte_rot_spec(2, 2 * j)} for j in range(4)}


def neighbour_terms(dr: int, n: int) -> tuple[tuple[int, int], ...]:
    """The neighbour map as (mask, right-rotation) terms: y = OR ror(x & mask, rot).

    Derivation: y = byte_ror(ror(x, 8 dr), n); bits that stay inside their byte come from the
    per-byte mask (0xff << n), the rest (low n bits of each byte) wrap around by 8 - n."""
    if n == 0:
        return ((MASK32, 8 * dr % 32),)
    hi = ((0xFF << n) & 0xFF) * 0x01010101
    lo = ((1 << n) - 1) * 0x01010101
    return ((hi, (8 * dr + n) % 32), (lo, (8 * dr + 24 + n) % 32))


def _ror(x: int, n: int) -> int:
    n %= 32
    return ((x >> n) | (x << (32 - n))) & MASK32 if n else x


def neighbour(x: int, dr: int, n: int) -> int:
    return reduce(lambda acc, t: acc | _ror(x & t[0], t[1]), neighbour_terms(dr, n), 0)


# ---- reference (pure Python) forms of each map, on lists of 8 words ----

def swapmove(lo: int, hi: int, mask: int, n: int) -> tuple[int, int]:
    t = (hi ^ (lo >> n)) & mask
    return (lo ^ (t << n)) & MASK32, hi ^ t


def pack(words: list[int]) -> list[int]:
    """Natural W[0..7] -> packed planes Q[0..7] (SWAPMOVE transpose)."""
    x = [words[4 * (w & 1) + (w >> 1)] for w in range(8)]
    for bit, mask, n in PACK_STEPS:
        for lo in range(8):
            if not lo & bit:
                x[lo], x[lo | bit] = swapmove(x[lo], x[lo | bit], mask, n)
    return x


def unpack(planes: list[int]) -> list[int]:
    x = list(planes)
    for bit, mask, n in reversed(PACK_STEPS):
        for lo in range(8):
            if not lo & bit:
                x[lo], x[lo | bit] = swapmove(x[lo], x[lo | bit], mask, n)
    return [x[k + 2 * c] for k in range(2) for c in range(4)]


def mixcolumns_variant(q: list[int], j: int) -> list[int]:
    (d1, n1), (d2, n2) = VARIANTS[j]["r1"], VARIANTS[j]["r2"]
    return mixcolumns_planes(q, lambda x: neighbour(x, d1, n1), lambda x: neighbour(x, d2, n2))


def mixcolumns_planes(q: list[int], r1, r2) -> list[int]:
    """Bitsliced MixColumns on plane words given its neighbour maps ``r1`` (row + 1) and ``r2``
    (row + 2), each a function of one word (also Rijndael-256's twisted variants)."""
    s = [r1(x) for x in q]
    t = [x ^ y for x, y in zip(q, s)]
    out = []
    for b in range(8):
        v = s[b] ^ r2(t[b])
        if b >= 1:
            v ^= t[b - 1]
        if b in XTIME_FEEDBACK:
            v ^= t[7]
        out.append(v)
    return out


def packed_shiftrows2(q: list[int]) -> list[int]:
    out = []
    for x in q:
        t = (x ^ (x >> 4)) & SR2_PACKED_MASK
        out.append(x ^ t ^ (t << 4))
    return out


def natural_shiftrows2(w: list[int]) -> list[int]:
    w = list(w)
    for k in range(2):
        for c in range(2):
            lo, hi = 4 * k + c, 4 * k + c + 2
            t = (w[lo] ^ w[hi]) & SR2_NATURAL_MASK
            w[lo] ^= t
            w[hi] ^= t
    return w


# ---- definitions (byte level) ----

def _bytes_of(w: list[int]) -> list[list[list[int]]]:
    """state[k][r][c] from natural words."""
    return [[[(w[4 * k + c] >> (8 * r)) & 0xFF for c in range(4)] for r in range(4)] for k in range(2)]


def _words_of(st) -> list[int]:
    return [sum(st[k][r][c] << (8 * r) for r in range(4)) for k in range(2) for c in range(4)]


def def_shiftrows(w: list[int], e: int = 1) -> list[int]:
    st = _bytes_of(w)
    return _words_of([[[st[k][r][(c + r * e) % 4] for c in range(4)] for r in range(4)] for k in range(2)])


def def_mixcolumns(w: list[int]) -> list[int]:
    st = _bytes_of(w)
    coef = (2, 3, 1, 1)
    return _words_of([[[reduce(lambda x, y: x ^ y,
                                (gf_mul(coef[(i - r) % 4], st[k][i][c]) for i in range(4)))
                         for c in range(4)] for r in range(4)] for k in range(2)])


def def_pack(w: list[int]) -> list[int]:
    """Packing from the index formula (not SWAPMOVE)."""
    st = _bytes_of(w)
    return [sum(((st[k][r][c] >> b) & 1) << (8 * r + 2 * c + k)
                for k in range(2) for r in range(4) for c in range(4)) for b in range(8)]


# ---- GF(2) matrices (SymPy DomainMatrix, sparse) ----

F2 = GF(2)


def matrix_of(f) -> DomainMatrix:
    """256x256 matrix over GF(2) of a linear map on 8 words (column i = f(e_i))."""
    rows: dict[int, dict[int, object]] = {}
    for i in range(256):
        e = [0] * 8
        e[i // 32] = 1 << (i % 32)
        y = f(e)
        for o in range(256):
            if (y[o // 32] >> (o % 32)) & 1:
                rows.setdefault(o, {})[i] = F2(1)
    return DomainMatrix(rows, (256, 256), F2)


def spec_variant_matrix(j: int) -> DomainMatrix:
    """P . SR^-j . MC . SR^j . P^-1, composed as matrix products from the definitions."""
    P = matrix_of(def_pack)
    SR = matrix_of(def_shiftrows)
    SRinv = matrix_of(lambda w: def_shiftrows(w, 3))
    MC = matrix_of(def_mixcolumns)
    I = DomainMatrix.eye(256, F2).to_sparse()
    pw = lambda M, k: reduce(lambda A, B: A * B, [M] * k, I)
    return P * pw(SRinv, j) * MC * pw(SR, j) * P.transpose()


def prove_variant(j: int, impl=None) -> bool:
    """True when ``impl`` (default: the reference mixcolumns_variant) equals the specification."""
    impl = impl or (lambda q: mixcolumns_variant(q, j))
    return matrix_of(impl) == spec_variant_matrix(j)


def prove_packing(impl_pack=pack, impl_unpack=unpack) -> bool:
    P = matrix_of(def_pack)
    I = DomainMatrix.eye(256, F2).to_sparse()
    return (matrix_of(impl_pack) == P and matrix_of(impl_unpack) == P.transpose()
            and P * P.transpose() == I)


def prove_shiftrows2(packed=packed_shiftrows2, natural=natural_shiftrows2) -> bool:
    P = matrix_of(def_pack)
    SR = matrix_of(def_shiftrows)
    return (matrix_of(packed) == P * SR * SR * P.transpose()
            and matrix_of(natural) == SR * SR)
