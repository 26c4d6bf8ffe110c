"""Bitsliced Rijndael-256 encryption of one block, built as IR, with an explicit ShiftRows.

Layout.  One 256-bit block fills the 8 bit-plane words exactly as two AES blocks do in
gen/kernels/aes/fixsliced.py, and the same SWAPMOVE transpose packs it: only the order in which
the 8 column words enter the transpose changes (free), chosen so that in plane ``Q[b]`` (bit b
of every byte) the byte at row r, column c sits at bit ``8 r + c``.  A byte of the plane word is
a state row, its 8 bits are the 8 columns in order.

Explicit ShiftRows.  Row r rotates left by 0, 1, 3, 4 columns, i.e. byte r of every plane
rotates right by that many bits.  Each byte splits into the bits that move right by o and the
o bits that wrap round (move left by 8 - o); with the fixed row 0 that is 7 groups, every mask a
Thumb-2 immediate (0xff, 0xfe00, 0x100, 0xf80000, 0x70000, 0xf0000000, 0x0f000000).  Per plane:
7 ANDs + 6 EORs whose flexible operand does the shift (gen/kernels/bitperm.py) = 13 ops,
104 ops per round.  (AES's fixslicing avoids this cost by twisting MixColumns instead; that is
the "fixsliced" option for later, this kernel is the plain one.)

MixColumns mixes the 4 rows of a column: bytes of the plane word at the same bit, so it is
AES's un-twisted variant M_0 (word rotations by 8 and 16, xtime across planes) unchanged.
S-box: the Boyar-Peralta circuit with its NOTs folded (S(x) ^ 0x63); ShiftRows and MixColumns
map the all-0x63 state to itself, so the constant is folded into round keys 1..14 (keyschedule).

Memories: ``in`` / ``out`` (8 little-endian words = the 32 block bytes; word c = column c),
``rk`` (8 x 15 words: rk[8 j + b] = plane b of round key j, same layout).
"""
from __future__ import annotations

from gen.circuits import aes_mixcolumns as mcx
from gen.circuits.aes_sbox import NOT_MASK
from gen.ir import Builder, Program
from gen.kernels import bitperm
from gen.kernels.aes.fixsliced import (emit_add_round_key, emit_mixcolumns, emit_pack, emit_sbox,
                                       emit_unpack)

NB = 8            # columns
PLANES = 8


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


def shiftrows_perm(offsets) -> dict:
    """ShiftRows on one plane word as a bit map: dst bit 8r + c <- src bit 8r + (c + o_r) mod 8."""
    return {(0, 8 * r + c): (0, 8 * r + (c + offsets[r]) % 8) for r in range(4) for c in range(8)}


def emit_shiftrows(b: Builder, planes: list[int], offsets) -> list[int]:
    perm = shiftrows_perm(offsets)
    return [bitperm.emit_gather(b, [x], perm, 1)[0] for x in planes]


def encrypt_program(spec) -> Program:
    """out = Rijndael-256-Enc(rk, in), one block (see the module docstring)."""
    assert spec.family == "rijndael256" and spec.block_bytes == 32, spec.name
    offsets = spec.linear_layer["shiftrows"]
    b = Builder(f"{spec.name}_encrypt")
    b.declare("in", NB, "r")
    b.declare("rk", PLANES * (spec.rounds + 1), "r")
    b.declare("out", NB, "w")
    q = emit_pack_columns(b, [b.ld("in", c) for c in range(NB)])
    q = emit_add_round_key(b, q, 0)
    for j in range(1, spec.rounds + 1):
        q = emit_shiftrows(b, emit_sbox(b, q), offsets)
        if j < spec.rounds:
            q = emit_mixcolumns(b, q, 0)
        q = emit_add_round_key(b, q, j)
    for c, w in enumerate(emit_unpack_columns(b, q)):
        b.st("out", c, w)
    return b.finish()


#: planes of round keys 1..Nr inverted to fold the S-box circuit's missing NOTs
FOLDED_PLANES = tuple(i for i in range(PLANES) if (NOT_MASK >> i) & 1)
