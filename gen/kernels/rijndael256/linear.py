"""Rijndael-256's linear layer on the packed layout, as data, and its SymPy proofs over GF(2).

ShiftRows rotates row r by o_r = 0, 1, 3, 4 columns (Daemen & Rijmen, *The Design of Rijndael*,
Table 3.1, Nb = 8).  Twisted MixColumns M_a = SR^-a . MC . SR^a (fixslicing, Adomnicai & Peyrin,
TCHES 2021/1, carried over to Nb = 8) uses neighbour maps that rotate each row by a different
amount, which makes Rijndael-256's fixslicing dearer than AES's (Lestari et al., IIUM Eng. J.
27(2), 2026).  Eight variants, a = 0..7.  The layout and the derivation:
docs/internals/rijndael256.md.
"""
from __future__ import annotations

from functools import reduce

from sympy.polys.matrices import DomainMatrix

from gen.circuits.aes_mixcolumns import F2, matrix_of, mixcolumns_planes
from gen.circuits.aes_sbox import gf_mul
from gen.kernels import bitperm

OFFSETS = (0, 1, 3, 4)       # ShiftRows row offsets for Nb = 8 (Design of Rijndael, Table 3.1)
NB = 8
ORDER = 8                    # SR^8 = identity (row 1 rotates by 1 of 8 columns)


# ---- the maps as bit permutations: {dst (word, bit): src (word, bit)} ----

def packed_shiftrows_perm(e: int) -> dict:
    """SR^e on one packed plane word: dst bit 8r + c <- src bit 8r + (c + e o_r) mod 8."""
    return {(0, 8 * r + c): (0, 8 * r + (c + e * OFFSETS[r]) % NB) for r in range(4) for c in range(NB)}


def natural_shiftrows_perm(e: int) -> dict:
    """SR^e on the 8 natural words: row r of column c <- row r of column c + e o_r."""
    return {(c, 8 * r + k): ((c + e * OFFSETS[r]) % NB, 8 * r + k)
            for c in range(NB) for r in range(4) for k in range(8)}


def neighbour_perm(d: int, a: int) -> dict:
    """R_{d,a} on one packed plane word (module docstring)."""
    out = {}
    for r in range(4):
        rs = (r + d) % 4
        for c in range(NB):
            out[(0, 8 * r + c)] = (0, 8 * rs + (c + a * (OFFSETS[rs] - OFFSETS[r])) % NB)
    return out


# ---- reference (pure Python) forms on lists of 8 words ----

def _plane(x: int, perm: dict) -> int:
    return bitperm.apply([x], perm, 1)[0]


def packed_shiftrows(q: list[int], e: int = 1) -> list[int]:
    perm = packed_shiftrows_perm(e)
    return [_plane(x, perm) for x in q]


def natural_shiftrows(w: list[int], e: int = 1) -> list[int]:
    return bitperm.apply(list(w), natural_shiftrows_perm(e), NB)


def mixcolumns_variant(q: list[int], a: int) -> list[int]:
    r1, r2 = neighbour_perm(1, a), neighbour_perm(2, a)
    return mixcolumns_planes(q, lambda x: _plane(x, r1), lambda x: _plane(x, r2))


# ---- definitions (byte level, from the cipher's description) ----

def _state(w: list[int]) -> list[list[int]]:
    return [[(w[c] >> (8 * r)) & 0xFF for c in range(NB)] for r in range(4)]


def _words(st) -> list[int]:
    return [sum(st[r][c] << (8 * r) for r in range(4)) for c in range(NB)]


def def_shiftrows(w: list[int], e: int = 1) -> list[int]:
    st = _state(w)
    return _words([[st[r][(c + e * OFFSETS[r]) % NB] for c in range(NB)] for r in range(4)])


def def_mixcolumns(w: list[int]) -> list[int]:
    st = _state(w)
    coef = (2, 3, 1, 1)
    return _words([[reduce(lambda x, y: x ^ y, (gf_mul(coef[(i - r) % 4], st[i][c]) for i in range(4)))
                    for c in range(NB)] for r in range(4)])


def def_pack(w: list[int]) -> list[int]:
    """Packing from the index formula: bit b of byte (r, c) -> bit 8r + c of plane b."""
    st = _state(w)
    return [sum(((st[r][c] >> b) & 1) << (8 * r + c) for r in range(4) for c in range(NB)) for b in range(8)]


# ---- GF(2) matrices and the proofs ----

def _power(M: DomainMatrix, k: int) -> DomainMatrix:
    return reduce(lambda A, B: A * B, [M] * (k % ORDER), DomainMatrix.eye(256, F2).to_sparse())


def spec_variant_matrix(a: int) -> DomainMatrix:
    """P . SR^-a . MC . SR^a . P^-1, composed as matrix products from the definitions."""
    P, SR, MC = matrix_of(def_pack), matrix_of(def_shiftrows), matrix_of(def_mixcolumns)
    return P * _power(SR, -a) * MC * _power(SR, a) * P.transpose()


def prove_variant(a: int, impl=None) -> bool:
    """True when ``impl`` (default: mixcolumns_variant) is SR^-a . MC . SR^a on packed words."""
    impl = impl or (lambda q: mixcolumns_variant(q, a))
    return matrix_of(impl) == spec_variant_matrix(a)


def prove_packing(impl_pack, impl_unpack) -> bool:
    P = matrix_of(def_pack)
    return (matrix_of(impl_pack) == P and matrix_of(impl_unpack) == P.transpose()
            and P * P.transpose() == DomainMatrix.eye(256, F2).to_sparse())


def prove_shiftrows(e: int, packed=None, natural=None) -> bool:
    """``packed`` (default packed_shiftrows) is P . SR^e . P^-1 and ``natural`` (default
    natural_shiftrows) is SR^e."""
    packed = packed or (lambda q: packed_shiftrows(q, e))
    natural = natural or (lambda w: natural_shiftrows(w, e))
    P, SRe = matrix_of(def_pack), _power(matrix_of(def_shiftrows), e)
    return matrix_of(packed) == P * SRe * P.transpose() and matrix_of(natural) == SRe
