"""The fewest RV32I instructions for a XOR of rotations of one word, shifts allowed: an exact search.

RV32I without Zbb has no rotate: ``rotl(x, k)`` is ``slli``, ``srli``, ``or`` (3), and a
XOR of rotations such as SPEEDY's MixColumns column, XOR over a in {0, 1, 5, 9, 15, 21, 26} of
rotl(x, a) (wanted up to a free output rotation: it is held lazily), can also be built from
truncating shifts directly: rotl(x, k) = (x << k) ^ (x >> (32 - k)), Horner chains over left or
right shifts, masked shifts such as (x << a) >> b, any mix.  The question is the minimum number
of instructions of a straight-line program whose every instruction is ``slli``/``srli`` by 1..31
or ``xor``/``or`` of two earlier values (an ``or`` that builds a rotation is a XOR of disjoint
values; every value here is GF(2)-linear in x, so XOR is the only combining op that keeps it so).

The model (CP-SAT, ``min_cost``): node 0 is x, nodes 1..n each an instruction, node n the
output.  Every value is linear in x, so a program is right iff it is right on the 32 unit
vectors e_j; the model carries each node's value on a few of them only (the *tests*) and is a
relaxation: a program of the full problem satisfies it.  UNSAT on the tests therefore proves that
no program of n instructions exists; SAT gives a candidate, which is checked on all 32 unit
vectors (``evaluate``), and a unit vector it fails on is added to the tests (counter-example
guided; the loop ends because there are 32).  Each instruction is a node with a signed shift d
(d = 0: XOR, d > 0: slli d, d < 0: srli -d), a first operand and, for XOR, a second.  Normal forms
that keep at least one program of every cost (so UNSAT still proves the bound):
  * XOR operands are two different earlier nodes, the first the lower-numbered;
  * a shift never shifts a shift of the same direction (``(y << a) << b`` is ``y << (a + b)``
    from y, same count);
  * every node but the output is used by a later one, and the output is a XOR (a shift leaves
    rows that are zero for every x; the target has none);
  * node order: exact n, searched for n = 1, 2, ... so the first SAT is the minimum.
The output may be any rotation r of the target (a selector of 32).

    .venv/bin/python -m gen.circuits.shiftxor_min --upto 7   # SPEEDY's MixColumns (~30 min)

gen/circuits/shiftxor_bound.py proves more (>= 9) by counting; this model is its cross-check.

Result and timings: docs/riscv.md ("SPEEDY: the bound, searched").
"""
from __future__ import annotations

import argparse
import sys
import time

from gen.circuits.rotxor_chain import MASK, mask_of, rotl

SPEEDY_MC = (0, 1, 5, 9, 15, 21, 26)


def target_value(offsets, x: int, r: int = 0) -> int:
    """rotl(XOR over a of rotl(x, a), r)."""
    v = 0
    for a in offsets:
        v ^= rotl(x, a + r)
    return v


def evaluate(program: list, x: int) -> int:
    """Run ``program`` ([(d, i, j)]: node = (node_i << d or >> -d) ^ node_j if j is not None)
    on the word x; the last node's value."""
    vals = [x]
    for d, i, j in program:
        v = vals[i]
        v = (v << d) & MASK if d > 0 else v >> -d
        if j is not None:
            v ^= vals[j]
        vals.append(v)
    return vals[-1]


def computes(program: list, offsets) -> int | None:
    """The output rotation r with which ``program`` computes the target on every x, or None."""
    outs = [evaluate(program, 1 << j) for j in range(32)]
    for r in range(32):
        if all(o == target_value(offsets, 1 << j, r) for j, o in enumerate(outs)):
            return r
    return None


