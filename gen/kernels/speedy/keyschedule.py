"""SPEEDY-r-192 key schedule into column-sliced round keys, built as IR (no data-dependent
index or branch: the schedule is a public bit permutation).

k_r[p] = K[sigma^r(p)], sigma(p) = 7 p + 1 mod 192: column j of k_r is one column of K with its
rows permuted, so each column word is built from the cheapest word already made from the same
key column (bitperm.emit_gather).  rk_r = k_r ^ c_{r-1} for r = 1 .. R-1.  Memories: ``key``
(6 words), ``rk`` (6 (R + 1) words).  The derivation: docs/internals/speedy.md.
"""
from __future__ import annotations

from gen.ciphers import speedy as model
from gen.ir import Builder, Program
from gen.kernels import bitperm
from gen.kernels.speedy import layout

ROWS, COLS = layout.ROWS, layout.COLS


def source_rows(r: int, j: int) -> tuple[int, list[int]]:
    """(m, rows): column j of k_r, row i = column m of K, row rows[i]."""
    src = []
    for i in range(ROWS):
        p = COLS * i + j
        for _ in range(r):
            p = model.KEY_PERMUTATION[p]
        src.append(p)
    m = src[0] % COLS
    assert all(p % COLS == m for p in src), (r, j)
    return m, [p // COLS for p in src]


def row_perm(have: list[int], want: list[int]) -> dict:
    """Bit map making a word with rows ``want`` from one with rows ``have`` (same key column)."""
    where = {row: k for k, row in enumerate(have)}
    return {(0, 31 - i): (0, 31 - where[row]) for i, row in enumerate(want)}


def round_constants(rounds: int) -> list[list[int]]:
    """Sliced constant added to round key r (all-zero for r = 0 and r = R)."""
    zero = [0] * COLS
    return [zero] + [layout.columns_of(model.round_constant(r - 1)) for r in range(1, rounds)] + [zero]


def keyschedule_program(spec, plan: dict | None = None) -> Program:
    """``plan`` (optional, the RV32 kernel's: gen/kernels/speedy/rv32.py): {(r, j): (rot, flip)}
    stores word j of round key r rotated left by ``rot`` (its rows taken in another cyclic order:
    the same gather, no rotation) and complemented if ``flip`` (folded into the round constant)."""
    assert spec.family == "speedy" and spec.key_bytes == 24, spec.name
    nr = spec.rounds
    b = Builder(f"{spec.name}_keyschedule")
    b.declare("key", layout.WORDS, "r")
    b.declare("rk", COLS * (nr + 1), "w")
    cols = layout.emit_pack(b, [b.ld("key", k) for k in range(layout.WORDS)])
    made: dict[int, list[tuple[list[int], int]]] = {m: [(list(range(ROWS)), cols[m])] for m in range(COLS)}
    consts = bitperm.Consts(b)
    round_consts = round_constants(nr)
    for r in range(nr + 1):
        for j in range(COLS):
            m, rows = source_rows(r, j)
            rot, flip = plan[(r, j)] if plan else (0, 0)
            rows = rows[rot:] + rows[:rot]               # rotl(word, rot): row i takes row i + rot
            have, v = min(made[m], key=lambda hv: bitperm.cost(row_perm(hv[0], rows)))
            if have != rows:
                v = bitperm.emit_gather(b, [v], row_perm(have, rows), 1, consts=consts)[0]
                made[m].append((rows, v))
            rc = round_consts[r][j]
            rc = ((rc << rot) | (rc >> (32 - rot))) & 0xFFFFFFFF if rot else rc
            b.st("rk", COLS * r + j, consts.eor(v, rc ^ (0xFFFFFFFF if flip else 0)))
    return b.finish()
