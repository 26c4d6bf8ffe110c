"""SPEEDY's column-sliced layout and the packing transpose (bytes <-> column words), as IR.

Sliced form: word j = state column j (j = 0..5), row i at bit 31 - i.  The 192-bit transpose
(rows of 6, not a power-of-two shape) runs in three steps: a SWAPMOVE by 16 into halves, a gather
(gen/kernels/bitperm.py) into an 8-word intermediate layout, and three SWAPMOVE stages.  The
steps and their op counts: docs/internals/speedy.md.
"""
from __future__ import annotations

from gen.ciphers.base import bits_of, bytes_of
from gen.ir import Builder
from gen.kernels import bitperm
from gen.kernels.face.aes_face import swapmove        # SWAPMOVE with zero words and the 16 case
from gen.kernels.bitperm import Consts

ROWS, COLS = 32, 6
WORDS = 6                     # 192-bit block, 6 little-endian words
L_WORDS = 8
NETWORK_STAGES = (1, 2, 4)    # SWAPMOVE distances (masks 0x55555555, 0x33333333, 0x0f0f0f0f)


# ---- reference forms ----

def columns_of(block: bytes) -> list[int]:
    """24 bytes -> 6 column words (word j bit 31 - i = state bit 6 i + j)."""
    bits = bits_of(block)
    return [sum(bits[COLS * i + j] << (31 - i) for i in range(ROWS)) for j in range(COLS)]


def block_of(cols: list[int]) -> bytes:
    bits = [(cols[p % COLS] >> (31 - p // COLS)) & 1 for p in range(ROWS * COLS)]
    return bytes_of(bits)


def le_words(data: bytes) -> list[int]:
    return [int.from_bytes(data[4 * k: 4 * k + 4], "little") for k in range(len(data) // 4)]


def le_bytes(words: list[int]) -> bytes:
    return b"".join(w.to_bytes(4, "little") for w in words)


# ---- the bit maps ----

def le_position(p: int) -> tuple[int, int]:
    """State bit p -> (little-endian word, bit position) of the byte buffer."""
    byte = p // 8
    return byte // 4, 8 * (byte % 4) + 7 - p % 8


def halves_position(p: int) -> tuple[int, int]:
    """State bit p -> (word, bit position) after step 1: words 2k / 2k + 1 hold the high /
    low 16 bits of byte words k (top half) and k + 3 (bottom half)."""
    w, q = le_position(p)
    k, bottom = w % 3, w >= 3
    word = 2 * k + (0 if q >= 16 else 1)
    return word, (q % 16) + (0 if bottom else 16)


def l_position(i: int, c: int) -> tuple[int, int]:
    return i % 8, 31 - 8 * (i // 8) - c


PACK_GATHER = {l_position(i, c): halves_position(COLS * i + c) for i in range(ROWS) for c in range(COLS)}
UNPACK_GATHER = {src: dst for dst, src in PACK_GATHER.items()}
L_LIVE = [sum(1 << l_position(i, c)[1] for i in range(w, ROWS, 8) for c in range(COLS))
          for w in range(L_WORDS)]


# ---- IR ----

def emit_halves(b: Builder, consts, words: list[int], undo: bool = False) -> list[int]:
    """Step 1: byte words (k, k + 3) -> words (2k, 2k + 1); ``undo``: back (SWAPMOVE is an
    involution, only the word order differs)."""
    out = [0] * WORDS
    for k in range(3):
        hi, lo = (2 * k, 2 * k + 1) if undo else (k, k + 3)
        x = {0: words[lo], 16: words[hi]}            # SWAPMOVE(lo, hi) as on rows 0 and 16
        swapmove(b, consts, x, 0, 16)
        hi, lo = (k, k + 3) if undo else (2 * k, 2 * k + 1)
        out[hi], out[lo] = x[16], x[0]
    return out


def emit_network(b: Builder, consts, words: list, stages=NETWORK_STAGES) -> list:
    """Step 3 on 8 words (None = known zero).  aes_face's SWAPMOVE pairs rows p, p + j as
    (lo, hi); our pairs are (word w + j, word w), hence the reversed word order."""
    x = list(reversed(words))
    for j in stages:
        for p in range(L_WORDS):
            if not p & j:
                swapmove(b, consts, x, p, j)
    return list(reversed(x))


def emit_pack(b: Builder, words: list[int]) -> list[int]:
    """6 little-endian block words -> 6 column words."""
    consts = Consts(b)
    l_words = bitperm.emit_gather(b, emit_halves(b, consts, words), PACK_GATHER, L_WORDS, consts=consts)
    return emit_network(b, consts, l_words)[:COLS]


def emit_unpack(b: Builder, cols: list[int]) -> list[int]:
    """6 column words -> 6 little-endian block words."""
    consts = Consts(b)
    l_words = emit_network(b, consts, list(cols) + [None] * (L_WORDS - COLS), tuple(reversed(NETWORK_STAGES)))
    halves = bitperm.emit_gather(b, l_words, UNPACK_GATHER, WORDS, live=L_LIVE, consts=consts)
    return emit_halves(b, consts, halves, undo=True)