def _model(n: int, offsets, tests: list):
    from ortools.sat.python import cp_model

    m = cp_model.CpModel()
    T = len(tests)
    val = [[[None] * 32 for _ in range(T)] for _ in range(n + 1)]
    for t, x in enumerate(tests):
        for bit in range(32):
            val[0][t][bit] = m.NewConstant((x >> bit) & 1)
    shifts = [d for d in range(-31, 32)]
    sel_a, sel_b, sel_d = {}, {}, {}
    for k in range(1, n + 1):
        a = [m.NewBoolVar(f"a{k}_{i}") for i in range(k)]
        b = [m.NewBoolVar(f"b{k}_{i}") for i in range(k)]
        d = {s: m.NewBoolVar(f"d{k}_{s}") for s in shifts}
        sel_a[k], sel_b[k], sel_d[k] = a, b, d
        m.AddExactlyOne(a)
        m.AddExactlyOne(d.values())
        is_x = d[0]
        m.Add(sum(b) == 1).OnlyEnforceIf(is_x)
        m.Add(sum(b) == 0).OnlyEnforceIf(is_x.Not())
        for i in range(k):
            for j in range(i + 1):
                m.AddBoolOr([a[i].Not(), b[j].Not()])       # first operand < second
        if k == n:
            m.Add(is_x == 1)
        for t in range(T):
            o = [m.NewBoolVar("") for _ in range(32)]
            q = [m.NewBoolVar("") for _ in range(32)]
            w = [m.NewBoolVar("") for _ in range(32)]
            v = [m.NewBoolVar(f"v{k}_{t}_{bit}") for bit in range(32)]
            for bit in range(32):
                for i in range(k):
                    m.AddBoolOr([a[i].Not(), o[bit].Not(), val[i][t][bit]])
                    m.AddBoolOr([a[i].Not(), o[bit], val[i][t][bit].Not()])
                    m.AddBoolOr([b[i].Not(), q[bit].Not(), val[i][t][bit]])
                    m.AddBoolOr([b[i].Not(), q[bit], val[i][t][bit].Not()])
                m.AddBoolOr([q[bit].Not(), is_x])
                for s, lit in d.items():
                    src = bit - s
                    if 0 <= src < 32:
                        m.AddBoolOr([lit.Not(), w[bit].Not(), o[src]])
                        m.AddBoolOr([lit.Not(), w[bit], o[src].Not()])
                    else:
                        m.AddBoolOr([lit.Not(), w[bit].Not()])
                m.AddBoolXOr([w[bit], q[bit], v[bit].Not()])
            val[k][t] = v
    # a shift of a shift of the same direction is one shift
    left = {k: m.NewBoolVar("") for k in range(1, n + 1)}
    right = {k: m.NewBoolVar("") for k in range(1, n + 1)}
    for k in range(1, n + 1):
        m.Add(left[k] == sum(sel_d[k][s] for s in range(1, 32)))
        m.Add(right[k] == sum(sel_d[k][-s] for s in range(1, 32)))
        for i in range(1, k):
            m.AddBoolOr([left[k].Not(), sel_a[k][i].Not(), left[i].Not()])
            m.AddBoolOr([right[k].Not(), sel_a[k][i].Not(), right[i].Not()])
    # every node but the output is used
    for i in range(1, n):
        m.AddBoolOr([sel_a[k][i] for k in range(i + 1, n + 1)] + [sel_b[k][i] for k in range(i + 1, n + 1)])
    # the output is the target at some rotation r
    rs = [m.NewBoolVar(f"r{r}") for r in range(32)]
    m.AddExactlyOne(rs)
    for r, lit in enumerate(rs):
        for t, x in enumerate(tests):
            want = target_value(offsets, x, r)
            for bit in range(32):
                v = val[n][t][bit]
                m.AddImplication(lit, v if (want >> bit) & 1 else v.Not())
    return m, sel_a, sel_b, sel_d, rs


def solve(n: int, offsets, tests: list, seconds: float | None = None, workers: int = 1):
    """('sat', program, r) / ('unsat', None, None) / ('unknown', None, None) for exactly n
    instructions on the given test words."""
    from ortools.sat.python import cp_model

    m, sel_a, sel_b, sel_d, rs = _model(n, offsets, tests)
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = workers
    if seconds:
        solver.parameters.max_time_in_seconds = seconds
    st = solver.Solve(m)
    if st == cp_model.INFEASIBLE:
        return "unsat", None, None
    if st not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return "unknown", None, None
    prog = []
    for k in range(1, n + 1):
        i = next(i for i, lit in enumerate(sel_a[k]) if solver.Value(lit))
        d = next(s for s, lit in sel_d[k].items() if solver.Value(lit))
        j = next((j for j, lit in enumerate(sel_b[k]) if solver.Value(lit)), None)
        prog.append((d, i, j))
    r = next(r for r, lit in enumerate(rs) if solver.Value(lit))
    return "sat", prog, r


def exact_n(n: int, offsets, tests=(0, 31), seconds: float | None = None, log=None):
    """Counter-example guided: ('sat', program, r, tests) with a program right on every x, or
    ('unsat', None, None, tests): no program of exactly n instructions (proof on ``tests``)."""
    tests = list(tests)
    while True:
        t0 = time.time()
        st, prog, r = solve(n, offsets, [1 << j for j in tests], seconds)
        if log:
            log(f"n={n} tests={tests}: {st} ({time.time() - t0:.1f} s)")
        if st != "sat":
            return st, None, None, tests
        rr = computes(prog, offsets)
        if rr is not None:
            return "sat", prog, rr, tests
        outs = [evaluate(prog, 1 << j) for j in range(32)]
        j = next(j for j, o in enumerate(outs) if o != target_value(offsets, 1 << j, r))
        tests.append(j)


def min_cost(offsets, upto: int, tests=(0, 31), seconds: float | None = None, log=None):
    """(n, program) for the least n <= upto with a program, or (None, proofs) when every n <=
    upto is UNSAT (proofs: [(n, tests)])."""
    proofs = []
    for n in range(1, upto + 1):
        st, prog, r, used = exact_n(n, offsets, tests, seconds, log)
        if st == "sat":
            return n, prog
        if st == "unknown":
            raise TimeoutError(f"n = {n}: not decided in {seconds} s")
        proofs.append((n, used))
    return None, proofs


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--offsets", default=",".join(map(str, SPEEDY_MC)))
    p.add_argument("--upto", type=int, default=19)
    p.add_argument("--seconds", type=float, default=None)
    a = p.parse_args(argv)
    offs = tuple(int(s) for s in a.offsets.split(","))
    n, res = min_cost(offs, a.upto, seconds=a.seconds, log=lambda s: print(s, flush=True))
    if n is None:
        print(f"no program of <= {a.upto} instructions computes XOR over {offs} of rotl(x, a)")
    else:
        print(f"{n} instructions: {res} (output rotation {computes(res, offs)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
