"""Fixed bit permutations (and selections) of 32-bit words, emitted as IR.

``emit_gather`` builds destination words from source words given where every destination bit
comes from.  Bits that travel together (same source word, same rotation distance mod 32) form
one group: ``ror(src & mask, rot)``; a destination word is the XOR of its groups
(``Builder.xor_terms``, which folds the rotations into the EORs' flexible operand).  Cost per
destination word: one AND per group (none when the mask keeps every live bit of the source),
one EOR per group after the first, plus one ROR when no group stays in place.  Masks that are
not Thumb-2 immediates are materialised once with ``movc`` and shared (aes_face's constant
cache, ``Consts``).

The same emitter serves within-word permutations (Rijndael-256's explicit ShiftRows), byte-order
transposes (SPEEDY's packing) and key-bit permutations.
"""
from __future__ import annotations

from typing import Mapping, Optional

from gen.ir import MASK32, Builder
from gen.kernels.face.aes_face import Consts   # movc once per constant per program

BitRef = tuple[int, int]      # (word index, bit position 0 = LSB)


def groups(perm: Mapping[BitRef, BitRef]) -> dict[int, dict[tuple[int, int], int]]:
    """{dst word: {(src word, right rotation): src mask}} for ``perm[dst bit] = src bit``."""
    out: dict[int, dict[tuple[int, int], int]] = {}
    for (dw, db), (sw, sb) in sorted(perm.items()):
        g = out.setdefault(dw, {})
        key = (sw, (sb - db) % 32)
        g[key] = g.get(key, 0) | (1 << sb)
    return out


def cost(perm: Mapping[BitRef, BitRef]) -> int:
    """An upper bound of the ALU ops ``emit_gather`` spends (ANDs + EORs + RORs; a mask that
    is no Thumb-2 immediate adds one ``movc`` per program)."""
    return sum(2 * len(g) - 1 + (0 if any(rot == 0 for _, rot in g) else 1)
               for g in groups(perm).values())


def emit_gather(b: Builder, srcs: list, perm: Mapping[BitRef, BitRef], n_dst: int,
                live: Optional[list[int]] = None, consts: Optional[Consts] = None) -> list:
    """Destination words (vregs; ``None`` for a word no bit lands in) with
    ``dst[dw] bit db = srcs[sw] bit sb`` for every ``perm[(dw, db)] = (sw, sb)``; bits not in
    ``perm`` are zero.  ``live[sw]`` (default all ones) are the bits of ``srcs[sw]`` that may be
    non-zero: a group whose mask covers them needs no AND."""
    consts = consts or Consts(b)
    out: list = [None] * n_dst
    for dw, g in groups(perm).items():
        terms = []
        for (sw, rot), mask in sorted(g.items()):
            src_live = MASK32 if live is None else live[sw]
            x = srcs[sw] if src_live & ~mask == 0 else consts.and_(srcs[sw], mask)
            terms.append((x, rot))
        out[dw] = b.xor_terms(terms)
    return out


def apply(words: list[int], perm: Mapping[BitRef, BitRef], n_dst: int) -> list[int]:
    """The permutation on Python ints (the model ``emit_gather`` is tested against)."""
    out = [0] * n_dst
    for (dw, db), (sw, sb) in perm.items():
        out[dw] |= ((words[sw] >> sb) & 1) << db
    return out
