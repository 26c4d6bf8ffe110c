"""A XOR of rotations of one word needs at least 8 RV32I instructions from shifts and XORs, and
SPEEDY's MixColumns column at least 9: a counting argument, and the one shape it leaves, searched.

Model: gen/circuits/shiftxor_min.py's (``slli``/``srli`` by 1..31 and ``xor``, one instruction
each; a rotation is ``slli``, ``srli``, ``or`` of disjoint parts).  Every value is linear in x and
a shift distributes over XOR, so the output is the XOR, over the paths from x to the output in
the program's graph, of x shifted by the path's *offset* (the signed sum of the shifts it passes)
and masked by the bits that stayed inside the word.  The target rotl(XOR over a in A of rotl(x,
a), r) has, for each rotation amount k = a + r mod 32, the diagonal k (x << k) and, for k != 0,
the diagonal k - 32 (x >> (32 - k)), all non-zero: |A| = 7 amounts give 13 or 14 diagonals, and
every one of them needs a path with its offset.  So, with s shifts and t XORs:

* paths: a XOR adds its operands' path counts, a shift keeps its operand's, so no value has more
  than 2^t paths: t >= 4 for 13;
* offsets: a path's offset is fixed by the set of shift instructions it passes, so there are at
  most 2^s of them: s >= 4 for 13.

Hence at least 8 instructions, and 8 only if the paths reach 13 with 4 XORs: the output XOR takes
two operands of at least 5 paths each, both the third XOR's value or shifts of it (a value
derived from the second XOR has at most 4), distinct, so one shifted; the third XOR needs 7 paths
from two operands of at most 4, so the second's value with one shifted, which needs 4, two
operands of 2, the first's (x alone has 1) with one shifted; the first XOR x with a shift of x.
Four shifts, one a level: ``v_{i+1} = v_i ^ shift(v_i, d_i)``, the *doubling chain*.
``doubling_chains(offsets)`` tries every one of the 62^4 (d_1..d_4), first by its 16 offsets
(the target's diagonals must be among them), then the survivors on all 32 unit vectors.  For
SPEEDY none computes the column: at least 9 instructions a column (tests/test_speedy_rv32_bound.py
runs it, docs/riscv.md uses it).
"""
from __future__ import annotations

import itertools

import numpy as np

from gen.circuits.shiftxor_min import computes

SHIFTS = [d for d in range(-31, 32) if d]


def diagonals(offsets, r: int) -> set:
    """The diagonals (offsets of x << d, d < 0 meaning x >> -d) of the target at rotation r."""
    out = set()
    for a in offsets:
        k = (a + r) % 32
        out |= {k} if k == 0 else {k, k - 32}
    return out


def _bits(ds) -> int:
    return sum(1 << (d + 31) for d in ds)


def chain_program(ds) -> list:
    """The doubling chain as a shiftxor_min program: v_{i+1} = shift(v_i, d_i) ^ v_i."""
    prog = []
    v = 0
    for d in ds:
        prog += [(d, v, None), (0, v, len(prog) + 1)]
        v = len(prog)
    return prog


def chains_carrying(offsets) -> list:
    """Every chain (d_1..d_4) among whose 16 path offsets lie all the target's diagonals, for
    some output rotation (a chain that computes the target must be one)."""
    wanted = np.array([_bits(diagonals(offsets, r)) for r in range(32)], dtype=np.int64)
    sh = np.array(SHIFTS, dtype=np.int64)
    # offsets of the 16 paths: subset sums of (d1, d2, d3, d4); bit (sum + 31) when in range
    d2, d3, d4 = (g.ravel() for g in np.meshgrid(sh, sh, sh, indexing="ij"))
    out = []
    for d1 in SHIFTS:
        mask = np.zeros(d2.shape, dtype=np.int64)
        for pick in itertools.product((0, 1), repeat=4):
            s = pick[0] * d1 + pick[1] * d2 + pick[2] * d3 + pick[3] * d4
            inside = (s >= -31) & (s <= 31)
            mask |= np.where(inside, np.left_shift(np.int64(1), np.clip(s + 31, 0, 62)), 0)
        ok = np.zeros(d2.shape, dtype=bool)
        for w in wanted:
            ok |= (mask & w) == w
        out += [(d1, int(d2[i]), int(d3[i]), int(d4[i])) for i in np.flatnonzero(ok)]
    return out


def doubling_chains(offsets) -> tuple[int, list]:
    """(how many of the 62^4 chains carry every target diagonal, the chains that compute the
    target on every x)."""
    carrying = chains_carrying(offsets)
    return len(carrying), [ds for ds in carrying if computes(chain_program(ds), offsets) is not None]


if __name__ == "__main__":
    from gen.circuits.shiftxor_min import SPEEDY_MC

    n, found = doubling_chains(SPEEDY_MC)
    print(f"{n} doubling chains carry the diagonals; {len(found)} compute the column: {found}")
