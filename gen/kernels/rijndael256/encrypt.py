"""Bitsliced Rijndael-256 encryption of one block, built as IR, with ShiftRows either routed
explicitly or fixsliced away.

One 256-bit block fills AES's 8 plane words (bit 8 r + c of plane b = bit b of byte (r, c)).
The state after round j is SR^-a_j(S_j): ``explicit`` (a = 7, 0, ..., 0, 1: a packed ShiftRows
in rounds 2..13 and plain MixColumns) or ``fixsliced`` (a_j = j mod 8, Adomnicai & Peyrin: eight
MixColumns variants, no ShiftRows).  S-box: Boyar-Peralta with its NOTs folded into round keys.
The alignments, the op counts and the memories: docs/internals/rijndael256.md.
"""
from __future__ import annotations

from gen.circuits import aes_mixcolumns as mcx
from gen.circuits.aes_sbox import DEFAULT as DEFAULT_CIRCUIT, NOT_MASK
from gen.ir import Builder, Program
from gen.isa import thumb2 as t2
from gen.kernels import bitperm
from gen.kernels.aes.fixsliced import (emit_add_round_key, emit_mixcolumns, emit_pack, emit_sbox,
                                       emit_unpack)
from gen.kernels.rijndael256 import linear as L

NB = 8            # columns
PLANES = 8
STRATEGIES = ("explicit", "fixsliced")


def alignments(nr: int, shiftrows: str) -> list[int]:
    """a_j for j = 0..nr (module docstring)."""
    if shiftrows == "explicit":
        return [L.ORDER - 1] + [0] * (nr - 1) + [1]
    if shiftrows == "fixsliced":
        return [j % L.ORDER for j in range(nr + 1)]
    raise ValueError(f"shiftrows must be one of {', '.join(STRATEGIES)} (got {shiftrows!r})")


def explicit_exponent(al: list[int], j: int) -> int:
    """The packed SR^e round j applies explicitly."""
    return (al[j - 1] + 1 - al[j]) % L.ORDER


def _transpose_order(c: int) -> int:
    """Where column c enters aes_fixsliced.emit_pack (its natural word index 4k + c' maps to
    transpose input k + 2c'); with this order column c lands at bit c of each byte."""
    return 4 * (c & 1) + (c >> 1)


def emit_pack_columns(b: Builder, cols: list[int]) -> list[int]:
    words = [0] * NB
    for c in range(NB):
        words[_transpose_order(c)] = cols[c]
    return emit_pack(b, words)


def emit_unpack_columns(b: Builder, planes: list[int]) -> list[int]:
    words = emit_unpack(b, planes)
    return [words[_transpose_order(c)] for c in range(NB)]


def pack_columns(cols: list[int]) -> list[int]:
    """Python model of emit_pack_columns."""
    words = [0] * NB
    for c in range(NB):
        words[_transpose_order(c)] = cols[c]
    return mcx.pack(words)


def emit_shiftrows(b: Builder, planes: list[int], e: int = 1) -> list[int]:
    """Packed SR^e, plane by plane (bitperm.emit_gather; masks shared within the call)."""
    if e % L.ORDER == 0:
        return list(planes)
    perm, consts = L.packed_shiftrows_perm(e), bitperm.Consts(b)
    return [bitperm.emit_gather(b, [x], perm, 1, consts=consts)[0] for x in planes]


def emit_natural_shiftrows(b: Builder, words: list[int], e: int) -> list[int]:
    """SR^e on the natural column words: whole bytes move between words."""
    if e % L.ORDER == 0:
        return list(words)
    return bitperm.emit_gather(b, list(words), L.natural_shiftrows_perm(e), NB)


def _terms(b: Builder, x: int, perm: dict, consts) -> list[tuple[int, int]]:
    """A one-word permutation as (vreg, right rotation) terms to XOR: ror(x & mask, rot)."""
    return [(x if mask == 0xFFFFFFFF else consts.and_(x, mask), rot)
            for (_, rot), mask in sorted(bitperm.groups(perm)[0].items())]


def _merged(b: Builder, x: int, perm: dict, consts) -> tuple[int, int]:
    """The permutation as ONE term (v, r0): v = XOR_k ror(part_k, rot_k - r0), so a value used
    twice (s in t and in the output) folds its last rotation into both EORs."""
    terms = _terms(b, x, perm, consts)
    r0 = terms[0][1]
    return b.xor_terms([(v, (r - r0) % 32) for v, r in terms]), r0


def emit_mixcolumns_variant(b: Builder, q: list[int], a: int) -> list[int]:
    """M_a = SR^-a . MC . SR^a on packed planes (linear.mixcolumns_variant, same data)."""
    if a % L.ORDER == 0:
        return emit_mixcolumns(b, q, 0)
    r1, r2, consts = L.neighbour_perm(1, a), L.neighbour_perm(2, a), bitperm.Consts(b)
    s = [_merged(b, x, r1, consts) for x in q]
    t = [b.xor_terms([(x, 0), sx]) for x, sx in zip(q, s)]
    out = []
    for k in range(8):
        terms = ([(t[k - 1], 0)] if k >= 1 else []) + ([(t[7], 0)] if k in mcx.XTIME_FEEDBACK else [])
        out.append(b.xor_terms(terms + [s[k]] + _terms(b, t[k], r2, consts)))
    return out


def emit_linear(b: Builder, q: list[int], e: int, a) -> list[int]:
    """A round's linear layer before AddRoundKey: SR^e, then M_a (``a`` None: last round)."""
    q = emit_shiftrows(b, q, e)
    return q if a is None else emit_mixcolumns_variant(b, q, a)


def encrypt_program(spec, shiftrows: str = "explicit", circuit: str = DEFAULT_CIRCUIT) -> Program:
    """out = Rijndael-256-Enc(rk, in), one block (see the module docstring); ``circuit``: the
    AES S-box circuit (gen/circuits/aes_sbox.CIRCUITS; the Thumb-2 kernel takes AES's choice)."""
    assert spec.family == "rijndael256" and spec.block_bytes == 32, spec.name
    assert tuple(spec.linear_layer["shiftrows"]) == L.OFFSETS, spec.linear_layer
    nr = spec.rounds
    al = alignments(nr, shiftrows)
    b = Builder(f"{spec.name}_{shiftrows}_encrypt", is_imm=t2.is_imm)
    b.declare("in", NB, "r")
    b.declare("rk", PLANES * (nr + 1), "r", constant=True)
    b.declare("out", NB, "w")
    w = emit_natural_shiftrows(b, [b.ld("in", c) for c in range(NB)], -al[0])
    q = emit_add_round_key(b, emit_pack_columns(b, w), 0)
    for j in range(1, nr + 1):
        q = emit_linear(b, emit_sbox(b, q, circuit), explicit_exponent(al, j), al[j] if j < nr else None)
        q = emit_add_round_key(b, q, j)
    w = emit_natural_shiftrows(b, emit_unpack_columns(b, q), al[nr])
    for c in range(NB):
        b.st("out", c, w[c])
    return b.finish()


#: planes of round keys 1..Nr inverted to fold the S-box circuit's missing NOTs
FOLDED_PLANES = tuple(i for i in range(PLANES) if (NOT_MASK >> i) & 1)
