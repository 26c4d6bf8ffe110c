"""Column-sliced SPEEDY-r-192 encryption of one block, built as IR.

pack (layout.py) -> rounds 0 .. r-2: AddRoundKey, SB, SC, SB, SC, MC (rounds.py; the round
constant c_r is folded into the next round key) -> last round: AddRoundKey, SB, SC, SB,
AddRoundKey -> unpack.  Memories: ``in`` / ``out`` (6 little-endian words = the 24 block bytes),
``rk`` (6 (r + 1) words: rk[6 r + j] = column j of round key r, constants included).
"""
from __future__ import annotations

from gen.ir import Builder, Program
from gen.kernels.speedy import layout
from gen.kernels.speedy.rounds import (emit_add_round_key, emit_mixcolumns, emit_sbox,
                                       shift_columns)

COLS = layout.COLS
#: list schedulers the Thumb-2 kernels are compiled with, the cheapest kept (thumb2_function.cheapest):
#: 'sink' keeps the generator's order (the S-box circuit's outputs one after another, each op
#: sunk to its first consumer), which on this program needs almost no spill; 'pressure' is the
#: generic list scheduler
THUMB2_STRATEGIES = ("sink", "pressure")


def encrypt_program(spec) -> Program:
    assert spec.family == "speedy" and spec.block_bytes == 24, spec.name
    mc = spec.linear_layer["mixcolumns"]
    nr = spec.rounds
    b = Builder(f"{spec.name}_encrypt")
    b.declare("in", layout.WORDS, "r")
    b.declare("rk", COLS * (nr + 1), "r")
    b.declare("out", layout.WORDS, "w")
    x = [(v, 0) for v in layout.emit_pack(b, [b.ld("in", k) for k in range(layout.WORDS)])]
    for r in range(nr - 1):
        x = emit_add_round_key(b, x, r)
        x = shift_columns(emit_sbox(b, spec, x))
        x = shift_columns(emit_sbox(b, spec, x))
        x = emit_mixcolumns(b, x, mc)
    x = emit_add_round_key(b, x, nr - 1)
    x = emit_sbox(b, spec, shift_columns(emit_sbox(b, spec, x)))
    x = emit_add_round_key(b, x, nr)
    assert all(rot == 0 for _, rot in x)            # AddRoundKey leaves every column in place
    for k, w in enumerate(layout.emit_unpack(b, [v for v, _ in x])):
        b.st("out", k, w)
    return b.finish()
