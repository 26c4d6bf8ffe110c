"""`slicegen explore --space cpsat`: an exact answer for one segment, by OR-Tools CP-SAT.

CP-SAT finds the least MAXLIVE over all topological orders of a segment; if it fits the
registers the order is spill-free (scheduling and allocation solved exactly), otherwise it proves
the segment must spill.  The model is SLOTHY's (Abdulrahman et al., TCHES 2022/1) without timing.
The order found is a candidate like any other: it wins only if faster.  The model in full:
docs/internals/explorer.md.
"""
from __future__ import annotations

from gen.ir import Program
from gen.isa import thumb2 as t2
from gen.sched import listsched

#: the registers a segment has (r0-r12, lr: the pointers live on the stack, gen/kernels/aes/thumb2.py)
REGISTERS = len(t2.ALLOCATABLE)


def maxlive_order(prog: Program, seconds: float = 20.0, seed: int = 0, hint=None, floor: int = 0):
    """-> (order of the segment's ops (positions inside it, as the stored orders), MAXLIVE of it,
    the proven lower bound, "OPTIMAL" or "FEASIBLE"). ``seconds``: CP-SAT's deterministic time limit (one
    worker), so the same call gives the same order. ``prog`` is a segment harness (8 loads, the
    ops, 8 stores: gen/kernels/aes/thumb2.segment_program). Deterministic for a seed and one worker.
    ``hint``: an order to start from (the stored one: CP-SAT then always has a solution);
    ``floor``: a proven lower bound of MAXLIVE (gen/explore/pressure.certain_live), added as a
    constraint so the solver need not find it."""
    from ortools.sat.python import cp_model
    n = len(prog.ops)
    m = n - 16
    body = list(range(8, 8 + m))
    preds = listsched.dependences(prog)
    defined = {prog.ops[i].dst: i for i in range(n) if prog.ops[i].dst is not None}
    readers: dict = {}
    for i in range(n):
        for r in prog.ops[i].reads():
            readers.setdefault(defined[r], []).append(i)
    md = cp_model.CpModel()
    pos = {i: md.NewIntVar(0, m - 1, f"p{i}") for i in body}
    md.AddAllDifferent(list(pos.values()))
    for i in body:
        for p in preds[i]:
            if p in pos:
                md.Add(pos[p] < pos[i])

    def at(i):        # harness loads before the segment (-1), its stores after it (m)
        return pos[i] if i in pos else (-1 if i < 8 else m)

    starts, ends, intervals = [], [], []
    for d, rs in readers.items():
        if d not in pos and d >= 8:
            continue
        start = at(d)
        inside = [at(r) for r in rs]
        end = md.NewIntVar(-1, m, f"e{d}")
        md.AddMaxEquality(end, inside)
        size = md.NewIntVar(0, m + 1, f"s{d}")
        md.Add(size == end - start)
        intervals.append(md.NewIntervalVar(start, size, end, f"v{d}"))
    rk_loads = [i for i in body if prog.ops[i].kind == "ld" and prog.ops[i].mem == "rk"]
    if rk_loads:      # the round-key pointer, from the start to the last round-key load (inclusive)
        end = md.NewIntVar(0, m, "erk")
        md.AddMaxEquality(end, [pos[i] + 1 for i in rk_loads])
        intervals.append(md.NewIntervalVar(-1, md.NewIntVar(1, m + 1, "srk"), end, "rk"))
    cap = md.NewIntVar(1, len(intervals), "maxlive")
    md.AddCumulative(intervals, [1] * len(intervals), cap)
    if floor:
        md.Add(cap >= floor)
    for k, g in enumerate(hint or ()):
        md.AddHint(pos[8 + g], k)
    md.Minimize(cap)
    solver = cp_model.CpSolver()
    solver.parameters.max_deterministic_time = seconds   # reproducible, unlike wall time
    solver.parameters.num_workers = 1
    solver.parameters.random_seed = seed
    status = solver.Solve(md)
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        raise RuntimeError(f"CP-SAT found no order in {seconds} s")
    order = sorted(range(m), key=lambda g: solver.Value(pos[8 + g]))
    return (tuple(order), int(solver.Value(cap)), int(solver.BestObjectiveBound()),
            "OPTIMAL" if status == cp_model.OPTIMAL else "FEASIBLE")


def maxlive(prog: Program, order) -> int:
    """MAXLIVE of ``order`` by the same rules as the model (to compare with the stored orders)."""
    n = len(prog.ops)
    m = n - 16
    at = {8 + g: k for k, g in enumerate(order)}
    defined = {prog.ops[i].dst: i for i in range(n) if prog.ops[i].dst is not None}
    last: dict = {}
    for i in range(n):
        for r in prog.ops[i].reads():
            d = defined[r]
            last[d] = max(last.get(d, -2), at.get(i, -1 if i < 8 else m))
    rk = [at[i] for i in at if prog.ops[i].kind == "ld" and prog.ops[i].mem == "rk"]
    ranges = [(at.get(d, -1), e) for d, e in last.items() if d in at or d < 8]
    if rk:
        ranges.append((-1, max(rk) + 1))
    return max(sum(1 for s, e in ranges if s <= t < e) for t in range(-1, m + 1))
