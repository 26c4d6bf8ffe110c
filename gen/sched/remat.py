"""Recompute a spilled value with one ALU instruction instead of reloading it (ALU rematerialization).

An evicted value comes back by its own op if that op's operands are in registers, or as ``a ^ b``
for two values in registers whose *linear signatures* (the set of leaves whose XOR a value is)
XOR to its own; if every use can be served so, the spill store goes.
``gen.sched.regalloc.check_allocation`` re-derives the signatures and checks every
rematerialized instruction.  Why it pays and the induction: docs/internals/scheduler.md.
"""
from __future__ import annotations

from gen import ir

#: IR kinds a spilled value may be recomputed with (one instruction each; not loads, not movc,
#: which may expand to two instructions)
RECOMPUTABLE = ir.ALU_KINDS + ir.UNARY_KINDS + ir.SHIFT_KINDS


def linear_signatures(program: ir.Program) -> dict:
    """vreg -> int bit mask over leaves (see the module docstring)."""
    sig: dict = {}
    for op in program.ops:
        if op.dst is None:
            continue
        if op.kind == "eor" and op.b is not None and op.shift is None:
            sig[op.dst] = sig[op.a] ^ sig[op.b]
        else:
            sig[op.dst] = 1 << len(sig)          # a fresh leaf (a distinct bit per value)
    return sig


def definitions(program: ir.Program) -> dict:
    """vreg -> the op that writes it."""
    return {op.dst: op for op in program.ops if op.dst is not None}


def own_op(op: ir.Op, held) -> ir.Op | None:
    """``op`` itself when it is one recomputable instruction whose operands are all ``held``."""
    if op.kind in RECOMPUTABLE and all(r in held for r in op.reads()):
        return op
    return None


def xor_identity(v: int, sig: dict, held) -> ir.Op | None:
    """``v = eor a, b`` for two held values a, b with sig(a) ^ sig(b) == sig(v), or None.
    Deterministic: the first pair in the order of ``held``."""
    want = sig[v]
    by_sig: dict = {}
    for h in held:
        by_sig.setdefault(sig[h], h)
    for a in held:
        b = by_sig.get(want ^ sig[a])
        if b is not None and b != a:
            return ir.Op("eor", dst=v, a=a, b=b)
    return None


def recompute_op(v: int, defs: dict, sig: dict, held) -> ir.Op | None:
    """One IR op computing ``v`` from ``held`` values (a list of vregs in registers): its own
    op if possible, else an XOR identity; None when neither exists."""
    return own_op(defs[v], set(held)) or xor_identity(v, sig, held)


def proves(op: ir.Op, v: int, defs: dict, sig: dict) -> bool:
    """True when ``op`` (reading the values it names) computes ``v``: it is v's own op, or a
    plain ``eor`` whose operands' signatures XOR to v's."""
    if op == defs.get(v):
        return True
    return (op.kind == "eor" and op.b is not None and op.shift is None and op.imm is None
            and op.a in sig and op.b in sig and sig[op.a] ^ sig[op.b] == sig[v])
