"""Constant-time AES key schedule producing fixsliced round keys, built as IR.

1. FIPS-197 key expansion on little-endian words (byte 0 of a word = its low byte).  SubWord
   runs the same Boyar-Peralta gate list as the rounds, bitsliced *inside one word*: plane b is
   simply ``w >> b`` (bits 0, 8, 16, 24 carry the four bytes; the other bits are don't-care),
   the circuit runs on those 8 words, and ``(s_b & 0x01010101) << b`` puts the result back.
   RotWord (a right rotation by 8 of a little-endian word) is folded into that recombination,
   and the circuit's folded NOT constant is undone with one XOR of 0x63636363.  No table, no
   key-dependent index or branch.
2. Round key j is permuted to the alignment the encryption kernel expects, SR^-a_j(K_j)
   (aes_fixsliced.alignments: ffs a_j = j mod 4; sfs 0/1/.../2), duplicated for both blocks and
   packed into 8 bit-plane words with the same SWAPMOVE transpose as the state.
3. For j >= 1 the planes of the S-box NOT constant (0x63: planes 0, 1, 5, 6) are inverted:
   the encryption S-box leaves them out.

rk layout: ``rk[8 j + b]`` = bit plane b of round key j, j = 0..Nr (packed layout of
aes_mixcolumns: bit 8r + 2c + k = bit b of row r, column c, for both blocks k).
Memories: ``key`` (Nk = keybits / 32 little-endian words), ``rk`` (8 (Nr + 1) words).
"""
from __future__ import annotations

from gen.circuits import aes_sbox
from gen.ir import Builder, Program
from gen.kernels.aes.fixsliced import alignments, check_args, emit_pack, emit_sbox


def rcon_list(n: int) -> list[int]:
    out, r = [], 1
    for _ in range(n):
        out.append(r)
        r = ((r << 1) ^ (0x11B if r & 0x80 else 0)) & 0xFF
    return out


def emit_subword(b: Builder, w: int, rot: int) -> int:
    """ror(SubWord(w), rot) for a little-endian word (rot = 8 gives SubWord(RotWord(w)))."""
    planes = [w] + [b.shift("lsr", w, i) for i in range(1, 8)]
    s = emit_sbox(b, planes)
    terms = [(b.and_(s[i], imm=0x01010101), (rot - i) % 32) for i in range(8)]
    return b.eor(b.xor_terms(terms), imm=aes_sbox.NOT_MASK * 0x01010101)   # undo the folded NOTs


def emit_natural_shiftrows(b: Builder, w: list[int], e: int) -> list[int]:
    """SR^e on one natural block (4 words): out column c, row r = in column c + r e, row r."""
    e %= 4
    if e == 0:
        return list(w)
    if e == 2:  # swap rows 1 and 3 between columns c and c + 2
        w = list(w)
        for c in range(2):
            t = b.and_(b.eor(w[c], w[c + 2]), imm=0xFF00FF00)
            w[c], w[c + 2] = b.eor(w[c], t), b.eor(w[c + 2], t)
        return w
    out = []
    for c in range(4):
        parts = [b.and_(w[(c + r * e) % 4], imm=0xFF << (8 * r)) for r in range(4)]
        acc = parts[0]
        for p in parts[1:]:
            acc = b.orr(acc, p)
        out.append(acc)
    return out


def emit_key_expansion(b: Builder, key_words: list[int], n_words: int, on_chunk=None,
                       subword_starts: list | None = None) -> list[int]:
    """The Rijndael key recurrence on little-endian words, out to ``n_words`` words, for any
    Nk = len(key_words): SubWord (the bitsliced circuit, ``emit_subword``) with RotWord and Rcon
    every Nk-th word, SubWord alone at i mod Nk = 4 when Nk > 6. AES runs it to 4 (Nr + 1)
    words, Rijndael-256 (gen/kernels/rijndael256/keyschedule.py) to 8 (Nr + 1).
    ``on_chunk(k, words)`` is called as soon as words Nk k .. Nk k + Nk - 1 exist (k >= 1), so a
    round key can be packed and stored while the next is computed; ``subword_starts`` collects
    the op position where each SubWord begins (the Thumb-2 compilation orders its S-box)."""
    nk = len(key_words)
    w = list(key_words)
    rcon = rcon_list(n_words // nk)
    for i in range(nk, n_words):
        t = w[i - 1]
        if i % nk == 0 or (nk > 6 and i % nk == 4):
            if subword_starts is not None:
                subword_starts.append(len(b.ops))
            t = (b.eor(emit_subword(b, t, 8), imm=rcon[i // nk - 1]) if i % nk == 0
                 else emit_subword(b, t, 0))
        w.append(b.eor(w[i - nk], t))
        if on_chunk is not None and (i + 1) % nk == 0:
            on_chunk((i + 1) // nk - 1, w[-nk:])
    return w


def keyschedule_ir(keybits: int, slicing: str) -> Program:
    nr = check_args(keybits, slicing)
    nk = keybits // 32
    al = alignments(nr, slicing)
    b = Builder(f"aes{keybits}_{slicing}_keyschedule")
    b.declare("key", nk, "r")
    b.declare("rk", 8 * (nr + 1), "w")
    w = emit_key_expansion(b, [b.ld("key", i) for i in range(nk)], 4 * (nr + 1))
    for j in range(nr + 1):
        blk = emit_natural_shiftrows(b, w[4 * j: 4 * j + 4], -al[j])
        q = emit_pack(b, blk + blk)
        if j >= 1:
            q = [b.mvn(x) if (aes_sbox.NOT_MASK >> i) & 1 else x for i, x in enumerate(q)]
        for i in range(8):
            b.st("rk", 8 * j + i, q[i])
    return b.finish()
