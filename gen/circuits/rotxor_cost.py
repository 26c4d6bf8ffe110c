"""The fewest RV32I instructions for a XOR of rotations of one word when every value is a XOR of
rotations of it: rotation 3 (``srli``, ``slli``, ``or``), XOR 1, mixed freely.

gen/circuits/rotxor_chain.py counts chains of rotate-and-XOR steps (4 instructions each on RV32).
This search also allows what such chains cannot express: a plain XOR of two values already built
(1 instruction) and a bare rotation reused by several XORs (3 once).  A value is a rotation mask
(bit a = rotl(x, a)), i.e. a polynomial in GF(2)[z]/(z^32 - 1); the target is wanted up to a free
output rotation (SPEEDY keeps MixColumns' output rotation lazy).

``min_cost(target, budget)`` is an exhaustive depth-first search with these savings, none of which
drops a program of least cost:

* a rotation is never applied to a rotation's output (rotl(rotl(v, a), b) = rotl(v, a + b) from v,
  same count), and no value is built twice or as 0;
* every value built is used later, except the output: a program keeps the set of values not used
  yet (``pending``); a XOR removes at most two and adds one, a rotation removes at most one and
  adds one, so ``len(pending) - 1`` more XORs are needed at least, and a move whose pending set
  cannot be cleared within the budget is cut;
* the last moves are solved instead of enumerated: target = a ^ b (1), a ^ b ^ c (2), a ^
  rotl(b, k) (4), each with every pending value among its operands;
* states are memoised as (values, pending) with the largest budget they were searched with;
* every value is a XOR of x and the rotations' outputs, so none weighs more than M, the heaviest
  XOR of them, and a rotation at most doubles M: a target of weight w needs ceil(log2(w / M))
  more rotations (3 each), beside the XORs the pending values need.

    .venv/bin/python -m gen.circuits.rotxor_cost      # SPEEDY's MixColumns, cost by cost

Result: docs/riscv.md ("SPEEDY: the bound, searched").
"""
from __future__ import annotations

import argparse
import sys
from functools import lru_cache

from gen.circuits.rotxor_chain import mask_of, rotations, rotl

ROT, XOR = 3, 1


@lru_cache(maxsize=None)
def canon(v: int) -> int:
    return min(rotations(v))


def min_cost(target: int, budget: int, stats: dict | None = None, log=None) -> int | None:
    """The least cost <= ``budget`` of a program from x = 1 reaching a rotation of ``target``
    (None if none exists within ``budget``); ``log`` hears of every cost exhausted."""
    goal = rotations(target)
    for c in range(budget + 1):
        if log:
            log(f"cost {c - 1} exhausted; searching {c}")
        memo: dict = {}
        if _search((1,), frozenset(), frozenset(), c, goal, memo):
            if stats is not None:
                stats["states"] = stats.get("states", 0) + len(memo)
            return c
        if stats is not None:
            stats["states"] = stats.get("states", 0) + len(memo)
    return None


def _finish(vals, pending, rotated, left, goal) -> bool:
    """Is a rotation of the target reached with at most ``left``, by one of the solved endings?"""
    if any(v in goal and pending <= {v} for v in vals):
        return True
    if left < 1:
        return False
    n = len(vals)
    vset = set(vals)
    for i in range(n):
        a = vals[i]
        for j in range(i + 1, n):
            b = vals[j]
            if a ^ b in goal and pending <= {a, b}:
                return True
            if left >= 2:
                for t in goal:
                    c = t ^ a ^ b
                    if c in vset and c not in (a, b) and pending <= {a, b, c}:
                        return True
    if left >= ROT + XOR:
        by_class: dict = {}
        for v in vals:
            if v not in rotated:
                by_class.setdefault(canon(v), []).append(v)
        for a in vals:
            for t in goal:
                for b in by_class.get(canon(t ^ a), ()):
                    if pending <= {a, b}:
                        return True
    return False


@lru_cache(maxsize=None)
def _weight(goal_any: int) -> int:
    return bin(goal_any).count("1")


def w_goal(goal: set) -> int:
    return _weight(next(iter(goal)))


@lru_cache(maxsize=1 << 16)
def _heaviest(gens: tuple) -> int:
    span = {0}
    for g in gens:
        span |= {v ^ g for v in span}
    return max(bin(v).count("1") for v in span)


def _search(vals: tuple, pending: frozenset, rotated: frozenset, left: int, goal: set, memo: dict) -> bool:
    if _finish(vals, pending, rotated, left, goal):
        return True
    # every value is a XOR of x and the rotations' outputs, so none weighs more than M, the
    # heaviest XOR of them, and a rotation at most doubles M: r more rotations are needed (3 each);
    # every pending value but one must be consumed by a XOR, and the output is one
    m = _heaviest((1,) + tuple(sorted(rotated)))
    r = 0
    while m << r < w_goal(goal):
        r += 1
    if left < ROT * r + max(2 if r == 0 else 1, len(pending) - 1):
        return False
    key = (vals, pending)
    if memo.get(key, -1) >= left:
        return False
    memo[key] = left
    vset = set(vals)
    n = len(vals)
    for i in range(n):
        for j in range(i + 1, n):
            v = vals[i] ^ vals[j]
            if v and v not in vset:
                p = (pending - {vals[i], vals[j]}) | {v}
                if _search(tuple(sorted(vals + (v,))), p, rotated, left - XOR, goal, memo):
                    return True
    if left >= ROT + XOR + max(0, len(pending) - 1):
        for a in vals:
            if a in rotated:
                continue
            for k in range(1, 32):
                v = rotl(a, k)
                if v in vset:
                    continue
                p = (pending - {a}) | {v}
                if _search(tuple(sorted(vals + (v,))), p, rotated | {v}, left - ROT, goal, memo):
                    return True
    return False


def main(argv=None) -> int:
    from gen.circuits.shiftxor_min import SPEEDY_MC

    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--offsets", default=",".join(map(str, SPEEDY_MC)))
    p.add_argument("--budget", type=int, default=20)
    a = p.parse_args(argv)
    offs = tuple(int(s) for s in a.offsets.split(","))
    stats: dict = {}
    c = min_cost(mask_of(offs), a.budget, stats, log=lambda m: print(m, flush=True))
    print(f"offsets {offs}: least cost {c} (budget {a.budget}; {stats['states']} states searched)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
