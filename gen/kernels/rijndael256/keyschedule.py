"""Constant-time Rijndael-256 key schedule producing bitsliced round keys, built as IR.

The expansion is AES-256's recurrence run out to 8 x 15 = 120 words (Nk = Nb = 8): SubWord
every 4th word, RotWord + Rcon every 8th (gen/kernels/aes/keyschedule.emit_key_expansion).
SubWord is aes_keyschedule.emit_subword (the same Boyar-Peralta circuit bitsliced inside one word: no table, no secret index or branch).  Round
key j is words 8j .. 8j+7 (word c = column c), permuted by SR^-a_j on the natural words (the
alignment of round j, encrypt.alignments: whole bytes move between words), packed like the
state (encrypt.py), and for j >= 1 the planes of the S-box NOT constant 0x63 are inverted (the
encryption S-box leaves them out).  Memories: ``key`` (8 little-endian words), ``rk`` (120 words, rk[8 j + b]).
"""
from __future__ import annotations

from gen.ir import Builder, Program
from gen.kernels.aes.keyschedule import emit_key_expansion
from gen.kernels.rijndael256.encrypt import (FOLDED_PLANES, NB, PLANES, alignments, emit_natural_shiftrows,
                                             emit_pack_columns)


def keyschedule_program(spec, shiftrows: str = "explicit", subword_starts: list | None = None) -> Program:
    """Round keys in the order the recurrence produces them: round key j is packed and stored
    as soon as its 8 words exist (fewer values live at once than expanding everything first)."""
    assert spec.family == "rijndael256", spec.name
    nk, nr = spec.key_bytes // 4, spec.rounds
    assert nk == NB, "a round key is one chunk of the recurrence"
    al = alignments(nr, shiftrows)
    b = Builder(f"{spec.name}_{shiftrows}_keyschedule")
    b.declare("key", nk, "r")
    b.declare("rk", PLANES * (nr + 1), "w")

    def store_round_key(j: int, words: list[int]) -> None:
        q = emit_pack_columns(b, emit_natural_shiftrows(b, words, -al[j]))
        if j >= 1:
            q = [b.mvn(x) if i in FOLDED_PLANES else x for i, x in enumerate(q)]
        for i, x in enumerate(q):
            b.st("rk", PLANES * j + i, x)

    key = [b.ld("key", i) for i in range(nk)]
    store_round_key(0, key)
    emit_key_expansion(b, key, NB * (nr + 1), store_round_key, subword_starts)
    n = len(b.ops)
    prog = b.finish()
    assert subword_starts is None or len(prog.ops) == n, "dead code: subword positions would be off"
    return prog
