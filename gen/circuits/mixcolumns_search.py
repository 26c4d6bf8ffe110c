"""Exhaustive search for byte-level MixColumns programs (gen/circuits/mixcolumns_xor.py's form).

A byte value here is A + 2B with A, B sums of rows (4-bit subsets of x0..x3): out_r is
(all rows but r) + 2(x_r + x_r+1).  A program doubles ``doublings`` sums of rows P (3 XORs each on
bit words; a P of two or more rows must itself be made by additions) and adds (8 XORs each).  For
each choice of P whose doublings span the four needed 2(x_r + x_r+1), a depth-first search over
sets of values adds ``free`` intermediate sums (any two values held, cancellations allowed) and
then asks whether the missing targets (the four outputs and the P) follow by one addition each,
in any order.  Sets are memoised, so the search is exhaustive: ``search(10, 3)`` is None (no
92-XOR-class program with three doublings of row sums; Maximov's 92 needs another form), and
``search(11, 3)`` finds a 97-XOR program like ``CANCEL_97``.
Run: ``python -m gen.circuits.mixcolumns_search --adds 11 --doublings 3`` (``make
mixcolumns-search``).
"""
from __future__ import annotations

import argparse
import itertools

from gen.circuits import mixcolumns_xor as MX

ROWS = MX.ROWS


def rows_of(*rows: int) -> int:
    return sum(1 << r for r in rows)


def value(a: int, b: int) -> int:
    """A + 2B as one int: A in bits 0-3, B in bits 4-7."""
    return a | b << 4


OUTPUTS = tuple(value(rows_of(*((r + k) % ROWS for k in (1, 2, 3))), rows_of(r, (r + 1) % ROWS))
                for r in range(ROWS))
NEEDED = tuple(rows_of(r, (r + 1) % ROWS) for r in range(ROWS))


def _span(vs) -> set[int]:
    sp = {0}
    for v in vs:
        sp |= {x ^ v for x in sp}
    return sp


def _expand(have: set[int], order: list, P) -> None:
    """Adds to ``have`` (and ``order``) what costs no free step: the doubling of every P held, and
    every output one addition away, until nothing changes (both only widen what is reachable)."""
    changed = True
    while changed:
        changed = False
        for p in P:
            if value(p, 0) in have and value(0, p) not in have:
                have.add(value(0, p))
                order.append(("x2", value(0, p)))
                changed = True
        for t in OUTPUTS:
            if t not in have and any(t ^ v in have for v in have):
                have.add(t)
                order.append(("add", t))
                changed = True


def search_p(P: tuple[int, ...], adds: int) -> list | None:
    """The steps ((kind, value) in order) of a program of ``adds`` additions doubling the sums of
    rows P, or None when there is none."""
    free = adds - len(OUTPUTS)
    seen: set[frozenset] = set()

    def dfs(have: set[int], free: int, order: list):
        _expand(have, order, P)
        key = frozenset(have)
        if key in seen:
            return None
        seen.add(key)
        if all(t in have for t in OUTPUTS):
            return order
        if free == 0:
            return None
        for a, b in itertools.combinations(sorted(have), 2):
            v = a ^ b
            if v and v not in have:
                found = dfs(have | {v}, free - 1, order + [("add", v)])
                if found:
                    return found
        return None
    start = {value(rows_of(r), 0) for r in range(ROWS)}
    return dfs(start, free, []) if free >= 0 else None


def search(adds: int, doublings: int):
    """(P, values) of the first program found, or None after every choice of P."""
    for P in itertools.combinations(range(1, 1 << ROWS), doublings):
        if set(NEEDED) <= _span(P):
            found = search_p(P, adds)
            if found:
                return P, found
    return None


def to_program(P: tuple[int, ...], steps: list) -> MX.ByteProgram:
    """The found steps as a mixcolumns_xor program (each addition of two values held before)."""
    def name(v: int) -> str:
        if v in OUTPUTS:
            return f"o{OUTPUTS.index(v)}"
        a, b = v & 15, v >> 4
        return "_".join([f"x{r}" for r in range(ROWS) if a >> r & 1] + [f"d{r}" for r in range(ROWS) if b >> r & 1])
    have = {value(rows_of(r), 0) for r in range(ROWS)}
    prog = []
    for kind, v in steps:
        if kind == "x2":
            prog.append((name(v), "x2", name(value(v >> 4, 0))))
        else:
            a = next(a for a in sorted(have) if a ^ v in have)
            prog.append((name(v), "add", name(a), name(a ^ v)))
        have.add(v)
    return tuple(prog)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--adds", type=int, default=11)
    ap.add_argument("--doublings", type=int, default=3)
    args = ap.parse_args(argv)
    found = search(args.adds, args.doublings)
    if not found:
        print(f"no program of {args.adds} additions and {args.doublings} doublings of row sums")
        return 1
    prog = to_program(*found)
    for step in prog:
        print(" ".join(step))
    print(f"{MX.check(prog)} XORs")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
