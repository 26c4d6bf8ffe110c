"""SPEEDY's round function on column words, with rotations kept lazy.

A value is ``(vreg, rot)``: ShiftColumns only changes ``rot`` and every consumer folds the
rotation into its flexible second operand, so ShiftColumns is free and the S-box costs its 47
gates.  MixColumns shares the distance-5 pairs of MC_OFFSETS: 5 EORs instead of 6 (``mix_plan``),
shown minimal by gen/circuits/rotxor_chain.py.  Round constants are folded into the round keys.
The op counts: docs/internals/speedy.md.
"""
from __future__ import annotations

from gen.ciphers.base import walk_circuit
from gen.ir import Builder

Lazy = tuple  # (vreg, rot)

IR_OF_GATE = {"and": "and", "or": "orr", "xor": "eor", "andn": "bic", "orn": "orn"}
NEGATED_GATE = {"nand": "and", "nor": "or", "xnor": "xor"}


def emit_gate(b: Builder, op: str, x: Lazy, y) -> Lazy:
    if op == "not":
        return b.mvn(x[0]), x[1]
    if op in NEGATED_GATE:
        v, rot = emit_gate(b, NEGATED_GATE[op], x, y)
        return b.mvn(v), rot
    return b.alu(IR_OF_GATE[op], x[0], y[0], shift=("ror", (y[1] - x[1]) % 32)), x[1]


def emit_sbox(b: Builder, spec, cols: list) -> list:
    ins = dict(zip(spec.sbox_inputs, cols))
    outs = walk_circuit(spec.sbox_circuit, ins, lambda op, x, y: emit_gate(b, op, x, y),
                        spec.sbox_outputs)
    return [outs[name] for name in spec.sbox_outputs]


def shift_columns(cols: list) -> list:
    """Column j rotates left by j (row i takes row i + j): only the lazy rotation changes."""
    return [(v, (rot - j) % 32) for j, (v, rot) in enumerate(cols)]


def mix_plan(offsets) -> tuple[int, tuple[int, ...], tuple[int, ...]]:
    """(d, pair_bases, singles): XOR_a rotl(x, a) = XOR_{a in pair_bases} rotl(x ^ rotl(x, d), a)
    ^ XOR_{s in singles} rotl(x, s); the d with the most disjoint pairs (d = 0: no pairs)."""
    best = (0, (), tuple(sorted(offsets)))
    for d in range(1, 32):
        left, bases = set(offsets), []
        for a in sorted(offsets):
            if a in left and (a + d) % 32 in left:
                left -= {a, (a + d) % 32}
                bases.append(a)
        if len(bases) > len(best[1]) and len(bases) >= 2:
            best = (d, tuple(bases), tuple(sorted(left)))
    return best


def emit_xor_lazy(b: Builder, terms: list) -> Lazy:
    """XOR of ror(v, rot) over terms, left lazy with the first term's rotation."""
    (acc, rot0), rest = terms[0], terms[1:]
    for v, rot in rest:
        acc = b.eor(acc, v, shift=("ror", (rot - rot0) % 32))
    return acc, rot0


def emit_mixcolumns(b: Builder, cols: list, offsets) -> list:
    d, bases, singles = mix_plan(offsets)
    out = []
    for v, rot in cols:
        terms = [(v, (rot - s) % 32) for s in singles]
        if bases:
            t = b.eor(v, v, shift=("ror", (-d) % 32))          # x ^ rotl(x, d), same rotation
            terms = [(t, (rot - a) % 32) for a in bases] + terms
        out.append(emit_xor_lazy(b, terms))
    return out


def emit_add_round_key(b: Builder, cols: list, r: int) -> list:
    n = len(cols)
    return [(b.eor(b.ld("rk", n * r + j), v, shift=("ror", rot)), 0) for j, (v, rot) in enumerate(cols)]
