"""Constant-time AES key schedule producing fixsliced round keys, built as IR.

FIPS-197 expansion on little-endian words, SubWord by the rounds' Boyar-Peralta circuit bitsliced
inside one word (plane b = ``w >> b``); each round key is permuted to its fixsliced alignment,
doubled for both blocks and packed into 8 planes; the S-box's folded NOT (0x63) is put back into
round keys 1..Nr.  No table, no key-dependent index or branch.  Steps and the rk layout:
docs/internals/aes-kernels.md.
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
