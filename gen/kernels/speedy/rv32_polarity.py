"""Which polarity each S-box value of SPEEDY's RV32 round is computed in, so that its and-not /
or-not gates need the fewest NOTs (RV32I has no and-not; gen/kernels/speedy/rv32.py).

A value may be held as itself or complemented; a gate on two held values is AND or OR when the
operands' polarities differ by the gate's negation (De Morgan gives the dual gate on complemented
operands, its result complemented), so each gate picks the polarity ``pa`` of its first operand,
its result takes ``pa``, and a value needed in the other polarity costs one NOT.  The S-box inputs'
polarities are free (set by complementing round-key words).  ``solve`` minimises the NOTs of a
round's two S-boxes (the second reads the first's outputs through ShiftColumns) exactly, with
OR-Tools CP-SAT; ``PLANS`` keeps its answer for the circuit in use so that generating a drop
needs no solver (tests/test_speedy_rv32.py solves again and compares).
"""
from __future__ import annotations

import hashlib

#: operand polarity difference a gate needs (and-not / or-not: 1)
DIFF = {"and": 0, "or": 0, "andn": 1, "orn": 1}


def circuit_key(gates) -> str:
    return hashlib.sha256(repr(tuple(gates)).encode()).hexdigest()[:16]


def solve(gates, names_in, names_out, seconds: float = 60.0) -> tuple[int, tuple, str, str]:
    """(NOTs of a round, input polarities, pa bits of S-box 1's gates, of S-box 2's), optimal."""
    from ortools.sat.python import cp_model
    assert all(op in DIFF for _, op, _, _ in gates), "and/or/andn/orn circuits only"
    m = cp_model.CpModel()
    h: dict = {}
    p: dict = {}

    def value(name):
        h[name] = (m.NewBoolVar(f"{name}.h0"), m.NewBoolVar(f"{name}.h1"))
        p[name] = m.NewBoolVar(f"{name}.p")
        m.AddImplication(p[name], h[name][1])
        m.AddImplication(p[name].Not(), h[name][0])

    def box(tag, ins):
        ren = dict(zip(names_in, ins))
        for dst, op, a, b in gates:
            c = f"{tag}{dst}"
            value(c)
            a, b = ren[a], ren[b]
            hb = h[b] if not DIFF[op] else h[b][::-1]
            m.AddBoolAnd([h[a][1], hb[1]]).OnlyEnforceIf(p[c])
            m.AddBoolAnd([h[a][0], hb[0]]).OnlyEnforceIf(p[c].Not())
            ren[dst] = c
        return [ren[n] for n in names_out], [f"{tag}{dst}" for dst, _, _, _ in gates]

    ins = [f"in.{n}" for n in names_in]
    for n in ins:
        value(n)
    mid, g1 = box("s1.", ins)
    _, g2 = box("s2.", mid)
    m.Minimize(sum(h0 + h1 - 1 for h0, h1 in h.values()))
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1
    solver.parameters.random_seed = 0
    solver.parameters.max_deterministic_time = seconds
    status = solver.Solve(m)
    assert status in (cp_model.OPTIMAL, cp_model.FEASIBLE), solver.StatusName(status)
    print(solver.StatusName(status), solver.ObjectiveValue(), solver.BestObjectiveBound())
    bits = lambda names: "".join(str(solver.Value(p[c])) for c in names)
    return (int(solver.ObjectiveValue()), tuple(solver.Value(p[n]) for n in ins), bits(g1), bits(g2))


#: circuit_key(gates) -> solve(...)'s answer (regenerate: python -m gen.kernels.speedy.rv32_polarity)
PLANS: dict = {}


def plan(gates, names_in, names_out) -> tuple:
    key = circuit_key(gates)
    if key not in PLANS:
        raise KeyError(f"no stored polarity plan for S-box circuit {key}: run "
                       f"python -m gen.kernels.speedy.rv32_polarity and add its line to PLANS")
    return PLANS[key]


if __name__ == "__main__":
    from gen.ciphers import get
    spec = get("speedy5")
    print(f"    {circuit_key(spec.sbox_circuit)!r}: "
          f"{solve(spec.sbox_circuit, spec.sbox_inputs, spec.sbox_outputs)!r},")
