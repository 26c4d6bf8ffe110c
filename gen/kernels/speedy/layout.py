"""SPEEDY's column-sliced layout and the packing transpose (bytes <-> column words), as IR.

Sliced form: word j = state column j (j = 0..5), row i at bit 31 - i.  State bit p = 6 i + j,
bit 0 being the MSB of byte 0.  Bytes arrive as 6 little-endian words (the backends' ``in``).

The transpose (192 bits, rows of 6) is not a power-of-two shape, so it goes through an
intermediate layout L of 8 words in which a SWAPMOVE transpose finishes the job:

  L: row i sits in word i mod 8, byte (from the top) i div 8, its column c at bit c of that byte
     counted from the top (LSB position 31 - 8 (i div 8) - c); bits 6, 7 of every byte are 0.

  1. gather (gen/kernels/bitperm.py): bytes -> L.  Rows move as whole 6-bit runs, except where
     little-endian byte order splits them; 48 (source word, rotation) groups, 2 ops each.
  2. three SWAPMOVE stages exchange word-index bit k with position bit k (k = 0, 1, 2): word
     index becomes the column, the position the row (the AES packing transpose's pattern).
     Words 6 and 7 come out zero and are never used (dead ops removed); unpacking runs the
     stages backwards with those words known zero (3 ops instead of 4 per SWAPMOVE with one).
"""
from __future__ import annotations

from gen.ciphers.base import bits_of, bytes_of
from gen.ir import MASK32, Builder
from gen.kernels import bitperm
from gen.kernels.aes.fixsliced import emit_swapmove

ROWS, COLS = 32, 6
WORDS = 6                     # 192-bit block, 6 little-endian words
L_WORDS = 8
SWAP_STAGES = ((0, 0x55555555, 1), (1, 0x33333333, 2), (2, 0x0F0F0F0F, 4))   # (word bit, mask, shift)


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


def l_position(i: int, c: int) -> tuple[int, int]:
    return i % 8, 31 - 8 * (i // 8) - c


PACK_GATHER = {l_position(i, c): le_position(COLS * i + c) for i in range(ROWS) for c in range(COLS)}
UNPACK_GATHER = {src: dst for dst, src in PACK_GATHER.items()}
L_LIVE = [sum(1 << l_position(i, c)[1] for i in range(w, ROWS, 8) for c in range(COLS))
          for w in range(L_WORDS)]


# ---- IR ----

def emit_swapmove_or_zero(b: Builder, lo, hi, mask: int, n: int):
    """aes_fixsliced.emit_swapmove with ``None`` standing for a word known to be zero."""
    if lo is None and hi is None:
        return None, None
    if lo is None:                  # t = hi & mask: lo = t << n, hi = hi & ~mask
        return b.shift("lsl", b.and_(hi, imm=mask), n), b.bic(hi, imm=mask)
    if hi is None:                  # t = (lo >> n) & mask: hi = t, lo = lo & ~(mask << n)
        return b.bic(lo, imm=(mask << n) & MASK32), b.and_(b.shift("lsr", lo, n), imm=mask)
    return emit_swapmove(b, lo, hi, mask, n)


def emit_swaps(b: Builder, words: list, stages=SWAP_STAGES) -> list:
    x = list(words)
    for k, mask, n in stages:
        for w in range(L_WORDS):
            if not (w >> k) & 1:
                x[w | 1 << k], x[w] = emit_swapmove_or_zero(b, x[w | 1 << k], x[w], mask, n)
    return x


def emit_pack(b: Builder, words: list[int]) -> list[int]:
    """6 little-endian block words -> 6 column words."""
    l_words = bitperm.emit_gather(b, words, PACK_GATHER, L_WORDS)
    return emit_swaps(b, l_words)[:COLS]


def emit_unpack(b: Builder, cols: list[int]) -> list[int]:
    """6 column words -> 6 little-endian block words."""
    l_words = emit_swaps(b, list(cols) + [None] * (L_WORDS - COLS), tuple(reversed(SWAP_STAGES)))
    return bitperm.emit_gather(b, l_words, UNPACK_GATHER, WORDS, live=L_LIVE)
